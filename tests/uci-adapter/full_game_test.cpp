// The adapter plays a whole game against Stockfish spoken to directly: book
// moves where the book has them, its engine everywhere else, every move legal,
// the end seen on the board.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "book/chess/notation.h"
#include "replayed_games.h"
#include "scripted_gui.h"
#include "uci-adapter/game_end.h"
#include "uci-adapter/protocol.h"

using namespace gb;
using namespace gb::test;

namespace {

// Per position, the games of twic0920.pgn that played each move from it within their first 40
// plies (the book's --max-ply), each game once: what the book holds, counted without it.
using GamesByMove = std::map<Key, std::map<std::uint16_t, int>>;

GamesByMove twic_games_by_move() {
  GamesByMove games;
  for (const ReplayedGame& g : replay_simple_pgn(data_path("pgn/small/twic0920.pgn"))) {
    std::set<std::pair<Key, std::uint16_t>> seen;
    for (std::size_t i = 0; i < g.moves.size() && i < 40; ++i)
      if (seen.insert({g.keys[i], g.moves[i].raw()}).second) ++games[g.keys[i]][g.moves[i].raw()];
  }
  return games;
}

// The games of one move of the position.
int games_of(const GamesByMove& games, Key key, Move move) {
  auto it = games.find(key);
  if (it == games.end()) return 0;
  auto m = it->second.find(move.raw());
  return m == it->second.end() ? 0 : m->second;
}

// The most games any move of the position has.
int most_games(const GamesByMove& games, Key key) {
  auto it = games.find(key);
  int most = 0;
  if (it != games.end())
    for (const auto& [move, n] : it->second) most = std::max(most, n);
  return most;
}

}  // namespace

TEST_CASE("The adapter plays Stockfish from the start position through the book and beyond",
          "[uci-adapter]") {
  // A book move needs BookMinGames (3) games. The book is transposition-aware: a line the engine
  // chose may come back into it, and then the book plays again.
  constexpr int kMinGames = 3;
  const auto games = twic_games_by_move();
  REQUIRE(most_games(games, Position().key()) >= kMinGames);
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
  int book_moves = 0, engine_moves = 0;
  std::vector<std::string> wrong;  // adapter moves where book and engine were mixed up
  uci_adapter::Termination end = uci_adapter::Termination::None;
  constexpr int kMaxPlies = 400;
  for (int ply = 0; ply < kMaxPlies && end == uci_adapter::Termination::None; ++ply) {
    bool ours = pos.side_to_move() == Color::White;
    ScriptedGui& player = ours ? adapter : opponent;
    player.send("position startpos" + (moves.empty() ? std::string() : " moves" + moves));
    player.send("go movetime 20");
    auto lines = player.until_prefix("bestmove");
    REQUIRE(lines);
    std::string text = uci_adapter::parse_bestmove(lines->back())->move;
    auto m = parse_uci(pos, text);
    REQUIRE(m);
    if (ours) {
      bool from_book = std::any_of(lines->begin(), lines->end(),
                                   [](const auto& l) { return starts_with(l, "info string book "); });
      (from_book ? book_moves : engine_moves)++;
      int most = most_games(games, pos.key()), move_games = games_of(games, pos.key(), *m);
      if (from_book != (most >= kMinGames) || (from_book && move_games < kMinGames))
        wrong.push_back("ply " + std::to_string(ply) + ": " + text +
                        (from_book ? " from the book" : " from the engine") + ", its games " +
                        std::to_string(move_games) + ", the most of a move here " + std::to_string(most));
    }
    UndoInfo undo;
    pos.do_move(*m, undo);
    keys.push_back(pos.key());
    moves += " " + text;
    end = uci_adapter::termination(pos, keys);
  }
  INFO("moves:" << moves);
  CHECK(book_moves >= 1);  // at least the first move (the start position is in the book, above)
  CHECK(engine_moves >= 1);
  std::string mixed_up;
  for (const auto& w : wrong) mixed_up += "\n" + w;
  INFO("mixed up:" << mixed_up);
  CHECK(wrong.empty());  // a book move wherever the book has one of enough games, the engine elsewhere
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
