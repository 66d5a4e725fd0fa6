// The position hash stored beside each Polyglot key (docs/FORMAT.md): the low
// 32 bits of XXH3-64 (format 6; 64 before, which `upgrade` and the readers of
// older books cut to these 32). Its value must never change, however it is
// computed, or books read as collisions.
#include "book/store/position_hash.h"

#include <xxhash.h>  // not inlined here: the shared library's XXH3 is the reference

#include <array>
#include <catch2/catch.hpp>
#include <cstdint>

#include "book/chess/notation.h"

using namespace gb;
using namespace gb::store;

namespace {

// The 67 bytes of position_hash.h written out by hand: piece codes (types.h:
// colour * 8 + type, pawn 1 .. king 6) for a1..h8, side to move (0 White),
// castling rights (4 bits, 15 all), en passant square (64 none).
std::array<std::uint8_t, 67> start_position_bytes() {
  std::array<std::uint8_t, 67> b{};
  const std::uint8_t back_rank[8] = {4, 2, 3, 5, 6, 3, 2, 4};  // R N B Q K B N R
  for (int f = 0; f < 8; ++f) {
    b[f] = back_rank[f];
    b[8 + f] = 1;
    b[48 + f] = 8 + 1;
    b[56 + f] = std::uint8_t(8 + back_rank[f]);
  }
  b[64] = 0;
  b[65] = 15;
  b[66] = 64;
  return b;
}

}  // namespace

TEST_CASE("The position hash of the start position is 32 bits of the library's XXH3-64 of its 67 bytes",
          "[store]") {
  auto bytes = start_position_bytes();
  CHECK(position_hash(Position()) == (XXH3_64bits(bytes.data(), bytes.size()) & 0xffffffff));
}

TEST_CASE("The position hash after 1. Nf3 is 32 bits of the library's XXH3-64 of its 67 bytes", "[store]") {
  Position pos;
  UndoInfo undo;
  pos.do_move(*parse_uci(pos, "g1f3"), undo);
  auto bytes = start_position_bytes();
  bytes[6] = 0;   // g1 empty
  bytes[21] = 2;  // a white knight on f3
  bytes[64] = 1;  // Black to move
  CHECK(position_hash(pos) == (XXH3_64bits(bytes.data(), bytes.size()) & 0xffffffff));
  // The hash sees the knight's move (a check that the two cases do not pass by accident).
  auto start = start_position_bytes();
  CHECK(position_hash(pos) != (XXH3_64bits(start.data(), start.size()) & 0xffffffff));
}
