// Configuration for GUIs that cannot pass arguments, and UCI_Chess960 notation.
#include <catch2/catch.hpp>
#include <fstream>

#include "book/chess/notation.h"
#include "polyglot_reference.h"
#include "scripted_gui.h"
#include "uci-adapter/options.h"

using namespace gb;
using namespace gb::test;

namespace {

std::string write_config(const std::string& dir, const std::string& name) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << "# the adapter for a GUI without arguments\n"
                      << "engine = " << kStockfish << "\n"
                      << "book = " << twic_book() << "\n"
                      << "depth = 12\n"
                      << "policy = weighted\n";
  return path;
}

std::vector<std::string> handshake_lines(ScriptedGui& gui) {
  gui.send("uci");
  auto lines = gui.until_prefix("uciok");
  REQUIRE(lines);
  gui.send("quit");
  REQUIRE(gui.wait_exit());
  return *lines;
}

bool contains(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_CASE("A configuration file sets the engine and the book options", "[uci-adapter]") {
  std::string dir = temp_dir("config-read");
  uci_adapter::AdapterConfig config;
  REQUIRE_FALSE(uci_adapter::read_config_file(write_config(dir, "sf.conf"), config));
  CHECK(config.engine == std::vector<std::string>{kStockfish});
  CHECK(config.book.depth == 12);
  CHECK(config.book.policy == explore::Policy::Weighted);
  std::ofstream(dir + "/bad.conf") << "engine = x\nboook = y\n";
  auto error = uci_adapter::read_config_file(dir + "/bad.conf", config);
  REQUIRE(error);
  CHECK(error->code == uci_adapter::AdapterError::Code::Option);
  CHECK(error->message == dir + "/bad.conf:2: unknown key 'boook'");
}

TEST_CASE("Started without arguments, graphbook reads the file GRAPHBOOK_UCI_CONFIG names", "[uci-adapter]") {
  std::string dir = temp_dir("config-env");
  std::string conf = write_config(dir, "sf.conf");
  ScriptedGui gui({"/usr/bin/env", "GRAPHBOOK_UCI_CONFIG=" + conf, graphbook_binary()});
  auto lines = handshake_lines(gui);
  CHECK(contains(lines, "option name BookFile type string default " + twic_book()));
  CHECK(contains(lines, "option name BookDepth type spin default 12 min 0 max 1024"));
  CHECK(contains(lines, "id name Stockfish 15.1"));
}

TEST_CASE("A renamed link to graphbook reads the .conf file beside it", "[uci-adapter]") {
  std::string dir = temp_dir("config-link");
  write_config(dir, "sf-book.conf");
  REQUIRE(std::system(("ln -s '" + graphbook_binary() + "' '" + dir + "/sf-book'").c_str()) == 0);
  ScriptedGui gui({dir + "/sf-book"});
  auto lines = handshake_lines(gui);
  CHECK(contains(lines,
                 "option name BookPolicy type combo default weighted var best var weighted var uniform var "
                 "learned var lcb"));
  CHECK(contains(lines, "id name Stockfish 15.1"));
}

TEST_CASE("With UCI_Chess960 on, book castling is written and read as the king taking its rook",
          "[uci-adapter]") {
  ScriptedGui gui({graphbook_binary(), "uci", "--book", twic_book(), "--", kStockfish});
  gui.send("uci");
  REQUIRE(gui.until_prefix("uciok"));
  gui.send("setoption name UCI_Chess960 value true");
  // The Ruy Lopez after 4...Nf6: the book's most played move is castling (Polyglot stores it as e1h1).
  gui.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6");
  gui.send("go wtime 60000 btime 60000");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  Position pos;
  for (const char* m : {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"}) {
    UndoInfo undo;
    pos.do_move(*parse_uci(pos, m), undo);
  }
  std::string expected = polyglot_best_move(reference_book("ref-twic0920-ply16-min1.bin"), pos.key(), true);
  REQUIRE(expected == "e1h1");
  CHECK(lines->back() == "bestmove " + expected);
  // The GUI sends it back in the same notation; the adapter follows the game.
  gui.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1h1 f8e7");
  gui.send("go wtime 60000 btime 60000");
  auto next = gui.until_prefix("bestmove");
  REQUIRE(next);
  CHECK(std::any_of(next->begin(), next->end(),
                    [](const auto& l) { return starts_with(l, "info string book "); }));
  CHECK(std::none_of(next->begin(), next->end(),
                     [](const auto& l) { return l.find("not followed") != std::string::npos; }));
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("BookFilter keeps only book moves whose position matches the CQL query", "[uci-adapter]") {
  std::string best = polyglot_best_move(reference_book("ref-twic0920-ply16-min1.bin"), Position().key());
  REQUIRE(best == "e2e4");
  std::string second =
      polyglot_best_move(reference_book("ref-twic0920-ply16-min1.bin"), Position().key(), false, "e2e4");
  ScriptedGui gui({graphbook_binary(), "uci", "--book", twic_book(), "--", kStockfish});
  gui.send("uci");
  REQUIRE(gui.until_prefix("uciok"));
  // "Pe4": a white pawn on e4 (CQL piece designator); the query forbids it.
  gui.send("setoption name BookFilter value not Pe4");
  gui.send("position startpos");
  gui.send("go wtime 60000 btime 60000");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  CHECK(lines->back() == "bestmove " + second);
  gui.send("setoption name BookFilter value not (((");
  gui.send("isready");
  auto error = gui.until_prefix("readyok");
  REQUIRE(error);
  CHECK(std::any_of(error->begin(), error->end(), [](const auto& l) {
    return starts_with(l, "info string graphbook: BookFilter ignored: ");
  }));
  gui.send("go wtime 60000 btime 60000");
  auto unfiltered = gui.until_prefix("bestmove");
  REQUIRE(unfiltered);
  CHECK(unfiltered->back() == "bestmove " + best);
  gui.send("quit");
  CHECK(gui.wait_exit());
}
