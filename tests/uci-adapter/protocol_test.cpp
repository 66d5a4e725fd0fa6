// The protocol layer on strings; the expected readings follow the UCI text
// ("Description of the universal chess interface (UCI) April 2006").
#include "uci-adapter/protocol.h"

#include <catch2/catch.hpp>

using namespace gb::uci_adapter;

TEST_CASE("GUI commands are recognised by their first word, whatever the spacing", "[uci-adapter]") {
  CHECK(command_of("uci") == GuiCommand::Uci);
  CHECK(command_of("  isready  ") == GuiCommand::IsReady);
  CHECK(command_of("\tgo wtime 1000") == GuiCommand::Go);
  CHECK(command_of("ponderhit") == GuiCommand::PonderHit);
  CHECK(command_of("ucinewgame") == GuiCommand::UciNewGame);
  CHECK(command_of("gogo") == GuiCommand::Unknown);
  CHECK(command_of("") == GuiCommand::Unknown);
}

TEST_CASE("Setoption names and values keep their inner spaces, and <empty> is the empty string",
          "[uci-adapter]") {
  auto a = parse_setoption("setoption name Clear Hash");
  REQUIRE(a);
  CHECK(a->name == "Clear Hash");
  CHECK(a->value.empty());
  auto b = parse_setoption("setoption  name SyzygyPath value /a b/c ");
  REQUIRE(b);
  CHECK(b->name == "SyzygyPath");
  CHECK(b->value == "/a b/c");
  auto c = parse_setoption("setoption name BookFilter value <empty>");
  REQUIRE(c);
  CHECK(c->value.empty());
  CHECK_FALSE(parse_setoption("setoption value 3"));
}

TEST_CASE("Position commands give the FEN and the moves", "[uci-adapter]") {
  auto a = parse_position("position startpos moves e2e4 e7e5");
  REQUIRE(a);
  CHECK(a->fen.empty());
  CHECK(a->moves == std::vector<std::string>{"e2e4", "e7e5"});
  auto b = parse_position("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 moves a1a2");
  REQUIRE(b);
  CHECK(b->fen == "8/8/8/8/8/8/8/K1k5 w - - 0 1");
  CHECK(b->moves == std::vector<std::string>{"a1a2"});
  CHECK_FALSE(parse_position("position"));
  CHECK_FALSE(parse_position("position sideways"));
}

TEST_CASE("Go parameters are read, and only limited searches are game moves", "[uci-adapter]") {
  auto go = parse_go("go wtime 300000 btime 290000 winc 2000 binc 2000 movestogo 40");
  CHECK(go.wtime == 300000);
  CHECK(go.btime == 290000);
  CHECK(go.winc == 2000);
  CHECK(go.movestogo == 40);
  CHECK(go.limited());
  CHECK(parse_go("go movetime 100").limited());
  CHECK(parse_go("go depth 5").limited());
  CHECK_FALSE(parse_go("go infinite").limited());
  CHECK_FALSE(parse_go("go").limited());
  auto ponder = parse_go("go ponder wtime 1000 btime 1000");
  CHECK(ponder.ponder);
  CHECK(ponder.limited());
  auto sm = parse_go("go searchmoves e2e4 d2d4 depth 3");
  CHECK(sm.searchmoves == std::vector<std::string>{"e2e4", "d2d4"});
  CHECK(sm.depth == 3);
}

TEST_CASE("Engine lines: bestmove with and without ponder, option names", "[uci-adapter]") {
  auto a = parse_bestmove("bestmove e2e4 ponder e7e5");
  REQUIRE(a);
  CHECK(a->move == "e2e4");
  CHECK(a->ponder == "e7e5");
  auto b = parse_bestmove("bestmove 0000");
  REQUIRE(b);
  CHECK(b->ponder.empty());
  CHECK_FALSE(parse_bestmove("info depth 1 pv e2e4"));
  CHECK(option_name("option name Skill Level type spin default 20 min 0 max 20") == "Skill Level");
  CHECK_FALSE(option_name("id name Stockfish"));
  CHECK(starts_with_word("uciok", "uciok"));
  CHECK_FALSE(starts_with_word("uciokay", "uciok"));
}

TEST_CASE("The adapter's own lines are well-formed UCI", "[uci-adapter]") {
  CHECK(bestmove_line("e2e4", "c7c5") == "bestmove e2e4 ponder c7c5");
  CHECK(bestmove_line("e2e4", "") == "bestmove e2e4");
  CHECK(string_option("BookFilter", "") == "option name BookFilter type string default <empty>");
  CHECK(combo_option("BookPolicy", "best", {"best", "weighted"}) ==
        "option name BookPolicy type combo default best var best var weighted");
}
