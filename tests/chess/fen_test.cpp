#include <catch2/catch.hpp>
#include <string>

#include "book/chess/position.h"

using namespace gb;

TEST_CASE("The start position round-trips through FEN", "[chess][fen]") {
  CHECK(Position().fen() == Position::kStartFen);
}

TEST_CASE("Invalid FENs name the field and the reason", "[chess][fen]") {
  auto error_of = [](const char* fen) {
    FenError e;
    CHECK_FALSE(Position::from_fen(fen, &e));
    return e;
  };
  CHECK(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1").field ==
        FenError::Field::Placement);
  CHECK(error_of("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").field ==
        FenError::Field::Placement);
  CHECK(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w KQkq - 0 1").reason ==
        "White must have exactly one king");
  CHECK(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1").field ==
        FenError::Field::SideToMove);
  CHECK(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1").field ==
        FenError::Field::Castling);
  CHECK(error_of("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").field ==
        FenError::Field::Castling);
  CHECK(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1").field ==
        FenError::Field::EnPassant);
  CHECK(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1").field ==
        FenError::Field::EnPassant);
  CHECK(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1").field ==
        FenError::Field::HalfmoveClock);
  CHECK(error_of("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1").field == FenError::Field::Position);
  CHECK(error_of("P3k3/8/8/8/8/8/8/4K3 w - - 0 1").field == FenError::Field::Placement);
  CHECK(error_of("").field == FenError::Field::Placement);
}

TEST_CASE("A fullmove number whose ply count overflows an int is refused, the largest one kept",
          "[chess][fen]") {
  // 2 * (fullmove - 1) plies must fit an int: the fuzzer of serve's parameters
  // found the overflow with a FEN pasted into /masters.
  FenError e;
  CHECK_FALSE(Position::from_fen("4k3/8/8/8/8/8/8/4K3 b - - 0 2000000000", &e));
  CHECK(e.field == FenError::Field::FullmoveNumber);
  CHECK_FALSE(Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1000000001", &e));
  auto pos = Position::from_fen("4k3/8/8/8/8/8/8/4K3 b - - 0 1000000000");
  REQUIRE(pos);
  CHECK(pos->fullmove_number() == 1000000000);
  CHECK(pos->game_ply() == 1999999999);
}

TEST_CASE("EPD without counters parses with default counters", "[chess][fen]") {
  auto pos = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
  REQUIRE(pos);
  CHECK(pos->fen() == Position::kStartFen);
}

TEST_CASE("Chess960 castling reads as Shredder-FEN and X-FEN and writes back", "[chess][fen][chess960]") {
  auto shredder = Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
  REQUIRE(shredder);
  CHECK(shredder->chess960());
  CHECK(shredder->castling_rook(WHITE_OO) == SQ_H1);
  CHECK(shredder->castling_rook(WHITE_OOO) == SQ_F1);
  CHECK(shredder->fen(true) == "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
  CHECK(shredder->fen() == "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9");
  auto xfen = Position::from_fen(shredder->fen());
  REQUIRE(xfen);
  CHECK(*xfen == *shredder);
}

TEST_CASE("The en passant square is written only when the capture is legal", "[chess][fen]") {
  // After 1.e4 no black pawn can take: python-chess and GUIs write '-'.
  auto pos = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
  REQUIRE(pos);
  CHECK(pos->fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
  // Pinned capturer: hashed by Polyglot (pseudo-legal) but not written in FEN.
  auto pinned = Position::from_fen("8/8/8/K2pP2q/8/8/8/7k w - d6 0 2");
  REQUIRE(pinned);
  CHECK(pinned->ep_square() == SQ_D6);
  CHECK(pinned->fen() == "8/8/8/K2pP2q/8/8/8/7k w - - 0 2");
}

TEST_CASE("piece_from_char reads exactly the twelve FEN letters", "[chess][fen]") {
  // Expected from the FEN standard's letters, not from kPieceChars.
  const std::string white = "PNBRQK", black = "pnbrqk";
  for (int t = 0; t < 6; ++t) {
    CHECK(piece_from_char(white[t]) == make_piece(Color::White, PieceType(t + 1)));
    CHECK(piece_from_char(black[t]) == make_piece(Color::Black, PieceType(t + 1)));
  }
  for (char c : std::string(" _.Aa1xX\0", 9)) CHECK(piece_from_char(c) == Piece::None);
}
