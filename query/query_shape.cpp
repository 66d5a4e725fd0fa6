#include "query/query_shape.h"

#include <algorithm>
#include <array>

namespace gb::query {

namespace {

using cql::Op;

// Filters that read the ancestors of the node (or the whole game).
constexpr std::array kLineOps = {Op::Initial,
                                 Op::Parent,
                                 Op::PositionById,
                                 Op::InitialPosition,
                                 Op::VirtualMainline,
                                 Op::Distance,
                                 Op::Lca,
                                 Op::PieceIter,
                                 Op::PieceAssign,
                                 Op::PieceId,
                                 Op::PromotedPieces,
                                 Op::ConsecutiveMoves};
// Filters that search the game both ways from the node.
constexpr std::array kSearchOps = {Op::Echo, Op::Find, Op::Line};

template <std::size_t N>
bool one_of(Op op, const std::array<Op, N>& ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

struct Walk {
  QueryShape shape;
  int steps_down = 0;  // filters that move to a child position (child, move with a ':' body)
  bool speculative = false, book_stats = false;

  void visit(const cql::Node& n) {
    if (one_of(n.op, kLineOps)) shape.line = true;
    if (one_of(n.op, kSearchOps)) shape.line = shape.children = shape.descendants = true;
    if (n.op == Op::Child || n.op == Op::Terminal) shape.children = true;
    if (n.op == Op::Child) ++steps_down;
    if (n.op == Op::BookNodeStat || n.op == Op::BookMoveStat) book_stats = true;
    if (n.op == Op::Move) {
      if (n.move.speculative >= 0) speculative = true;
      if (n.move.mode == cql::MoveSpec::Mode::Previous) shape.line = true;
      if (n.move.mode == cql::MoveSpec::Mode::Played) {
        shape.children = true;
        if (n.move.speculative >= 0) ++steps_down;
      }
    }
    for (const auto& a : n.args) visit(*a);
  }
};

}  // namespace

QueryShape shape_of(const cql::Program& program) {
  Walk w;
  if (program.root) w.visit(*program.root);
  // Two steps down may reach a grandchild (child: child, move ... : move ...).
  if (w.steps_down >= 2) w.shape.descendants = true;
  // A speculative move that is a book move reads that child's counts.
  if (w.speculative && w.book_stats) w.shape.children = true;
  return w.shape;
}

}  // namespace gb::query
