// The reader on small hand-written PGN strings: one edge case per test.
#include <catch2/catch.hpp>

#include "pgn_test_helpers.h"

using namespace gb;
using namespace gb::pgn;
using gb::pgn::test::read_text;
using gb::pgn::test::tiny_buffer;
using Events = std::vector<std::string>;

TEST_CASE("A game is read as tags, moves and a result, in order", "[pgn]") {
  auto r = read_text("[Event \"Test\"]\n[White \"A\"]\n\n1. e4 e5 2. Nf3 1-0\n");
  CHECK(r.visitor.events == Events{"game 1 line 1", "tag Event=Test", "tag White=A", "move 0 e4 e2e4",
                                   "move 0 e5 e7e5", "move 0 Nf3 g1f3", "outcome 1-0", "end 1-0 plies 3"});
  CHECK(r.summary.games_read == 1);
  CHECK(r.summary.games_kept == 1);
  CHECK(r.summary.plies == 3);
}

TEST_CASE("A byte-order mark before the first tag is ignored", "[pgn]") {
  auto r = read_text("\xEF\xBB\xBF[Event \"BOM\"]\n\n1. d4 *\n");
  CHECK(r.visitor.only("tag") == Events{"tag Event=BOM"});
  CHECK(r.visitor.only("move") == Events{"move 0 d4 d2d4"});
}

TEST_CASE("CRLF line ends read like LF", "[pgn]") {
  auto r = read_text("[Event \"CRLF\"]\r\n[Result \"0-1\"]\r\n\r\n1. e4 e5\r\n2. Qh5 Nc6 0-1\r\n");
  CHECK(r.visitor.only("tag") == Events{"tag Event=CRLF", "tag Result=0-1"});
  CHECK(r.visitor.only("move").size() == 4);
  CHECK(r.visitor.only("end") == Events{"end 0-1 plies 4"});
}

TEST_CASE("Percent escape lines are skipped in tags and movetext", "[pgn]") {
  auto r = read_text(
      "% escape before the game\n[Event \"E\"]\n%escape in tags\n\n1. e4\n% escape e5 in movetext\ne5 *\n");
  CHECK(r.visitor.only("move") == Events{"move 0 e4 e2e4", "move 0 e5 e7e5"});
}

TEST_CASE("Semicolon and brace comments reach the visitor without their delimiters", "[pgn]") {
  auto r = read_text("1. e4 ; rest of line\ne5 {a brace\ncomment} 2. Nf3 *");
  CHECK(r.visitor.only("comment") == Events{"comment  rest of line", "comment a brace\ncomment"});
  CHECK(r.visitor.only("move").size() == 3);
}

TEST_CASE("NAGs and move suffix glyphs become NAG numbers", "[pgn]") {
  auto r = read_text("1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! 4. Ba4 $14 $201 *");
  CHECK(r.visitor.only("nag") ==
        Events{"nag 1", "nag 2", "nag 3", "nag 4", "nag 5", "nag 6", "nag 14", "nag 201"});
  CHECK(r.visitor.only("move").size() == 7);
}

TEST_CASE("Move numbers with dots, black's ellipsis and no space are read", "[pgn]") {
  auto r = read_text("1.e4 {c} 1... e5 2.Nf3 2...Nc6 3 . Bb5 *");
  CHECK(r.visitor.only("move") ==
        Events{"move 0 e4 e2e4", "move 0 e5 e7e5", "move 0 Nf3 g1f3", "move 0 Nc6 b8c6", "move 0 Bb5 f1b5"});
}

TEST_CASE("Variations are decoded from the position before the move they replace", "[pgn]") {
  auto r = read_text("1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) 1... e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3 *");
  CHECK(r.visitor.events == Events{"game 1 line 1",
                                   "move 0 e4 e2e4",
                                   "(",
                                   "move 1 d4 d2d4",
                                   "move 1 d5 d7d5",
                                   "(",
                                   "move 2 Nf6 g8f6",
                                   "move 2 c4 c2c4",
                                   ")",
                                   "move 1 c4 c2c4",
                                   ")",
                                   "move 0 e5 e7e5",
                                   "(",
                                   "move 1 c5 c7c5",
                                   "move 1 Nf3 g1f3",
                                   "(",
                                   "move 2 c3 c2c3",
                                   ")",
                                   ")",
                                   "move 0 Nf3 g1f3",
                                   "outcome *",
                                   "end * plies 3"});
}

