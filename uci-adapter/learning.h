// Online learning into the book: the result of a game the adapter played, and
// games whose result was not on the board, kept as pending until a PGN of the
// tournament resolves them (`graphbook learn BOOK played.pgn` calls
// resolve_pending_games).
//
// Each call is one LMDB write transaction that reads and updates the
// counters inside it, so several adapter processes learning into one book
// serialize on LMDB's writer lock and lose no update. Book::write grows the
// map on MDB_MAP_FULL; a map grown by another process (MDB_MAP_RESIZED) is
// adopted when the transaction begins.
#pragma once

#include <span>
#include <string>
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

// Adds outcome (for side) to the learning counters of every move side played
// that the book has as an edge (store::LearnRecord: wins/draws/losses of the
// mover, last_result, last_played). Returns the number of moves learned.
struct LearnSummary {
  std::size_t moves_learned = 0;
};
[[nodiscard]] store::Status learn_game(store::Book& book, const PlayedGame& game, Color side, Outcome outcome,
                                       LearnSummary* summary = nullptr);

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

// A finished game of a tournament PGN: its moves and result.
struct FinishedGame {
  PlayedGame game;
  store::Result result = store::Result::Unknown;
};
struct ResolveSummary {
  std::size_t resolved = 0;       // pending games matched, learned and removed
  std::size_t still_pending = 0;  // pending games no finished game matched
};
// Matches each pending game to a finished game with the same start and the
// same moves (or the same moves but the adapter's last one, which the GUI may
// not have played; or one more move, which the adapter never saw), learns its
// result for the side the adapter played and removes it. Games with an
// unknown result resolve nothing. One write transaction.
[[nodiscard]] store::Status resolve_pending_games(store::Book& book, std::span<const FinishedGame> finished,
                                                  ResolveSummary* summary = nullptr);

// The same from a tournament's PGN file (what `graphbook learn BOOK played.pgn`
// calls). Returns an error text naming the file when it cannot be read or the
// book cannot be written; games the reader skips are simply not matched.
[[nodiscard]] std::optional<std::string> resolve_pending_from_pgn(store::Book& book, const std::string& pgn_path,
                                                                  ResolveSummary* summary = nullptr);

}  // namespace gb::uci_adapter
