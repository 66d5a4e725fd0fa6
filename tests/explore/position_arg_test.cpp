#include "book/explore/position_arg.h"

#include <catch2/catch.hpp>

#include "book/chess/notation.h"
#include "test_data.h"

using namespace gb;
using namespace gb::explore;

TEST_CASE("Moves resolve in SAN, UCI and with move numbers to the same position", "[explore][position]") {
  ExploreError error;
  auto san = resolve_position(PositionSpec{"", "e4 c5 Nf3", "", 1, {}}, &error);
  auto uci = resolve_position(PositionSpec{"", "e2e4 c7c5 g1f3", "", 1, {}}, &error);
  auto numbered = resolve_position(PositionSpec{"", "1. e4 c5 2.Nf3", "", 1, {}}, &error);
  REQUIRE(san);
  REQUIRE(uci);
  REQUIRE(numbered);
  CHECK(san->position == uci->position);
  CHECK(san->position == numbered->position);
  CHECK(san->line.size() == 4);
  CHECK(san->line.front() == Position().key());
  CHECK(san->line.back() == san->position.key());
  CHECK(san->moves_san == "1. e4 c5 2. Nf3");
}

TEST_CASE("Moves after a FEN are played from it", "[explore][position]") {
  std::string fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
  auto r = resolve_position(PositionSpec{fen, "Nf3", "", 1, {}}, nullptr);
  REQUIRE(r);
  CHECK(r->position.piece_on(SQ_F3) == Piece::WKnight);
  CHECK(r->line.size() == 2);
}

TEST_CASE("A bad FEN or an illegal move is an error that says which", "[explore][position]") {
  ExploreError error;
  CHECK_FALSE(resolve_position(PositionSpec{"not a fen", "", "", 1, {}}, &error));
  CHECK(error.code == ExploreError::Code::Position);
  CHECK(error.message.find("bad FEN") != std::string::npos);
  CHECK_FALSE(resolve_position(PositionSpec{"", "e4 e5 Ke3", "", 1, {}}, &error));
  CHECK(error.message.find("move 3 'Ke3'") != std::string::npos);
  CHECK_FALSE(
      resolve_position(PositionSpec{"", "e4 e5", test::data_path("pgn/small/twic0920.pgn"), 1, {}}, &error));
  CHECK(error.message.find("either --pgn") != std::string::npos);
}

// twic0920.pgn, read by hand: game 1 begins "1. Nf3 g6 2. e4 c5", its last move is ply 70 (oracle).
TEST_CASE("A PGN game and ply give the position after that many plies", "[explore][position]") {
  std::string path = test::data_path("pgn/small/twic0920.pgn");
  ExploreError error;
  auto r = resolve_position(PositionSpec{"", "", path, 1, 3}, &error);
  INFO(error.message);
  REQUIRE(r);
  auto expected = resolve_position(PositionSpec{"", "Nf3 g6 e4", "", 1, {}}, nullptr);
  CHECK(r->position == expected->position);
  CHECK_FALSE(resolve_position(PositionSpec{"", "", path, 1, 500}, &error));
  CHECK(error.message.find("no ply 500") != std::string::npos);
  CHECK_FALSE(resolve_position(PositionSpec{"", "", "/nonexistent.pgn", 1, {}}, &error));
  CHECK(error.message.find("/nonexistent.pgn") != std::string::npos);
}

TEST_CASE("A PGN game without --ply gives its final position", "[explore][position]") {
  // twic0920.pgn.oracle.tsv, game 0: 70 plies, final FEN 8/7k/2pr2p1/p1p2p1p/2Pb1P2/1P4P1/P3r1BP/3R1K2 w - -
  // 0 36
  auto r = resolve_position(PositionSpec{"", "", test::data_path("pgn/small/twic0920.pgn"), 1, {}}, nullptr);
  REQUIRE(r);
  CHECK(r->position.fen() == "8/7k/2pr2p1/p1p2p1p/2Pb1P2/1P4P1/P3r1BP/3R1K2 w - - 0 36");
  CHECK(r->line.size() == 71);
}