TEST_CASE("A skipped variation is passed over, nested brackets and comments included", "[pgn]") {
  auto r = read_text("1. e4 (1. d4 {a ) in a comment} (1. c4 ; ) here too\n) d5) e5 *", {}, false);
  CHECK(r.visitor.only("move") == Events{"move 0 e4 e2e4", "move 0 e5 e7e5"});
  CHECK(r.visitor.only("comment").empty());
}

TEST_CASE("An illegal move in a variation drops that variation and keeps the game", "[pgn]") {
  auto r = read_text("1. e4 (1. Ke2 d5) e5 2. Nf3 *");
  CHECK(r.visitor.only("move") == Events{"move 0 e4 e2e4", "move 0 e5 e7e5", "move 0 Nf3 g1f3"});
  CHECK(r.summary.games_kept == 1);
  REQUIRE(r.summary.errors == 1);
  CHECK(r.summary.stored_errors[0].in_variation);
  CHECK(r.summary.stored_errors[0].move_text == "Ke2");
}

TEST_CASE("An illegal move reports file, line, column, game, move text and FEN", "[pgn]") {
  auto r = read_text(
      "[Event \"1\"]\n\n1. e4 *\n\n[Event \"2\"]\n\n1. e4 e5\n2. Ke3 Nc6 *\n\n[Event \"3\"]\n\n1. d4 *\n");
  CHECK(r.summary.games_read == 3);
  CHECK(r.summary.games_kept == 2);
  CHECK(r.summary.games_skipped == 1);
  CHECK(r.summary.skipped_by_reason[int(SkipReason::IllegalMove)] == 1);
  REQUIRE(r.summary.stored_errors.size() == 1);
  const ReadError& e = r.summary.stored_errors[0];
  CHECK(e.file == "test.pgn");
  CHECK(e.line == 8);
  CHECK(e.column == 4);
  CHECK(e.game_number == 2);
  CHECK(e.move_text == "Ke3");
  CHECK(e.fen_before == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
  CHECK(e.message() ==
        "test.pgn:8:4: game 2: illegal move 'Ke3' in "
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
  CHECK(r.visitor.only("end") ==
        Events{"end * plies 1", "end * plies 2 skipped illegal move error", "end * plies 1"});
}

TEST_CASE("With keep_games_up_to_error a game is kept up to its bad move", "[pgn]") {
  ReadOptions o;
  o.keep_games_up_to_error = true;
  auto r = read_text("1. e4 e5 2. Nf3 Nxe4 3. d4 1-0", o);
  CHECK(r.summary.games_kept == 1);
  CHECK(r.summary.games_skipped == 0);
  CHECK(r.summary.errors == 1);
  CHECK(r.visitor.only("end") == Events{"end 1-0 plies 3 error"});
}

TEST_CASE("Unparseable and ambiguous moves are told apart", "[pgn]") {
  auto r = read_text("1. e4 e5 2. Xyz *\n\n[FEN \"4k3/8/8/8/8/8/8/R4RK1 w - - 0 1\"]\n\n1. Rd1 *");
  CHECK(r.summary.skipped_by_reason[int(SkipReason::UnparseableMove)] == 1);
  CHECK(r.summary.skipped_by_reason[int(SkipReason::AmbiguousMove)] == 1);
}

TEST_CASE("Null moves skip the game by default and are kept on request", "[pgn]") {
  std::string pgn = "1. e4 -- 2. d4 Z0 3. c4 *";
  auto skipped = read_text(pgn);
  CHECK(skipped.summary.games_skipped == 1);
  CHECK(skipped.summary.skipped_by_reason[int(SkipReason::NullMove)] == 1);
  ReadOptions o;
  o.keep_null_move_games = true;
  auto kept = read_text(pgn, o);
  CHECK(kept.summary.games_kept == 1);
  CHECK(kept.visitor.only("move") ==
        Events{"move 0 e4 e2e4", "move 0 -- null", "move 0 d4 d2d4", "move 0 Z0 null", "move 0 c4 c2c4"});
  CHECK(kept.visitor.final_fens[0] == "rnbqkbnr/pppppppp/8/8/2PPP3/8/PP3PPP/RNBQKBNR b KQkq - 0 3");
}

TEST_CASE("A game from a FEN set-up starts from that position", "[pgn]") {
  auto r = read_text("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 *");
  CHECK(r.visitor.final_fens[0] == "8/3k4/8/8/4P3/8/8/4K3 w - - 1 2");
}

TEST_CASE("A bad FEN tag skips the game with the FEN error", "[pgn]") {
  auto r = read_text("[FEN \"not a fen\"]\n\n1. e4 *\n\n[Event \"next\"]\n\n1. d4 *");
  CHECK(r.summary.games_read == 2);
  CHECK(r.summary.skipped_by_reason[int(SkipReason::BadFen)] == 1);
  CHECK(r.summary.games_kept == 1);
}

TEST_CASE("Chess960 games castle king-takes-rook from the FEN", "[pgn]") {
  auto r = read_text(
      "[Variant \"Chess960\"]\n[FEN \"1rk3r1/pppppppp/8/8/8/8/PPPPPPPP/1RK3R1 w GBgb - 0 1\"]\n\n"
      "1. O-O O-O-O *\n");
  CHECK(r.summary.games_kept == 1);
  CHECK(r.visitor.only("move") == Events{"move 0 O-O c1g1", "move 0 O-O-O c8b8"});
  CHECK(r.visitor.final_fens[0] == "2kr2r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 w - - 2 2");
}

TEST_CASE("Other variants are skipped with a message naming the variant", "[pgn]") {
  auto r = read_text("[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. P@e4 *\n\n1. e4 *");
  CHECK(r.summary.games_read == 2);
  CHECK(r.summary.skipped_by_reason[int(SkipReason::UnsupportedVariant)] == 1);
  REQUIRE(r.summary.stored_errors.size() == 1);
  CHECK(r.summary.stored_errors[0].message() ==
        "test.pgn:1: game 1: unsupported variant: variant 'Crazyhouse' is not supported");
}

TEST_CASE("Games without moves are games", "[pgn]") {
  auto r = read_text(
      "[Event \"a\"]\n[Result \"1-0\"]\n\n1-0\n\n[Event \"b\"]\n[Result \"*\"]\n\n[Event \"c\"]\n\n*\n");
  CHECK(r.summary.games_read == 3);
  CHECK(r.visitor.only("end") == Events{"end 1-0 plies 0", "end * plies 0", "end * plies 0"});
}

TEST_CASE("The termination token wins over the Result tag, which wins over nothing", "[pgn]") {
  auto r =
      read_text("[Result \"1-0\"]\n\n1. e4 0-1\n\n[Result \"1/2-1/2\"]\n\n1. e4\n\n[Event \"x\"]\n\n1. e4\n");
  CHECK(r.visitor.only("end") == Events{"end 0-1 plies 1", "end 1/2-1/2 plies 1", "end * plies 1"});
}

TEST_CASE("Games without tags are separated by their termination tokens", "[pgn]") {
  auto r = read_text("1. e4 e5 1-0\n1. d4 d5 0-1 {trailing comment}\n1. c4 *");
  CHECK(r.summary.games_read == 3);
  CHECK(r.visitor.only("end") == Events{"end 1-0 plies 2", "end 0-1 plies 2", "end * plies 1"});
}

TEST_CASE("Tags only games followed by the next game's tags are separate games", "[pgn]") {
  auto r = read_text("[Event \"a\"]\n[Round \"1\"]\n\n[Event \"b\"]\n[Round \"2\"]\n[Event \"c\"]\n");
  CHECK(r.summary.games_read == 3);
}

TEST_CASE("A blank line inside the tags does not end the tag section", "[pgn]") {
  auto r = read_text("[Event \"a\"]\n\n[White \"w\"]\n\n1. e4 *");
  CHECK(r.summary.games_read == 1);
  CHECK(r.visitor.only("tag") == Events{"tag Event=a", "tag White=w"});
}

TEST_CASE("Escaped quotes, brackets and unescaped quotes in tag values survive", "[pgn]") {
  auto r = read_text("[Event \"say \\\"hi\\\" \\\\ \"]\n[Site \"[x]\"]\n[Black \"a \"b\" c\"]\n\n*");
  CHECK(r.visitor.only("tag") == Events{"tag Event=say \"hi\" \\ ", "tag Site=[x]", "tag Black=a \"b\" c"});
}

TEST_CASE("An unterminated comment or variation ends at the end of the input", "[pgn]") {
  auto a = read_text("1. e4 {never closed");
  CHECK(a.summary.games_read == 1);
  auto b = read_text("1. e4 (1. d4 d5");
  CHECK(b.summary.games_read == 1);
  CHECK(b.visitor.only("end") == Events{"end * plies 1"});
}

TEST_CASE("Castling written with zeros, UCI moves and long algebraic are decoded", "[pgn]") {
  auto r = read_text("1. e2e4 e7e5 2. Ng1-f3 Nb8c6 3. Bb5 Nf6 4. 0-0 Be7 *");
  CHECK(r.summary.games_kept == 1);
  CHECK(r.visitor.only("move").back() == "move 0 Be7 f8e7");
  CHECK(r.visitor.only("move")[6] == "move 0 0-0 e1g1");
}

TEST_CASE("A visitor that skips the movetext reads headers only", "[pgn]") {
  struct HeadersOnly : VisitorBase {
    int tags = 0, moves = 0;
    void tag(std::string_view, std::string_view) { ++tags; }
    Control begin_movetext(const Position&) { return Control::Skip; }
    Control move(const MoveEvent&) {
      ++moves;
      return Control::Continue;
    }
  } v;
  PgnReader reader(ByteSource::from_memory("[Event \"a\"]\n\n1. e4 Xx9 *\n\n[Event \"b\"]\n\n1. d4 *\n"));
  reader.read_all(v);
  CHECK(v.tags == 2);
  CHECK(v.moves == 0);
  CHECK(reader.summary().games_read == 2);
  CHECK(reader.summary().games_skipped_by_visitor == 2);
  CHECK(reader.summary().errors == 0);
}

TEST_CASE("Tokens straddling buffer refills read the same with tiny buffers", "[pgn]") {
  std::string pgn =
      "[Event \"Tiny buffers\"]\r\n[Site \"x\"]\r\n\r\n"
      "1. e4 {a comment longer than the buffer, spanning refills} e5 "
      "2. Nf3 (2. Nc3 Nf6 (2... Nc6) 3. f4) 2... Nc6 $14 3. Bb5!? a6 ; line comment\r\n"
      "4. Ba4 Nf6 5. O-O Be7 1/2-1/2\r\n"
      "\r\n[Event \"second\"]\r\n\r\n1. d4 d5 *\r\n";
  auto reference = read_text(pgn);
  for (std::size_t size : {16, 17, 19, 23, 31, 64, 100}) {
    INFO("buffer size " << size);
    auto r = read_text(pgn, tiny_buffer(size));
    CHECK(r.visitor.only("move") == reference.visitor.only("move"));
    CHECK(r.visitor.only("nag") == reference.visitor.only("nag"));
    CHECK(r.visitor.only("end") == reference.visitor.only("end"));
    CHECK(r.visitor.final_fens == reference.visitor.final_fens);
    CHECK(r.summary.games_read == 2);
    CHECK(r.summary.errors == 0);
  }
  // Comments longer than the buffer come in pieces that join to the whole text.
  auto r = read_text(pgn, tiny_buffer(16));
  std::string joined;
  for (const auto& c : r.visitor.only("comment")) joined += c.substr(8);
  std::string whole;
  for (const auto& c : reference.visitor.only("comment")) whole += c.substr(8);
  CHECK(joined == whole);
}

TEST_CASE("Error locations are the same with tiny buffers", "[pgn]") {
  std::string pgn = "[Event \"e\"]\n\n1. e4 e5 2. Nf3 Nc6\n3. Bb5 a6 4. Bxf7 *\n";
  for (std::size_t size : {16, 20, 1 << 20}) {
    auto r = read_text(pgn, tiny_buffer(size));
    REQUIRE(r.summary.stored_errors.size() == 1);
    CHECK(r.summary.stored_errors[0].line == 4);
    CHECK(r.summary.stored_errors[0].column == 14);
  }
}

TEST_CASE("Garbage never stops the reader: every byte value is survived", "[pgn]") {
  std::string junk;
  for (int i = 0; i < 256; ++i) junk += char(i);
  junk += "((((( {{{ ))) ]]] [[[ $$$ !!! ??? 1-0 1/2 0-1 * -- Z0 \n[Event \"after\"]\n\n1. e4 *";
  for (std::size_t size : {16, 1 << 20}) {
    auto r = read_text(junk, tiny_buffer(size));
    CHECK(r.summary.games_read >= 1);
    CHECK(r.visitor.only("move").back() == "move 0 e4 e2e4");
  }
}

TEST_CASE("The draw written 0.5-0.5 ends a game like 1/2-1/2, not as a move number and a bad move", "[pgn]") {
  for (std::size_t buffer : {std::size_t(16), std::size_t(1) << 20}) {
    auto r = read_text("[Event \"A\"]\n\n1. e4 e5 0.5-0.5\n\n[Event \"B\"]\n\n1. d4 d5 1-0\n",
                       tiny_buffer(buffer));
    CHECK(r.visitor.only("end") == Events{"end 1/2-1/2 plies 2", "end 1-0 plies 2"});
    CHECK(r.summary.games_read == 2);
    CHECK(r.summary.errors == 0);
  }
}
