// The documented workflow — the adapter learns online, then `graphbook learn
// BOOK tournament.pgn` — counts each game once per side: the tournament's PGN
// of a game the adapter learned is recognised by its moves and result,
// however the GUI wrote it (its own tags, clocks, evaluations, move numbers
// after comments). A scripted GUI drives the real binary over real Stockfish;
// the game is the scholar's mate (a White win by the rules of chess), the
// adapter plays White.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>

#include "book/chess/notation.h"
#include "book/store/book.h"
#include "run_graphbook.h"
#include "scripted_gui.h"
#include "uci-adapter/protocol.h"

using namespace gb;
using namespace gb::test;

namespace {

const std::vector<std::string> kScholarsMate = {"e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"};

// The adapter learns `games` scholar's mates as White: the GUI asks for its first move (the book's
// 1.e4), then sends the game's final position; the adapter sees the mate and learns the win.
void adapter_learns_scholars_mates(const std::string& book, int games) {
  ScriptedGui gui({graphbook_binary(), "uci", "--book", book, "--learning", "--", kStockfish});
  handshake(gui);
  std::string all;
  for (const auto& m : kScholarsMate) all += " " + m;
  for (int i = 0; i < games; ++i) {
    gui.send("ucinewgame");
    gui.send("position startpos");
    gui.send("go wtime 60000 btime 60000");
    auto first = gui.until_prefix("bestmove");
    REQUIRE(first);
    REQUIRE(first->back() == "bestmove e2e4");  // the game below continues it
    gui.send("position startpos moves" + all);
    gui.send("isready");
    auto lines = gui.until_prefix("readyok");
    REQUIRE(lines);
    REQUIRE(std::any_of(lines->begin(), lines->end(), [](const auto& l) {
      return starts_with(l, "info string graphbook: game over by checkmate, learned a win for white");
    }));
  }
  gui.send("quit");
  REQUIRE(gui.wait_exit());
}

// The game as a tournament manager writes it: its own tags, a clock and an evaluation after every
// move, Black's move numbered again after a comment. Round distinguishes copies.
std::string gui_pgn(int round) {
  return "[Event \"graphbook-sf vs Stockfish\"]\n[Site \"fastchess\"]\n[Date \"2026.12.01\"]\n[Round \"" +
         std::to_string(round) +
         "\"]\n[White \"graphbook-sf\"]\n[Black \"Stockfish 15.1\"]\n[Result \"1-0\"]\n"
         "[TimeControl \"10+0.1\"]\n[PlyCount \"7\"]\n[Termination \"normal\"]\n\n"
         "1. e4 {book, 0.000s} 1... e5 {+0.31/14 0.402s, [%clk 0:00:09.5]} 2. Bc4 {book} "
         "2... Nc6 {-0.20/12 0.210s} 3. Qh5 {+0.00/1 0s} 3... Nf6? {-3.10/9 0.105s} "
         "4. Qxf7# {+M1/1 0s, White mates} 1-0\n\n";
}

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Every learning record the game's plies touch: (ply, 0 edge / 1 node) -> wins, draws, losses.
std::map<std::pair<int, int>, std::array<std::uint32_t, 3>> learned_along_game(const std::string& book_path) {
  auto book = store::Book::open(book_path, store::OpenMode::ReadOnly, nullptr);
  REQUIRE(book);
  std::map<std::pair<int, int>, std::array<std::uint32_t, 3>> out;
  Position pos;
  for (int i = 0; i < int(kScholarsMate.size()); ++i) {
    Move m = *parse_uci(pos, kScholarsMate[std::size_t(i)]);
    for (int node : {0, 1}) {
      auto r = book->learning(pos.key(), node ? Move() : m).value_or(store::LearnRecord{});
      out[{i, node}] = {r.wins, r.draws, r.losses};
    }
    UndoInfo undo;
    pos.do_move(m, undo);
  }
  return out;
}

std::uint32_t wins_of_first_move(const std::string& book_path) {
  return learned_along_game(book_path)[{0, 0}][0];
}

}  // namespace

