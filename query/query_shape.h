// What of the book graph a query looks at besides the node itself, read from
// its filter tree, so that `graphbook query` builds no more of the window it
// evaluates a node in than the query can see: a board-only or statistics
// query gets the node alone, `move` and `child` its book moves, the rest the
// shortest line from the root and the book edges below.
#pragma once

#include "book/cql/parser.h"

namespace gb::query {

struct QueryShape {
  bool line = false;         // the ancestors: parent, initial, <--, echo, piece identity...
  bool children = false;     // the node's book moves: move, child, terminal
  bool descendants = false;  // book edges below the children: find, line -->, nested child/move
};

QueryShape shape_of(const cql::Program& program);

}  // namespace gb::query
