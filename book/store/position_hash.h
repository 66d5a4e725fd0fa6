// The second, independent hash of a position stored beside its Polyglot key:
// the low 32 bits of XXH3-64 of the board, side to move, castling rights and
// en passant square. Two positions with one Polyglot key and different
// position hashes are a key collision (docs/FORMAT.md). 32 bits miss one
// collision in 4 billion, and Polyglot keys collide about once in 10^19
// pairs of positions; 64 cost every node 4 bytes more.
#pragma once

#include <cstdint>

#include "book/chess/position.h"

namespace gb::store {

std::uint64_t position_hash(const Position& pos);

}  // namespace gb::store
