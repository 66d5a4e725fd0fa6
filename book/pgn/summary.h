// Options of a PGN read and the summary it leaves: games read, kept and
// skipped (per reason) and the errors with their locations.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "book/pgn/visitor.h"

namespace gb::pgn {

struct ReadOptions {
  // The one buffer all tokens point into; a token longer than this is cut.
  // Small sizes (down to 16) are allowed for tests of refills.
  std::size_t buffer_size = std::size_t(1) << 20;
  // Keep games with a null move ("--", "Z0"): the move is passed on as Move()
  // and the position passes the turn. When false such games are skipped.
  bool keep_null_move_games = false;
  // On a bad mainline move: skip the game (false), or keep it up to the move before (true).
  bool keep_games_up_to_error = false;
  // How many ReadErrors (and as many ReadWarnings) are stored in the summary (all are counted).
  std::size_t max_stored_errors = 1000;
};

// One problem met while reading: a bad move, a bad FEN, an unsupported variant.
struct ReadError {
  std::string file;
  std::uint64_t line = 0;  // of the move, or of the game's start for game-level problems
  std::uint32_t column = 0;
  std::uint64_t game_number = 0;
  SkipReason reason = SkipReason::None;
  std::string move_text;      // empty for game-level problems
  std::string fen_before;     // the position the move was tried in
  bool in_variation = false;  // a bad move in a variation: the variation is dropped, the game kept
  std::string detail;         // e.g. the FEN error or the variant's name
  // "twic.pgn:12:5: game 3: illegal move 'Nf6' in rnbq.../... w KQkq - 0 1"
  std::string message() const;
};

// A WarningKind met while reading, with its place: the game is kept (or
// skipped) as if the input were whole, and counted apart from the errors.
struct ReadWarning {
  std::string file;
  std::uint64_t line = 0;  // of the last move read (or of the game's start), or of the tag
  std::uint32_t column = 0;
  std::uint64_t game_number = 0;
  WarningKind kind = WarningKind::MissingResult;
  std::string detail;  // e.g. the tag's name
  // "cut.pgn:7:12: game 3: warning: missing result (no 1-0, 0-1, 1/2-1/2 or * ends the game)"
  std::string message() const;
};

struct ReadSummary {
  std::uint64_t games_read = 0;
  std::uint64_t games_kept = 0;
  std::uint64_t games_skipped = 0;  // for a problem in the game (see skipped_by_reason)
  std::uint64_t games_skipped_by_visitor = 0;
  std::array<std::uint64_t, kSkipReasonCount> skipped_by_reason{};
  std::uint64_t plies = 0;                   // mainline plies of the kept games
  std::uint64_t errors = 0;                  // every ReadError, stored or not
  std::vector<ReadError> stored_errors;      // the first ReadOptions::max_stored_errors
  std::vector<std::string> input_errors;     // files that could not be read (fully)
  std::uint64_t warnings = 0;                // every ReadWarning, stored or not; not errors
  std::vector<ReadWarning> stored_warnings;  // the first ReadOptions::max_stored_errors

  // Adds other's counts and errors (for parallel reads of one input).
  void merge(const ReadSummary& other, std::size_t max_stored_errors = 1000);
};

}  // namespace gb::pgn
