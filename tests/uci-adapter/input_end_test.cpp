// A GUI (or a script: `printf 'uci\nisready\n...' | graphbook uci ...`) that
// writes all its commands at once and closes its side: every command received
// before the end of input, or before quit, is answered as Stockfish alone
// answers it (uciok, readyok, one bestmove per go), then the adapter exits.
// Real binary, real Stockfish, the twic0920 book.
#include <catch2/catch.hpp>
#include <regex>

#include "book/chess/notation.h"
#include "scripted_gui.h"
#include "uci-adapter/protocol.h"

using namespace gb;
using namespace gb::test;

namespace {

// A rook ending no game of the book reaches.
const char* kOutOfBookFen = "8/8/4k3/8/8/3RK3/8/8 w - - 0 80";

// Sends the script at once, closes the adapter's input when asked to, and
// returns everything it wrote until it exited.
std::vector<std::string> run_script(const std::vector<std::string>& script, bool close_input) {
  ScriptedGui gui({graphbook_binary(), "uci", "--book", twic_book(), "--", kStockfish});
  for (const auto& line : script) gui.send(line);
  if (close_input) gui.close_input();
  auto lines = gui.until_end();
  REQUIRE(lines);
  auto status = gui.wait_exit();
  REQUIRE(status);
  CHECK(status->describe() == "exited with code 0");
  return *lines;
}

std::ptrdiff_t index_of(const std::vector<std::string>& lines, const std::string& prefix) {
  auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return starts_with(l, prefix); });
  return it == lines.end() ? -1 : it - lines.begin();
}

// uciok, then readyok, then exactly one bestmove, in that order; returns the move.
std::string check_answers(const std::vector<std::string>& lines) {
  INFO("the adapter wrote " << lines.size() << " lines; the last: " << (lines.empty() ? "" : lines.back()));
  auto uciok = index_of(lines, "uciok"), readyok = index_of(lines, "readyok"),
       bestmove = index_of(lines, "bestmove ");
  REQUIRE(uciok >= 0);
  REQUIRE(readyok > uciok);
  REQUIRE(bestmove > readyok);
  CHECK(std::count_if(lines.begin(), lines.end(), [](const auto& l) { return starts_with(l, "bestmove"); }) ==
        1);
  return uci_adapter::parse_bestmove(lines[std::size_t(bestmove)])->move;
}

void check_book_answer(const std::vector<std::string>& lines) {
  std::string move = check_answers(lines);
  CHECK(parse_uci(Position(), move));
  // The book answered: its statistics name the move, and Stockfish never searched.
  CHECK(index_of(lines, "info string book " + move + ":") >= 0);
  CHECK(std::none_of(lines.begin(), lines.end(),
                     [](const auto& l) { return std::regex_search(l, std::regex(" nodes [1-9]")); }));
}

void check_engine_answer(const std::vector<std::string>& lines) {
  std::string move = check_answers(lines);
  CHECK(parse_uci(*Position::from_fen(kOutOfBookFen), move));
  CHECK(index_of(lines, "info string book") < 0);
}

}  // namespace

TEST_CASE("A script ending in quit gets uciok, readyok and the book's bestmove before the adapter exits",
          "[uci-adapter]") {
  check_book_answer(
      run_script({"uci", "isready", "position startpos", "go wtime 10000 btime 10000", "quit"}, true));
}

TEST_CASE("A script ending in quit gets uciok, readyok and the engine's bestmove out of book",
          "[uci-adapter]") {
  check_engine_answer(run_script(
      {"uci", "isready", std::string("position fen ") + kOutOfBookFen, "go wtime 10000 btime 10000", "quit"},
      true));
}

TEST_CASE("Input that ends without quit still gets every answer, in book and out of book", "[uci-adapter]") {
  check_book_answer(run_script({"uci", "isready", "position startpos", "go wtime 10000 btime 10000"}, true));
  check_engine_answer(run_script(
      {"uci", "isready", std::string("position fen ") + kOutOfBookFen, "go wtime 10000 btime 10000"}, true));
}

TEST_CASE("A quit the GUI sends without closing its side answers what came before it and exits",
          "[uci-adapter]") {
  // The GUI keeps its side open: the adapter still ends at quit.
  check_book_answer(
      run_script({"uci", "isready", "position startpos", "go wtime 10000 btime 10000", "quit"}, false));
}
