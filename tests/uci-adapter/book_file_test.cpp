// The book the adapter is given: one it cannot open is said at once — at
// start, where the adapter refuses to run, or at the GUI's setoption — not at
// the first go of a game. Real binary, real Stockfish.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>

#include "run_graphbook.h"
#include "scripted_gui.h"

using namespace gb;
using namespace gb::test;

namespace {

// A PGN file, the mistake the issue names: `uci --book games.pgn`.
std::string write_pgn(const std::string& dir) {
  std::string path = dir + "/games.pgn";
  std::ofstream(path)
      << "[Event \"x\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n";
  return path;
}

}  // namespace

TEST_CASE("uci refuses a PGN given as its book before starting the engine, naming the file",
          "[uci-adapter]") {
  std::string pgn = write_pgn(temp_dir("book-file-pgn"));
  // The GUI side is empty: an adapter that started anyway would run, see the end of input and exit 0.
  Run r = graphbook("uci --book " + quote(pgn) + " -- " + kStockfish + " </dev/null");
  CHECK(r.status == 2);
  CHECK(r.err.find("graphbook uci: " + pgn + ": not a graphbook book") != std::string::npos);
  // A GUI that shows only the engine's output reads it too, and gets no uciok from a half-working engine.
  CHECK(starts_with(r.out, "info string graphbook: no book: " + pgn + ": not a graphbook book"));
  CHECK(r.out.find("uciok") == std::string::npos);
}

TEST_CASE("uci refuses a book that does not exist", "[uci-adapter]") {
  std::string missing = temp_dir("book-file-missing") + "/games.book";
  Run r = graphbook("uci --book " + quote(missing) + " -- " + kStockfish + " </dev/null");
  CHECK(r.status == 2);
  CHECK(r.err.find(missing) != std::string::npos);
  CHECK(r.err.find("no such book") != std::string::npos);
}

TEST_CASE("uci refuses a damaged book with the README's status for one, 3", "[uci-adapter]") {
  std::string dir = temp_dir("book-file-damaged");
  std::string pgn = write_pgn(dir), book = dir + "/games.book";
  REQUIRE(graphbook("build " + quote(book) + " " + quote(pgn) + " --quiet").status == 0);
  // Cut to its two meta pages: the pages they name are gone (LMDB's own layout, not our reader's).
  REQUIRE(::truncate(book.c_str(), 8192) == 0);
  Run r = graphbook("uci --book " + quote(book) + " -- " + kStockfish + " </dev/null");
  CHECK(r.status == 3);
  CHECK(r.err.find(book + ": damaged book") != std::string::npos);
  CHECK(r.out.find("uciok") == std::string::npos);
}

TEST_CASE("uci refuses the same from a configuration file", "[uci-adapter]") {
  std::string dir = temp_dir("book-file-config");
  std::string pgn = write_pgn(dir);
  std::ofstream(dir + "/sf.conf") << "engine = " << kStockfish << "\nbook = " << pgn << "\n";
  Run r = graphbook("uci --config " + quote(dir + "/sf.conf") + " </dev/null");
  CHECK(r.status == 2);
  CHECK(r.err.find(pgn + ": not a graphbook book") != std::string::npos);
}

TEST_CASE("A BookFile the GUI sets that is not a book is said at once, and the engine plays every move",
          "[uci-adapter]") {
  std::string pgn = write_pgn(temp_dir("book-file-setoption"));
  ScriptedGui gui({graphbook_binary(), "uci", "--", kStockfish});
  handshake(gui);
  gui.send("setoption name BookFile value " + pgn);
  gui.send("isready");
  auto ready = gui.until_prefix("readyok");
  REQUIRE(ready);
  // Said before any game starts: the GUI's log shows it next to its setoption.
  CHECK(std::count_if(ready->begin(), ready->end(), [&](const auto& l) {
          return starts_with(l, "info string graphbook: no book: " + pgn + ": not a graphbook book");
        }) == 1);
  gui.send("position startpos");
  gui.send("go movetime 50");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  CHECK(std::any_of(lines->begin(), lines->end(), [](const auto& l) {
    return std::regex_search(l, std::regex("^info depth \\d+ .* nodes \\d+"));
  }));
  CHECK(std::none_of(lines->begin(), lines->end(),
                     [](const auto& l) { return starts_with(l, "info string graphbook"); }));
  gui.send("quit");
  CHECK(gui.wait_exit());
}
