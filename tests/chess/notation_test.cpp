#include "book/chess/notation.h"

#include <catch2/catch.hpp>

#include "book/chess/movegen.h"

using namespace gb;

namespace {
Position play(std::initializer_list<const char*> sans, Position pos = Position()) {
  for (const char* san : sans) {
    auto r = parse_san(pos, san);
    INFO(san << " in " << pos.fen());
    REQUIRE(r.ok());
    UndoInfo undo;
    pos.do_move(r.move, undo);
  }
  return pos;
}
}  // namespace

TEST_CASE("SAN parses every form found in real files", "[chess][san]") {
  Position start;
  for (const char* text : {"e4", "e2e4", "e2-e4", "e4!", "e4!?", "Pe4"}) {
    auto r = parse_san(start, text);
    INFO(text);
    REQUIRE(r.ok());
    CHECK(to_uci(r.move, false) == "e2e4");
  }
  for (const char* text : {"Nf3", "Ngf3", "Ng1f3", "Ng1-f3", "g1f3"}) {
    INFO(text);
    CHECK(to_uci(parse_san(start, text).move, false) == "g1f3");
  }
  CHECK(parse_san(start, "e5").error == MoveError::Illegal);
  CHECK(parse_san(start, "Zz9").error == MoveError::Syntax);
  CHECK(parse_san(start, "").error == MoveError::Syntax);
}

TEST_CASE("SAN castling reads O-O, 0-0 and UCI king moves", "[chess][san]") {
  Position pos = play({"e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"});
  for (const char* text : {"O-O", "0-0", "O-O+", "e1g1", "e1h1"}) {
    INFO(text);
    auto r = parse_san(pos, text);
    REQUIRE(r.ok());
    CHECK(r.move.kind() == Move::Kind::Castling);
    CHECK(to_san(pos, r.move) == "O-O");
    CHECK(to_uci(r.move, false) == "e1g1");
    CHECK(to_uci(r.move, true) == "e1h1");
  }
}

TEST_CASE("SAN promotions with and without the equals sign", "[chess][san]") {
  auto pos = Position::from_fen("k7/4P3/8/8/8/8/8/4K3 w - - 0 1");
  REQUIRE(pos);
  for (const char* text : {"e8=Q", "e8Q", "e8=Q+", "e7e8q", "e8(Q)"}) {
    INFO(text);
    auto r = parse_san(*pos, text);
    REQUIRE(r.ok());
    CHECK(r.move.promotion() == PieceType::Queen);
    CHECK(to_san(*pos, r.move) == "e8=Q+");
  }
  CHECK(to_uci(parse_san(*pos, "e8=N").move, false) == "e7e8n");
  CHECK(parse_san(*pos, "e8=b").move.promotion() == PieceType::Bishop);
  CHECK(parse_san(*pos, "e8").error == MoveError::Illegal);
}

TEST_CASE("SAN emits minimal disambiguation", "[chess][san]") {
  // Knights on b1 and f1 (file), rooks on a1 and a5 (rank), queens on three corners (square).
  auto pos = Position::from_fen("7k/8/8/R7/8/8/8/RN1K1N2 w - - 0 1");
  REQUIRE(pos);
  CHECK(to_san(*pos, parse_san(*pos, "Nbd2").move) == "Nbd2");
  CHECK(to_san(*pos, parse_san(*pos, "R1a3").move) == "R1a3");
  CHECK(parse_san(*pos, "Nd2").error == MoveError::Ambiguous);
  auto queens = Position::from_fen("1k6/8/8/8/Q2Q4/8/8/Q6K w - - 0 1");
  REQUIRE(queens);
  auto r = parse_san(*queens, "Qa4d1");
  REQUIRE(r.ok());
  CHECK(to_san(*queens, r.move) == "Qa4d1");
}

TEST_CASE("SAN marks check and mate", "[chess][san]") {
  Position pos = play({"f3", "e5", "g4"});
  auto mate = parse_san(pos, "Qh4");
  REQUIRE(mate.ok());
  CHECK(to_san(pos, mate.move) == "Qh4#");
}

TEST_CASE("Every legal move's SAN parses back to the same move", "[chess][san]") {
  for (const char* fen : {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                          "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                          "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"}) {
    auto pos = Position::from_fen(fen);
    REQUIRE(pos);
    MoveList moves;
    generate_legal(*pos, moves);
    for (Move m : moves) {
      std::string san = to_san(*pos, m);
      INFO(fen << " " << san);
      CHECK(parse_san(*pos, san).move == m);
      CHECK(parse_uci(*pos, to_uci(m, pos->chess960())) == m);
    }
  }
}
