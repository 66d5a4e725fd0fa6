// The positions of a book below a position, as positions (not only keys):
// what `graphbook analyse` hands its engines. The book stores keys; a
// position's FEN is recovered by playing the book's moves from the root.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "book/chess/position.h"
#include "book/store/book.h"

namespace gb::analysis {

struct WalkOptions {
  int plies = 0;                // how far below the root (0: no limit)
  std::uint32_t min_games = 1;  // a position needs this many games to be listed and walked through
};

// The positions reached from root through the book's moves, breadth first
// (the root first, then by distance; each key once, at its first reach),
// that are stored nodes with at least min_games games. Positions only
// reached through a node below min_games are not listed. nullopt with
// *error set when LMDB fails.
[[nodiscard]] std::optional<std::vector<Position>> positions_below(store::Book& book, const Position& root,
                                                                   const WalkOptions& options,
                                                                   store::Error* error);

}  // namespace gb::analysis
