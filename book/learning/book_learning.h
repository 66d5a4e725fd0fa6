// `graphbook learn` / `unlearn` / `learn --reset`: learning counters fed by
// played games, kept in the book's learn database apart from the source
// counters (docs/LEARNING.md).
//
// For every move of a game from the start up to where the game leaves the
// book (the first move that is not an edge of the book), the edge and the
// node it is played from get a win, draw or loss of the side that played it,
// last_result and last_played. Each game is fingerprinted (XXH3-128 of the
// White, Black, Date, Round and Event tags, the start key and the moves); the
// learn database holds, under a 17-byte key ('G' + fingerprint), what was
// credited, so a game is learned once and unlearn takes exactly that back out.
//
// A game the UCI adapter learned has tags of its own (it never sees the
// GUI's), so the tournament's PGN of it has another fingerprint. The adapter's
// learn therefore also records the game by its moves alone: 'M' + XXH3-128 of
// the start key, the moves and the result, holding how many such games it
// learned per side. When `learn` meets a game with those moves and that
// result, the sides the adapter learned are taken as learned (one adapter game
// per PGN game, side by side) and only the other selected sides are credited:
// each game counts once per side, however the GUI wrote it (docs/LEARNING.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "book/store/book.h"

namespace gb::learning {

struct LearnOptions {
  std::string player;         // only the moves of the side this player had (White/Black tag), when set
  std::optional<Color> side;  // only this colour's moves, when set
  std::int64_t now = 0;       // Unix seconds stored as last_played
  // The games are the UCI adapter's own: also record each by its moves and
  // result, so that the tournament's PGN of it is recognised.
  bool adapter_games = false;
};

struct LearnSummary {
  std::uint64_t games_read = 0;
  std::uint64_t games_changed = 0;   // learned (or unlearned)
  std::uint64_t already = 0;         // learn: learned before; unlearn: never learned
  std::uint64_t adapter_sides = 0;   // learn: sides of games the UCI adapter had learned, not credited again
  std::uint64_t no_result = 0;       // "*": nothing to learn from
  std::uint64_t not_selected = 0;    // --player / --side matched neither side
  std::uint64_t out_of_book = 0;     // the first move is not in the book
  std::uint64_t moves_credited = 0;  // edge updates
  std::uint64_t games_skipped = 0;   // bad games the PGN reader skipped
  std::vector<std::string> errors;   // the reader's messages (file, line, game)
};

enum class LearnDirection { Learn, Unlearn };

// Why learning stopped, for the subcommand's exit status (README, "Exit
// status"): the games could not be read (the user's input: a PGN file that
// does not open, a temporary PGN that cannot be written) or LMDB failed
// reading or writing the book (damage, a full disk).
struct LearnError {
  enum class Code { Games, Book };
  Code code;
  std::string message;  // names the file
};

// The result of a call without a value: empty on success (store::Status's form).
using LearnStatus = std::optional<LearnError>;

// Reads the whole PGN file, then applies it in one write transaction. An
// unreadable file (Games) or a storage error (Book) is the error.
[[nodiscard]] LearnStatus learn_file(store::Book& book, const std::string& pgn_path,
                                     const LearnOptions& options, LearnDirection direction,
                                     LearnSummary& summary);

// Clears all learning (counters and fingerprints): the number of records
// removed, or nullopt and a Book error.
[[nodiscard]] std::optional<std::uint64_t> reset_learning(store::Book& book, LearnError* error);

}  // namespace gb::learning
