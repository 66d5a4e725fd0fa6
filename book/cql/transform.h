// The transform filters (flip, flipcolor, rotate90, shift, ...) are expanded
// when the query is parsed: each transformation rewrites a copy of the target
// filter's square designators, directions and colour-dependent filters.
#pragma once

#include <string>
#include <vector>

#include "book/cql/ast.h"

namespace gb::cql {

struct Transform {
  int dihedral = 0;  // index into the eight symmetries of the square (0 = identity)
  bool color = false;
  int dx = 0, dy = 0;
  int rotate45 = 0;  // eighths of a turn applied to directions
  bool restrict_shift = false;
  std::string name;  // currenttransform text; empty for the identity
};

// The transformations a transform keyword stands for, identity first
// (reversecolor has none). Returns false for an unknown keyword.
bool transforms_of(std::string_view keyword, std::vector<Transform>& out);

// Rewrites n in place; returns false when the transformation is to be elided
// (a shift moves a square designator entirely off the board, or with
// restrict, any of its squares).
[[nodiscard]] bool apply_transform(Node& n, const Transform& t);

}  // namespace gb::cql
