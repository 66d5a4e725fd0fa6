// `graphbook uci` over a book imported from a Polyglot .bin (weights, no
// games) in front of the real Stockfish: the book answers with the .bin's
// moves. The .bin is written by Debian's `polyglot make-book` in the test,
// and its heaviest move is read from it byte by byte (scripted_gui.h).
#include <catch2/catch.hpp>
#include <fstream>

#include "book/chess/notation.h"
#include "run_graphbook.h"
#include "scripted_gui.h"

using namespace gb;
using namespace gb::test;

namespace {

// Start-position weights (2 * wins + draws): h4 6, e4 2, d4 1; after 1.h4 Black's h5 weighs 3 (three
// draws) — moves Stockfish would not choose itself, so only the book can play them.
const char* kGames = R"([Event "a"]
[Result "1/2-1/2"]

1. h4 h5 2. e4 1/2-1/2

[Event "b"]
[Result "1/2-1/2"]

1. h4 h5 2. d4 1/2-1/2

[Event "c"]
[Result "1/2-1/2"]

1. h4 h5 2. Nf3 1/2-1/2

[Event "d"]
[Result "1-0"]

1. h4 e5 2. e4 1-0

[Event "e"]
[Result "1-0"]

1. h4 e5 2. d4 1-0

[Event "f"]
[Result "1-0"]

1. e4 e5 2. Nf3 1-0

[Event "g"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 1/2-1/2
)";

}  // namespace

TEST_CASE("The adapter plays the moves of a book imported from a Polyglot .bin", "[uci-adapter][import]") {
  std::string dir = temp_dir("imported");
  std::string pgn = dir + "/games.pgn", bin = dir + "/games.bin", book = dir + "/imported.book";
  std::ofstream(pgn) << kGames;
  REQUIRE(std::system(("/usr/games/polyglot make-book -pgn '" + pgn + "' -bin '" + bin +
                       "' -min-game 1 >/dev/null 2>&1")
                          .c_str()) == 0);
  Run imported = graphbook("import " + quote(book) + " " + quote(bin), true);
  REQUIRE(imported.status == 0);

  std::string first = polyglot_best_move(bin, Position().key());
  REQUIRE(first == "h2h4");
  Position after_h4 = Position();
  UndoInfo undo;
  after_h4.do_move(*parse_uci(after_h4, first), undo);
  std::string reply = polyglot_best_move(bin, after_h4.key());
  REQUIRE(reply == "h7h5");

  ScriptedGui gui({graphbook_binary(), "uci", "--book", book, "--policy", "best", "--", kStockfish});
  handshake(gui);
  gui.send("ucinewgame");
  gui.send("position startpos");
  gui.send("go wtime 60000 btime 60000");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  CHECK(lines->back() == "bestmove " + first);
  CHECK(std::any_of(lines->begin(), lines->end(),
                    [&](const std::string& l) { return starts_with(l, "info string book " + first); }));

  gui.send("position startpos moves " + first);
  gui.send("go wtime 60000 btime 60000");
  lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  CHECK(lines->back() == "bestmove " + reply);
  CHECK(std::any_of(lines->begin(), lines->end(),
                    [&](const std::string& l) { return starts_with(l, "info string book " + reply); }));
  gui.send("quit");
  CHECK(gui.wait_exit());
}