TEST_CASE("The tournament's PGN of a game the adapter learned is already learned for the adapter's side",
          "[uci-adapter]") {
  std::string book = writable_book_copy("learn-once-side");
  adapter_learns_scholars_mates(book, 1);
  auto after_adapter = learned_along_game(book);
  REQUIRE(after_adapter[{0, 0}] == std::array<std::uint32_t, 3>{1, 0, 0});  // 1.e4 won once, by the adapter

  std::string pgn = write(temp_dir("learn-once-side-pgn"), "tournament.pgn", gui_pgn(1));
  Run r = graphbook("learn " + quote(book) + " " + quote(pgn) + " --side white");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("0 learned") != std::string::npos);
  CHECK(r.out.find("1 already learned") != std::string::npos);
  CHECK(learned_along_game(book) == after_adapter);
}

TEST_CASE("Learning the tournament's PGN after the adapter credits only the side the adapter did not play",
          "[uci-adapter]") {
  std::string book = writable_book_copy("learn-once-both");
  adapter_learns_scholars_mates(book, 1);
  auto after_adapter = learned_along_game(book);
  // Black's moves were the opponent's: the adapter left them alone.
  REQUIRE(after_adapter[{1, 0}] == std::array<std::uint32_t, 3>{0, 0, 0});

  std::string pgn = write(temp_dir("learn-once-both-pgn"), "tournament.pgn", gui_pgn(1));
  Run r = graphbook("learn " + quote(book) + " " + quote(pgn));
  REQUIRE(r.status == 0);
  CHECK(r.out.find("1 learned") != std::string::npos);
  CHECK(r.out.find("1 sides of games graphbook uci had learned already") != std::string::npos);
  auto after_learn = learned_along_game(book);
  for (int ply = 0; ply < int(kScholarsMate.size()); ply += 2)  // White's moves: the adapter's win, once
    for (int node : {0, 1}) CHECK(after_learn[{ply, node}] == after_adapter[{ply, node}]);
  // Black's 1...e5 lost once: the tournament's game, learned now (it is in the book).
  CHECK(after_learn[{1, 0}] == std::array<std::uint32_t, 3>{0, 0, 1});

  // The same file again: the whole game is known now.
  Run again = graphbook("learn " + quote(book) + " " + quote(pgn));
  REQUIRE(again.status == 0);
  CHECK(again.out.find("1 already learned") != std::string::npos);
  CHECK(learned_along_game(book) == after_learn);
}

TEST_CASE("Each game the adapter learned is matched by one game of the PGN, no more", "[uci-adapter]") {
  std::string book = writable_book_copy("learn-once-count");
  adapter_learns_scholars_mates(book, 2);
  REQUIRE(wins_of_first_move(book) == 2);
  // The tournament's PGN holds three games with these moves: two are the adapter's, one is not
  // (a game the adapter did not learn, say a game another engine played).
  std::string pgn =
      write(temp_dir("learn-once-count-pgn"), "tournament.pgn", gui_pgn(1) + gui_pgn(2) + gui_pgn(3));
  Run r = graphbook("learn " + quote(book) + " " + quote(pgn) + " --side white");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("1 learned") != std::string::npos);
  CHECK(r.out.find("2 already learned") != std::string::npos);
  CHECK(wins_of_first_move(book) == 3);

  // unlearn takes back what learn credited (the third game), and gives the adapter's games back
  // to be recognised again.
  Run un = graphbook("unlearn " + quote(book) + " " + quote(pgn));
  REQUIRE(un.status == 0);
  CHECK(wins_of_first_move(book) == 2);
  Run again = graphbook("learn " + quote(book) + " " + quote(pgn) + " --side white");
  REQUIRE(again.status == 0);
  CHECK(again.out.find("2 already learned") != std::string::npos);
  CHECK(wins_of_first_move(book) == 3);
}
