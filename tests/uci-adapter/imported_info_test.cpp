// What the adapter says about a move of a book imported from a Polyglot .bin
// (weights, no games): the .bin's weight, never "0 games", and never the word
// " score " (fastchess reads any info line holding " score " as an
// evaluation). The .bin is written by Debian's `polyglot make-book` in the
// test and its weights are read from it byte by byte.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>

#include "book/chess/position.h"
#include "run_graphbook.h"
#include "scripted_gui.h"

using namespace gb;
using namespace gb::test;

namespace {

// White wins three games with 1. h4 and draws one with 1. e4: two start moves of different weights.
const char* kGames = R"([Event "a"]
[Result "1-0"]

1. h4 e5 2. e4 1-0

[Event "b"]
[Result "1-0"]

1. h4 d5 2. d4 1-0

[Event "c"]
[Result "1-0"]

1. h4 h5 2. Nf3 1-0

[Event "d"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 1/2-1/2
)";

// The .bin's entries for key as UCI move -> weight (no castling moves at the start).
std::map<std::string, int> polyglot_weights(const std::string& bin, Key key) {
  std::map<std::string, int> out;
  for (const BinEntry& e : read_bin_entries(bin, key)) out[bin_move_uci(e.move)] = e.weight;
  return out;
}

bool is_info_string(const std::string& line) { return starts_with(line, "info string "); }

}  // namespace

TEST_CASE("The adapter's info string for an imported move gives its weight, not 0 games, and no ' score '",
          "[uci-adapter][import]") {
  std::string dir = temp_dir("imported-info");
  std::string pgn = dir + "/games.pgn", bin = dir + "/games.bin", book = dir + "/imported.book";
  std::ofstream(pgn) << kGames;
  REQUIRE(std::system(("/usr/games/polyglot make-book -pgn '" + pgn + "' -bin '" + bin +
                       "' -min-game 1 >/dev/null 2>&1")
                          .c_str()) == 0);
  REQUIRE(graphbook("import " + quote(book) + " " + quote(bin), true).status == 0);
  auto weights = polyglot_weights(bin, Position().key());
  REQUIRE(weights.size() == 2);
  REQUIRE(weights.count("h2h4") == 1);
  REQUIRE(weights.count("e2e4") == 1);
  REQUIRE(weights["h2h4"] > weights["e2e4"]);  // best plays h4

  ScriptedGui gui({graphbook_binary(), "uci", "--book", book, "--policy", "best", "--", kStockfish});
  handshake(gui);
  gui.send("ucinewgame");
  gui.send("position startpos");
  gui.send("go wtime 60000 btime 60000");
  auto played = gui.until_prefix("bestmove");
  REQUIRE(played);
  CHECK(played->back() == "bestmove h2h4");
  auto line = std::find_if(played->begin(), played->end(),
                           [](const std::string& l) { return starts_with(l, "info string book h2h4"); });
  REQUIRE(line != played->end());
  INFO(*line);
  CHECK(line->find("weight " + std::to_string(weights["h2h4"]) + " (imported") != std::string::npos);
  CHECK(line->find("games, +") == std::string::npos);

  // Analysis: every book move with its weight.
  gui.send("go infinite");
  auto listed = gui.until_prefix("info string book moves:");
  REQUIRE(listed);
  INFO(listed->back());
  for (const auto& [move, weight] : weights)
    CHECK(listed->back().find(move + " (weight " + std::to_string(weight) + ", imported)") !=
          std::string::npos);
  CHECK(listed->back().find("games") == std::string::npos);
  gui.send("stop");
  REQUIRE(gui.until_prefix("bestmove"));
  gui.send("quit");
  CHECK(gui.wait_exit());

  std::vector<std::string> info_strings;
  std::copy_if(gui.seen().begin(), gui.seen().end(), std::back_inserter(info_strings), is_info_string);
  REQUIRE(info_strings.size() >= 2);
  for (const std::string& l : info_strings) {
    INFO(l);
    CHECK(l.find(" score ") == std::string::npos);
  }
}
