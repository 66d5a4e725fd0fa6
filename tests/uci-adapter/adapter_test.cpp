// `graphbook uci` end to end: a scripted GUI drives the real binary in front
// of the real Stockfish (Debian's /usr/games/stockfish). The expected book
// moves come from Polyglot's own make-book output over the same games
// (ref-twic0920-ply16-min1.bin), read here byte by byte.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>

#include "book/chess/notation.h"
#include "polyglot_reference.h"
#include "scripted_gui.h"
#include "uci-adapter/protocol.h"

using namespace gb;
using namespace gb::test;

namespace {

std::string ref_bin() { return reference_book("ref-twic0920-ply16-min1.bin"); }

Key key_after(std::initializer_list<const char*> moves) {
  Position pos;
  for (const char* m : moves) {
    UndoInfo undo;
    pos.do_move(*parse_uci(pos, m), undo);
  }
  return pos.key();
}

std::vector<std::string> adapter_args(const std::string& book, std::vector<std::string> extra = {},
                                      std::vector<std::string> engine = {kStockfish}) {
  std::vector<std::string> args{graphbook_binary(), "uci", "--book", book};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back("--");
  args.insert(args.end(), engine.begin(), engine.end());
  return args;
}

bool is_bestmove(const std::string& l) { return starts_with(l, "bestmove"); }

// Nothing owed is left: an isready round trip brings no further bestmove.
void check_no_extra_bestmove(ScriptedGui& gui) {
  gui.send("isready");
  auto rest = gui.until_prefix("readyok");
  REQUIRE(rest);
  CHECK(std::none_of(rest->begin(), rest->end(), is_bestmove));
}

}  // namespace

