// Online learning into the book: the result of a game the adapter played, and
// games whose result was not on the board, kept as pending until a PGN of the
// tournament resolves them.
//
// Learning itself is probe's `graphbook learn` code (probe::learn_file, with
// the side the adapter played): the adapter writes the game as a one-game
// PGN in the temporary directory and learns it, so a book learns the same
// way from the adapter and from `graphbook learn --side`. Each learn is one
// LMDB write transaction that reads and updates the counters inside it, so
// several adapter processes learning into one book serialize on LMDB's writer
// lock and lose no update; a map grown by another process (MDB_MAP_RESIZED)
// is adopted when a transaction begins (store::WriteTxn::begin).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "book/chess/position.h"
#include "book/store/book.h"
#include "uci-adapter/game_end.h"

namespace gb::uci_adapter {

// A game as a list of moves from a start position.
struct PlayedGame {
  std::string start_fen;  // empty: the standard start position
  std::vector<Move> moves;
};

struct LearnSummary {
  std::size_t moves_learned = 0;  // book moves credited (probe's moves_credited)
};
// Learns outcome (for side) on side's moves while the game stays in the book.
// Each call is a new game (its PGN gets a unique Round tag), so two equal
// games both count. Returns an error text (naming the book) on failure.
[[nodiscard]] std::optional<std::string> learn_game(store::Book& book, const PlayedGame& game, Color side,
                                                    Outcome outcome, LearnSummary* summary = nullptr);

// The named database of pending games: key an 8-byte id, value JSON
// {"fen": "...", "moves": "e2e4 e7e5 ...", "side": "white"|"black",
//  "last_ours": bool, "recorded_at": unix seconds}.
inline constexpr const char* kPendingDatabase = "uci_pending";

// Records a game whose result the adapter did not see. last_ours: the last
// move is the adapter's own bestmove, which the GUI may not have played.
[[nodiscard]] store::Status record_pending_game(store::Book& book, const PlayedGame& game, Color side,
                                                bool last_ours);

struct PendingGame {
  std::string id;
  PlayedGame game;
  Color side = Color::White;
  bool last_ours = false;
};
// Every pending game (for tests and reports).
[[nodiscard]] std::vector<PendingGame> pending_games(store::Book& book, store::Error* error = nullptr);

// A finished game of a tournament PGN: its tags, moves and result.
struct FinishedGame {
  std::vector<std::pair<std::string, std::string>> tags;  // kept, so that probe's fingerprint is the file's
  PlayedGame game;
  store::Result result = store::Result::Unknown;
};
struct ResolveSummary {
  std::size_t resolved = 0;       // pending games matched and removed
  std::size_t learned = 0;        // of those, learned now (the others were learned before)
  std::size_t still_pending = 0;  // pending games no finished game matched
};
// Matches each pending game to a finished game with the same start and the
// same moves (or the same moves but the adapter's last one, which the GUI may
// not have played; or one more move, which the adapter never saw), learns it
// for the side the adapter played and removes the pending record. Games with
// an unknown result resolve nothing. A game `graphbook learn` already learned
// from the same file (same fingerprint) is not learned twice.
[[nodiscard]] std::optional<std::string> resolve_pending_games(store::Book& book,
                                                               std::span<const FinishedGame> finished,
                                                               ResolveSummary* summary = nullptr);

// The same from a tournament's PGN file (`graphbook uci-pending BOOK played.pgn`).
// Returns an error text naming the file when it cannot be read or the book
// cannot be written.
[[nodiscard]] std::optional<std::string> resolve_pending_from_pgn(store::Book& book,
                                                                  const std::string& pgn_path,
                                                                  ResolveSummary* summary = nullptr);

}  // namespace gb::uci_adapter
