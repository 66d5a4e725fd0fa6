// The POSITION argument of probe, pick and tree: a FEN, a list of moves from
// the start (SAN or UCI, move numbers allowed), or a ply of a game in a PGN
// file. Resolved to the position and the keys of the line that led to it (for
// opening names, which are inherited along the line).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/chess/position.h"
#include "book/explore/explore_error.h"

namespace gb::explore {

struct PositionSpec {
  std::string fen;         // --fen
  std::string moves;       // --moves "e4 e5 Nf3" (from fen when both are given)
  std::string pgn_file;    // --pgn
  std::uint64_t game = 1;  // --game, 1-based
  std::optional<int> ply;  // --ply: plies into the game; default its end
};

struct ResolvedPosition {
  Position position;
  std::vector<Key> line;  // keys from the first position to this one (inclusive)
  std::string moves_san;  // the moves played to get here, in SAN ("1. e4 e5 2. Nf3")
};

// A movetext token without its move number: "12." / "12..." / "12.e4" give
// "" / "" / "e4"; any other token comes back unchanged.
std::string_view strip_move_number(std::string_view token);

// The position, or nullopt and an ExploreError::Code::Position whose message
// the user reads (bad FEN, a move that is not legal, a game or ply that does
// not exist; exit status 2). error may be nullptr.
[[nodiscard]] std::optional<ResolvedPosition> resolve_position(const PositionSpec& spec, ExploreError* error);

}  // namespace gb::explore
