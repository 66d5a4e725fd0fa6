// The second, independent hash of a position stored beside its Polyglot key:
// XXH3-64 of the board, side to move, castling rights and en passant square.
// Two positions with one Polyglot key and different position hashes are a key
// collision (docs/FORMAT.md).
#pragma once

#include <cstdint>

#include "book/chess/position.h"

namespace gb::store {

std::uint64_t position_hash(const Position& pos);

}  // namespace gb::store
