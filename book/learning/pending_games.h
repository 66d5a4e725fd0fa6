// Games played without a result on the board, kept in the book as *pending*
// until a PGN of the tournament gives their result, and the learning of a
// game known only by its moves.
//
// `graphbook uci` records a game as pending when it ends without a result it
// can see (resignation, adjudication, time); `graphbook learn BOOK games.pgn`
// (and `graphbook uci-pending BOOK games.pgn`) resolve the pending games found
// in the file. Learning here is `graphbook learn`'s code (learn_file, for the
// side the adapter played): the game is written as PGN to a temporary file and
// learned, so a book learns the same way from the adapter and from a PGN. Each
// learn is one LMDB write transaction that reads and updates the counters
// inside it, so several processes learning into one book lose no update.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "book/chess/position.h"
#include "book/learning/book_learning.h"
#include "book/pgn/visitor.h"
#include "book/store/book.h"

namespace gb::learning {

// A game as a list of moves from a start position.
struct PlayedGame {
  std::string start_fen;  // empty: the standard start position
  std::vector<Move> moves;
};

// The game's moves in UCI, space-separated ("e2e4 e7e5"), castling written as
// its start position's variant does (to_uci).
std::string uci_moves(const PlayedGame& game);

// Learns game with result for side's moves while it stays in the book, as
// `graphbook learn --side` learns one PGN game with these tags (Result, and
// SetUp/FEN for a set-up start, are set from result and game). The tags make
// the game's fingerprint: a game learned before with the same tags and moves
// is not learned again. The game is recorded as the adapter's own, by its
// moves and result (book_learning.h): `graphbook learn` of the tournament's PGN
// does not credit side's moves of it again. *moves_credited gets the book
// moves credited.
// The error names the book or the temporary file.
[[nodiscard]] LearnStatus learn_played_game(store::Book& book, const PlayedGame& game, Color side,
                                            pgn::Outcome result,
                                            std::vector<std::pair<std::string, std::string>> tags,
                                            std::uint64_t* moves_credited = nullptr);

// A number no other call returns, in this process or another (clock, pid and
// a counter): pending-game ids, and Round tags that make every game distinct.
[[nodiscard]] std::uint64_t unique_game_number();

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
// Every pending game (none when the book has no pending database).
[[nodiscard]] std::vector<PendingGame> pending_games(store::Book& book, store::Error* error = nullptr);

// A finished game of a tournament PGN: its tags, moves and result.
struct FinishedGame {
  std::vector<std::pair<std::string, std::string>> tags;  // kept, so that the fingerprint is the file's
  PlayedGame game;
  pgn::Outcome result = pgn::Outcome::Unknown;
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
// from the same file (same fingerprint) is not learned twice. With no pending
// game the book is not written. A failure comes back naming the book (or the
// temporary PGN).
[[nodiscard]] std::optional<LearnError> resolve_pending_games(store::Book& book,
                                                              std::span<const FinishedGame> finished,
                                                              ResolveSummary* summary = nullptr);

// The same from a tournament's PGN file. Returns an error naming the file
// when it cannot be read (LearnError::Code::Games) or the book cannot be read
// or written (Code::Book).
[[nodiscard]] std::optional<LearnError> resolve_pending_from_pgn(store::Book& book,
                                                                 const std::string& pgn_path,
                                                                 ResolveSummary* summary = nullptr);

}  // namespace gb::learning
