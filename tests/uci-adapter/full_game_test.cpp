// The adapter plays a whole game against Stockfish spoken to directly: book
// moves first, then its engine, every move legal, the end seen on the board.
#include <catch2/catch.hpp>

#include "book/chess/notation.h"
#include "book/store/book.h"
#include "scripted_gui.h"
#include "uci-adapter/game_end.h"
#include "uci-adapter/protocol.h"

using namespace gb;
using namespace gb::test;

TEST_CASE("The adapter plays Stockfish from the start position through the book and beyond",
          "[uci-adapter]") {
  std::string book_path = writable_book_copy("full-game");
  ScriptedGui adapter({graphbook_binary(), "uci", "--book", book_path, "--learning", "--", kStockfish});
  ScriptedGui opponent({kStockfish});
  for (ScriptedGui* g : {&adapter, &opponent}) {
    g->send("uci");
    REQUIRE(g->until_prefix("uciok"));
  }
  // A weak opponent, so that the game ends on the board soon.
  opponent.send("setoption name Skill Level value 0");
  for (ScriptedGui* g : {&adapter, &opponent}) {
    g->send("ucinewgame");
    g->send("isready");
    REQUIRE(g->until_prefix("readyok"));
  }
  Position pos;
  std::vector<Key> keys{pos.key()};
  std::string moves;
  int book_moves = 0, engine_moves = 0, last_book_ply = -1;
  uci_adapter::Termination end = uci_adapter::Termination::None;
  constexpr int kMaxPlies = 400;
  for (int ply = 0; ply < kMaxPlies && end == uci_adapter::Termination::None; ++ply) {
    bool ours = pos.side_to_move() == Color::White;
    ScriptedGui& player = ours ? adapter : opponent;
    player.send("position startpos" + (moves.empty() ? std::string() : " moves" + moves));
    player.send("go movetime 20");
    auto lines = player.until_prefix("bestmove");
    REQUIRE(lines);
    if (ours) {
      bool from_book = std::any_of(lines->begin(), lines->end(),
                                   [](const auto& l) { return starts_with(l, "info string book "); });
      if (from_book) {
        ++book_moves;
        last_book_ply = ply;
      } else {
        ++engine_moves;
      }
    }
    std::string text = uci_adapter::parse_bestmove(lines->back())->move;
    auto m = parse_uci(pos, text);
    REQUIRE(m);
    UndoInfo undo;
    pos.do_move(*m, undo);
    keys.push_back(pos.key());
    moves += " " + text;
    end = uci_adapter::termination(pos, keys);
  }
  INFO("moves:" << moves);
  CHECK(book_moves >= 2);
  CHECK(engine_moves >= 1);
  CHECK(last_book_ply < 2 * book_moves);  // the book moves came first, in a row
  REQUIRE(end != uci_adapter::Termination::None);

  // The GUI shows the adapter the final position, then the game is over.
  adapter.send("position startpos moves" + moves);
  adapter.send("isready");
  auto tail = adapter.until_prefix("readyok");
  REQUIRE(tail);
  auto all = adapter.seen();
  bool learned = std::any_of(all.begin(), all.end(), [](const auto& l) {
    return starts_with(l, "info string graphbook: game over by ");
  });
  CHECK(learned);
  adapter.send("quit");
  opponent.send("quit");
  CHECK(adapter.wait_exit());
  CHECK(opponent.wait_exit());
}