TEST_CASE("The handshake lists Stockfish's id and options, then the book options, then uciok",
          "[uci-adapter]") {
  REQUIRE_FALSE(twic_book().empty());
  ScriptedGui gui(adapter_args(twic_book()));
  gui.send("uci");
  auto lines = gui.until_prefix("uciok");
  REQUIRE(lines);
  CHECK(starts_with(lines->front(), "Stockfish") == true);
  auto has = [&](const std::string& prefix) {
    return std::any_of(lines->begin(), lines->end(), [&](const auto& l) { return starts_with(l, prefix); });
  };
  CHECK(has("id name Stockfish"));
  CHECK(has("option name Hash type spin"));
  CHECK(has("option name Ponder type check"));
  for (std::string name : {"OwnBook type check", "BookFile type string", "BookDepth type spin",
                           "BookMinGames type spin", "BookLearning type check", "BookFilter type string"})
    CHECK(has("option name " + name));
  CHECK(has("option name BookPolicy type combo default best var best var weighted var uniform var learned"));
  // The book options come after the engine's, right before uciok.
  CHECK(has("option name BookExitMargin type spin default 0 min 0 max 10000"));
  CHECK(has("option name BookLookahead type spin default 0 min 0 max 64"));
  for (std::string name : {"BookRatings", "BookSpeeds", "BookSince", "BookUntil"})
    CHECK(has("option name " + name + " type string default <empty>"));
  CHECK((*lines)[lines->size() - 2] == "option name BookWeights type string default <empty>");
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE(
    "From the start position the book answers at once with Polyglot's best move, its statistics and no score",
    "[uci-adapter]") {
  std::string expected = polyglot_best_move(ref_bin(), Position().key());
  REQUIRE(expected.size() == 4);
  ScriptedGui gui(adapter_args(twic_book()));
  handshake(gui);
  gui.send("ucinewgame");
  gui.send("position startpos");
  gui.send("go wtime 60000 btime 60000 winc 1000 binc 1000");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  // Two lines, none of Stockfish's: the book answered, the engine never searched.
  // (How fast the book answers is measured by bench/uci.cpp, not asserted here.)
  REQUIRE(lines->size() == 2);
  CHECK(starts_with((*lines)[0], "info string book " + expected + ": "));
  CHECK((*lines)[1] == "bestmove " + expected);
  // The book has results, not an evaluation: no score for the GUI to record or adjudicate on
  // (fastchess takes any info line holding " score " for the move's evaluation).
  CHECK(std::none_of(lines->begin(), lines->end(),
                     [](const auto& l) { return l.find(" score ") != std::string::npos; }));
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("Out of book the engine searches and its info and bestmove pass through", "[uci-adapter]") {
  ScriptedGui gui(adapter_args(twic_book()));
  handshake(gui);
  // A rook ending no game of the book reaches.
  gui.send("position fen 8/8/4k3/8/8/3RK3/8/8 w - - 0 80");
  gui.send("go movetime 200");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  bool searched = std::any_of(lines->begin(), lines->end(), [](const auto& l) {
    return std::regex_search(l, std::regex(R"(^info depth ([2-9]|\d\d) .*nodes \d+)"));
  });
  CHECK(searched);
  CHECK(std::none_of(lines->begin(), lines->end(),
                     [](const auto& l) { return starts_with(l, "info string book"); }));
  std::string best = uci_adapter::parse_bestmove(lines->back())->move;
  auto pos = *Position::from_fen("8/8/4k3/8/8/3RK3/8/8 w - - 0 80");
  CHECK(parse_uci(pos, best));
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE(
    "With Ponder on the book names its reply, answers a ponder search at ponderhit, and a stop adds no "
    "bestmove",
    "[uci-adapter]") {
  std::string first = polyglot_best_move(ref_bin(), Position().key());
  std::string reply = polyglot_best_move(ref_bin(), key_after({first.c_str()}));
  REQUIRE(reply.size() == 4);
  ScriptedGui gui(adapter_args(twic_book()));
  gui.send("setoption name Ponder value true");
  handshake(gui);
  gui.send("position startpos");
  gui.send("go wtime 60000 btime 60000");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  CHECK(lines->back() == "bestmove " + first + " ponder " + reply);
  // A stop after a book answer: nothing searches, so no second bestmove.
  gui.send("stop");
  gui.send("isready");
  auto after_stop = gui.until_prefix("readyok");
  REQUIRE(after_stop);
  CHECK(after_stop->size() == 1);

  // The GUI ponders on the predicted reply; the book holds its answer until ponderhit.
  std::string third = polyglot_best_move(ref_bin(), key_after({first.c_str(), reply.c_str()}));
  REQUIRE(third.size() == 4);
  gui.send("position startpos moves " + first + " " + reply);
  gui.send("go ponder wtime 60000 btime 60000");
  CHECK(gui.drain(300ms).empty());
  gui.send("ponderhit");
  auto hit = gui.until_prefix("bestmove");
  REQUIRE(hit);
  CHECK(starts_with(hit->back(), "bestmove " + third));
  CHECK(starts_with(hit->front(), "info string book " + third + ": "));

  // A ponder miss: stop gives exactly one bestmove, then the real position is searched.
  gui.send("position startpos moves " + first + " " + reply + " " + third + " a7a6");
  gui.send("go ponder wtime 60000 btime 60000");
  gui.send("stop");
  auto missed = gui.until_prefix("bestmove");
  REQUIRE(missed);
  check_no_extra_bestmove(gui);
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("An engine ponder search ends with one bestmove after stop", "[uci-adapter]") {
  ScriptedGui gui(adapter_args(twic_book()));
  gui.send("setoption name Ponder value true");
  handshake(gui);
  gui.send("position fen 8/8/4k3/8/8/3RK3/8/8 b - - 0 80");
  gui.send("go ponder wtime 10000 btime 10000");
  (void)gui.drain(200ms);  // the engine searches meanwhile
  gui.send("stop");
  REQUIRE(gui.until_prefix("bestmove"));
  check_no_extra_bestmove(gui);
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("Isready is answered during an infinite search, which reports book moves only as info string",
          "[uci-adapter]") {
  ScriptedGui gui(adapter_args(twic_book()));
  handshake(gui);
  gui.send("position startpos");
  gui.send("go infinite");
  auto book_line = gui.until_prefix("info string book moves:");
  REQUIRE(book_line);
  std::this_thread::sleep_for(100ms);
  gui.send("isready");
  auto ready = gui.until_prefix("readyok");
  REQUIRE(ready);
  CHECK(std::none_of(ready->begin(), ready->end(), is_bestmove));
  gui.send("stop");
  auto best = gui.until_prefix("bestmove");
  REQUIRE(best);
  // Stockfish searched: it reported nodes, before the readyok or after it
  // (on a busy machine its last report can come before the readyok).
  auto reports_nodes = [](const auto& l) { return std::regex_search(l, std::regex(" nodes \\d+")); };
  CHECK((std::any_of(ready->begin(), ready->end(), reports_nodes) ||
         std::any_of(best->begin(), best->end(), reports_nodes)));
  check_no_extra_bestmove(gui);
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("Quit ends the adapter and Stockfish, and leaves no zombie", "[uci-adapter]") {
  ScriptedGui gui(adapter_args(twic_book()));
  handshake(gui);
  auto children = children_of(gui.pid());
  REQUIRE(children.size() == 1);
  gui.send("quit");
  auto status = gui.wait_exit();
  REQUIRE(status);
  CHECK(status->describe() == "exited with code 0");
  CHECK_FALSE(process_exists(children[0]));
}

TEST_CASE("An engine that crashes mid-search is reported by info string and the adapter exits cleanly",
          "[uci-adapter]") {
  // A scripted fake engine, only to inject the crash: it answers the
  // handshake, then kills itself with SIGSEGV on go.
  std::string dir = temp_dir("crash");
  std::string script = dir + "/crashing-engine.sh";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
           "echo $$ > '"
        << dir
        << "/pid'\n"
           "while read -r line; do\n"
           "  case \"$line\" in\n"
           "    uci) echo 'id name Crasher'; echo 'uciok' ;;\n"
           "    isready) echo 'readyok' ;;\n"
           "    go*) echo 'info depth 1 score cp 0 pv e2e4'; kill -SEGV $$ ;;\n"
           "    quit) exit 0 ;;\n"
           "  esac\n"
           "done\n";
  }
  REQUIRE(std::system(("chmod +x '" + script + "'").c_str()) == 0);
  ScriptedGui gui(adapter_args(twic_book(), {}, {script}));
  handshake(gui);
  gui.send("position fen 8/8/4k3/8/8/3RK3/8/8 w - - 0 80");
  gui.send("go movetime 1000");
  auto lines = gui.until_prefix("info string graphbook: the engine");
  REQUIRE(lines);
  CHECK(lines->back().find("signal 11") != std::string::npos);
  auto status = gui.wait_exit();
  REQUIRE(status);
  CHECK(status->describe() == "exited with code 1");
  std::ifstream pid_file(dir + "/pid");
  pid_t engine_pid = 0;
  pid_file >> engine_pid;
  REQUIRE(engine_pid > 0);
  CHECK_FALSE(process_exists(engine_pid));
}

TEST_CASE("An engine that cannot be started is reported and the adapter exits", "[uci-adapter]") {
  ScriptedGui gui(adapter_args(twic_book(), {}, {"/nonexistent/engine"}));
  auto line = gui.next_line();
  REQUIRE(line);
  CHECK(
      starts_with(*line, "info string graphbook: cannot start the engine: cannot run '/nonexistent/engine'"));
  auto status = gui.wait_exit();
  REQUIRE(status);
  CHECK(status->code == 1);
}

TEST_CASE("A book ponder search the GUI abandons with ucinewgame still gets its one bestmove",
          "[uci-adapter]") {
  ScriptedGui gui(adapter_args(twic_book()));
  gui.send("setoption name Ponder value true");
  handshake(gui);
  gui.send("position startpos moves e2e4");
  gui.send("go ponder wtime 60000 btime 60000");
  CHECK(gui.drain(200ms).empty());
  gui.send("ucinewgame");
  gui.send("isready");
  auto lines = gui.until_prefix("readyok");
  REQUIRE(lines);
  CHECK(std::count_if(lines->begin(), lines->end(), is_bestmove) == 1);
  gui.send("stop");
  check_no_extra_bestmove(gui);
  gui.send("quit");
  CHECK(gui.wait_exit());
}
