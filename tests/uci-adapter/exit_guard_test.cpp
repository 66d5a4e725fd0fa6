// The book-exit guard of graphbook uci (docs/UCI.md): BookExitMargin leaves a
// book move whose backed-up value is too far below the position's evaluation,
// BookLookahead one whose line runs out of games; the info string says why.
// Real adapter, real Stockfish, books made from PGN written here.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "run_graphbook.h"
#include "scripted_gui.h"
#include "temp_dir.h"

using namespace gb::test;

namespace {

// n copies of a game, each its own (the Event tag makes its fingerprint).
std::string copies(int n, const std::string& moves, const std::string& result, const std::string& name) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += "[Event \"" + name + " " + std::to_string(i) + "\"]\n[Result \"" + result + "\"]\n\n" + moves +
           " " + result + "\n\n";
  return out;
}

std::string build(const TempDir& dir, const std::string& pgn_text) {
  std::string pgn = dir.write("games.pgn", pgn_text);
  std::string book = dir.file("games.book");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(pgn) + " --quiet").status == 0);
  return book;
}

// The lines the adapter answers `go depth 5` from the start position with, up to bestmove.
std::vector<std::string> answer_at_start(const std::string& book, std::vector<std::string> options) {
  std::vector<std::string> args{graphbook_binary(), "uci", "--book", book};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {"--", kStockfish});
  ScriptedGui gui(args);
  handshake(gui);
  gui.send("ucinewgame");
  gui.send("position startpos");
  gui.send("go depth 5");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  gui.send("quit");
  CHECK(gui.wait_exit());
  return *lines;
}

bool has_line(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const auto& l) { return l.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("BookExitMargin leaves a book move that backs up too far below the position's evaluation",
          "[uci-adapter][exit-guard]") {
  TempDir dir("graphbook-exit-guard");
  // The book's only first move is 1.f3, and its games (drawn, so that it has a Polyglot weight)
  // stop where Black mates at once: 1.f3 e5 2.g4, Qh4#.
  std::string book = build(dir, copies(5, "1. f3 e5 2. g4", "1/2-1/2", "fool"));
  REQUIRE(graphbook("analyse " + quote(book) + " --depth 8 --engine-option Threads=1").status == 0);
  REQUIRE(graphbook("values " + quote(book)).status == 0);
  auto probe = nlohmann::json::parse(graphbook("probe " + quote(book) + " --json --no-names").out);
  REQUIRE(probe["eval"].contains("cp"));
  REQUIRE(probe["moves"].size() == 1);
  REQUIRE(probe["moves"][0]["value"].contains("cp"));
  // How far 1.f3 backs up below the start position's evaluation, from the book's own numbers.
  const int below = probe["eval"]["cp"].get<int>() - probe["moves"][0]["value"]["cp"].get<int>();
  REQUIRE(below > 20);

  auto without = answer_at_start(book, {});
  CHECK(has_line(without, "info string book f2f3"));
  CHECK(without.back().rfind("bestmove f2f3", 0) == 0);

  auto tight = answer_at_start(book, {"--exit-margin", std::to_string(below - 10)});
  CHECK(has_line(tight, "info string graphbook: out of book: f2f3 backs up to"));
  CHECK(has_line(tight, "(BookExitMargin " + std::to_string(below - 10) + ")"));
  CHECK(!has_line(tight, "info string book f2f3"));
  CHECK(has_line(tight, "info depth 5"));  // Stockfish searched

  auto loose = answer_at_start(book, {"--exit-margin", std::to_string(below + 10)});
  CHECK(has_line(loose, "info string book f2f3"));
}

TEST_CASE("BookLookahead leaves a move whose line runs out of games within the next plies",
          "[uci-adapter][exit-guard]") {
  TempDir dir("graphbook-exit-guard");
  // 1.e4 has more games (best plays it), but its games stop after 1...e5; 1.d4's go on for six plies.
  std::string book = build(dir, copies(5, "1. e4 e5", "1-0", "short") +
                                    copies(3, "1. d4 d5 2. c4 e6 3. Nc3 Nf6", "1/2-1/2", "long"));
  auto plain = answer_at_start(book, {"--min-games", "3"});
  CHECK(plain.back().rfind("bestmove e2e4", 0) == 0);

  auto three = answer_at_start(book, {"--min-games", "3", "--lookahead", "3"});
  CHECK(has_line(three, "info string book d2d4"));
  CHECK(three.back().rfind("bestmove d2d4", 0) == 0);

  auto six = answer_at_start(book, {"--min-games", "3", "--lookahead", "6"});
  CHECK(six.back().rfind("bestmove d2d4", 0) == 0);

  auto seven = answer_at_start(book, {"--min-games", "3", "--lookahead", "7"});
  CHECK(has_line(seven, "info string graphbook: out of book: "));
  CHECK(has_line(seven, "e2e4 has no line of 7 plies with 3 games each (BookLookahead 7)"));
  CHECK(has_line(seven, "d2d4 has no line of 7 plies"));
  CHECK(has_line(seven, "info depth 5"));
}
