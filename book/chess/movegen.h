// Legal move generation. The caller owns the storage: a MoveList lives on the
// stack and holds every legal move of any position (at most 218).
#pragma once

#include <cstddef>

#include "book/chess/position.h"

namespace gb {

class MoveList {
 public:
  static constexpr std::size_t kCapacity = 256;
  const Move* begin() const { return moves_; }
  const Move* end() const { return last_; }
  std::size_t size() const { return std::size_t(last_ - moves_); }
  bool empty() const { return last_ == moves_; }
  const Move& operator[](std::size_t i) const { return moves_[i]; }
  bool contains(Move m) const;
  void push_back(Move m) { *last_++ = m; }

 private:
  Move moves_[kCapacity];
  Move* last_ = moves_;
};

// Appends every legal move of pos to list.
void generate_legal(const Position& pos, MoveList& list);

// The legal castling move to the king's side (king_side) or the queen's,
// Move() when there is none: what generate_legal would list, without the rest
// (SAN's O-O is decoded at every castle of every game a build reads).
Move castling_move(const Position& pos, bool king_side);

// The number of legal moves, without storing them (perft's bulk count).
int count_legal(const Position& pos);

// Leaf nodes at depth; depth 0 is 1.
std::uint64_t perft(Position& pos, int depth);

}  // namespace gb
