// The one-game position of the byte-exact section tests (book_test,
// section_groups_test; docs/FORMAT.md works its bytes out): one game
// reached it, Black to move, at ply 7, and Black (2710, in 2019) won with
// the move 0x0105 played there.
#pragma once

#include "book/store/records.h"

namespace gb::test {

inline store::NodeRecord one_game_node() {
  store::NodeRecord node;
  node.position_hash = 0x89abcdef;
  node.counters.add_game(store::Result::BlackWins, 2710, 2019);
  node.min_ply = 7;
  node.flags = store::kBlackToMove;
  return node;
}

// Its edge: the counters, its one occurrence, its score (2, a win), its
// min_ply and its side are the node's, so that it shares them.
inline store::EdgeRecord one_game_edge() {
  store::EdgeRecord edge;
  edge.child_key = 0xfedcba9876543210ull;
  edge.counters = one_game_node().counters;
  edge.occurrences = 1;
  edge.score = 2;
  edge.min_ply = 7;
  edge.flags = store::kEdgeBlackMoves;
  return edge;
}

inline constexpr std::uint16_t kOneGameMove = 0x0105;

}  // namespace gb::test
