// The position after a line of SAN moves from the start, for tests.
#pragma once

#include <initializer_list>

#include "book/chess/notation.h"

namespace gb::test {

inline Position play(std::initializer_list<const char*> sans) {
  Position pos;
  for (const char* san : sans) {
    UndoInfo undo;
    pos.do_move(parse_san(pos, san).move, undo);
  }
  return pos;
}

}  // namespace gb::test
