// The adapter's UCI options end to end, as a GUI sets them: each of OwnBook,
// BookDepth, BookMinGames and BookLearning, sent by setoption to the real
// binary in front of the real Stockfish, changes what the adapter does.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>

#include "book/chess/notation.h"
#include "book/store/book.h"
#include "run_graphbook.h"
#include "scripted_gui.h"
#include "uci-adapter/protocol.h"

using namespace gb;
using namespace gb::test;

namespace {

std::vector<std::string> adapter(const std::string& book, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{graphbook_binary(), "uci", "--book", book};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back("--");
  args.push_back(kStockfish);
  return args;
}

struct Answer {
  std::string move;
  bool from_book = false;  // the book's statistics came with it
  bool searched = false;   // Stockfish reported a search
};

Answer go(ScriptedGui& gui, const std::string& position) {
  gui.send(position);
  gui.send("go movetime 100");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  Answer a;
  a.move = uci_adapter::parse_bestmove(lines->back())->move;
  a.from_book = std::any_of(lines->begin(), lines->end(),
                            [](const auto& l) { return starts_with(l, "info string book "); });
  a.searched = std::any_of(lines->begin(), lines->end(), [](const auto& l) {
    return std::regex_search(l, std::regex("^info depth \\d+ .*nodes \\d+"));
  });
  return a;
}

void set(ScriptedGui& gui, const std::string& name, const std::string& value) {
  gui.send("setoption name " + name + " value " + value);
  gui.send("isready");
  auto lines = gui.until_prefix("readyok");
  REQUIRE(lines);
  // A value the adapter refused would be said here.
  CHECK(std::none_of(lines->begin(), lines->end(),
                     [](const auto& l) { return starts_with(l, "info string graphbook"); }));
}

// A book made in the test from four games: 1.e4 in three (all drawn), 1.d3 in one (won).
std::string small_book() {
  std::string dir = temp_dir("options-small-book");
  std::string pgn = dir + "/games.pgn";
  std::ofstream out(pgn);
  for (int i = 0; i < 3; ++i)
    out << "[Event \"e4\"]\n[Round \"" << i << "\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n\n";
  out << "[Event \"d3\"]\n[Round \"4\"]\n[Result \"1-0\"]\n\n1. d3 e5 2. e4 Nf6 1-0\n\n";
  out.close();
  std::string book = dir + "/small.book";
  Run r = graphbook("build " + quote(book) + " " + quote(pgn) + " --quiet");
  REQUIRE(r.status == 0);
  return book;
}

}  // namespace

TEST_CASE("OwnBook false hands every go to the engine, and true gives it back to the book", "[uci-adapter]") {
  ScriptedGui gui(adapter(twic_book()));
  handshake(gui);
  Answer book = go(gui, "position startpos");
  CHECK(book.from_book);
  CHECK_FALSE(book.searched);
  set(gui, "OwnBook", "false");
  Answer engine = go(gui, "position startpos");
  CHECK_FALSE(engine.from_book);
  CHECK(engine.searched);
  set(gui, "OwnBook", "true");
  CHECK(go(gui, "position startpos").from_book);
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("BookDepth ends the book at that ply", "[uci-adapter]") {
  ScriptedGui gui(adapter(twic_book()));
  handshake(gui);
  // The twic book answers 1.e4 (default depth 256)...
  CHECK(go(gui, "position startpos moves e2e4").from_book);
  // ... but with BookDepth 1 only the first ply is the book's.
  set(gui, "BookDepth", "1");
  CHECK(go(gui, "position startpos").from_book);
  Answer after_e4 = go(gui, "position startpos moves e2e4");
  CHECK_FALSE(after_e4.from_book);
  CHECK(after_e4.searched);
  set(gui, "BookDepth", "0");
  CHECK_FALSE(go(gui, "position startpos").from_book);
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("BookMinGames holds back moves with fewer games: by default the one-game 1.d3 never plays",
          "[uci-adapter]") {
  std::string book = small_book();
  // weighted: 1.e4 weighs 3 (three draws), 1.d3 weighs 2 (one win): d3 is drawn 2 times in 5
  // when it may play, so 20 games without it would be a 1-in-27,000 chance.
  ScriptedGui gui(adapter(book, {"--policy", "weighted", "--seed", "7"}));
  handshake(gui);
  auto first_moves = [&] {
    std::map<std::string, int> count;
    for (int i = 0; i < 20; ++i) {
      gui.send("ucinewgame");
      Answer a = go(gui, "position startpos");
      REQUIRE(a.from_book);
      ++count[a.move];
    }
    return count;
  };
  auto by_default = first_moves();
  CHECK(by_default["e2e4"] == 20);
  CHECK(by_default["d2d3"] == 0);
  set(gui, "BookMinGames", "1");
  auto all_moves = first_moves();
  CHECK(all_moves["d2d3"] > 0);
  CHECK(all_moves["e2e4"] + all_moves["d2d3"] == 20);
  // No move has four games: the book has nothing to play, the engine searches.
  set(gui, "BookMinGames", "4");
  Answer none = go(gui, "position startpos");
  CHECK_FALSE(none.from_book);
  CHECK(none.searched);
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("BookLearning set by the GUI makes the adapter learn a finished game, and unset it learns nothing",
          "[uci-adapter]") {
  std::string book_path = writable_book_copy("options-learning");
  const std::string mate = "position startpos moves e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7";
  auto play_mate = [&](ScriptedGui& gui) {
    gui.send("ucinewgame");
    REQUIRE(go(gui, "position startpos").move == "e2e4");  // the game below continues it
    gui.send(mate);
    gui.send("isready");
    auto lines = gui.until_prefix("readyok");
    REQUIRE(lines);
    return std::any_of(lines->begin(), lines->end(), [](const auto& l) {
      return starts_with(l, "info string graphbook: game over by checkmate");
    });
  };
  {
    ScriptedGui gui(adapter(book_path));
    handshake(gui);
    CHECK_FALSE(play_mate(gui));  // BookLearning is off by default
    set(gui, "BookLearning", "true");
    CHECK(play_mate(gui));
    set(gui, "BookLearning", "false");
    CHECK_FALSE(play_mate(gui));
    gui.send("quit");
    REQUIRE(gui.wait_exit());
  }
  // Of the three mates only the one played with BookLearning on was learned: 1.e4 won once.
  auto book = store::Book::open(book_path, store::OpenMode::ReadOnly, nullptr);
  REQUIRE(book);
  Position start;
  auto e4 = book->learning(start.key(), *parse_uci(start, "e2e4")).value_or(store::LearnRecord{});
  CHECK(e4.wins == 1);
  CHECK(e4.draws + e4.losses == 0);
}
