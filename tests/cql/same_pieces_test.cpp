// same_pieces (the positional '&' that echo compares positions with) against
// the square-by-square reading of the chess core's board.
#include <catch2/catch.hpp>

#include "book/cql/board.h"
#include "query_helpers.h"

using namespace gb;
using namespace gb::cql;

TEST_CASE("same_pieces is the set of squares where two positions hold the same piece or none",
          "[cql][board]") {
  // Captures, castling, a promotion and en passant, so that every kind of square change happens.
  Game g = test::game_from({"e4",  "d5",  "exd5", "Qxd5", "Nc3",  "Qa5",  "d4",  "c6",
                            "Nf3", "Bg4", "Bc4",  "e6",   "O-O",  "Nf6",  "h3",  "Bh5",
                            "g4",  "Bg6", "Ne5",  "Nbd7", "Nxg6", "hxg6", "Re1", "O-O-O"});
  int pairs = 0, full = 0;
  for (const GameNode& x : g.nodes)
    for (const GameNode& y : g.nodes) {
      Bitboard expected = 0;
      for (int sq = 0; sq < 64; ++sq)
        if (x.position.piece_on(Square(sq)) == y.position.piece_on(Square(sq)))
          expected |= square_bb(Square(sq));
      CHECK(same_pieces(x.position, y.position) == expected);
      ++pairs;
      if (expected == ~Bitboard(0)) ++full;
    }
  CHECK(pairs == 25 * 25);
  CHECK(full == 25);  // each position with itself only: no placement repeats in this game
}
