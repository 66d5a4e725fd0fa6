// Online learning end to end: games the adapter plays through the real
// binary in front of Stockfish, and what the book holds afterwards. The
// results are textbook chess (the scholar's mate is a White win).
#include "uci-adapter/learning.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "book/chess/notation.h"
#include "book/learning/pending_games.h"
#include "book/store/book.h"
#include "run_graphbook.h"
#include "scripted_gui.h"
#include "uci-adapter/protocol.h"

using namespace gb;
using namespace gb::test;

namespace {

constexpr const char* kScholarsMate = "position startpos moves e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7";

Move move_of(const Position& pos, const char* uci) { return *parse_uci(pos, uci); }

std::vector<std::string> learning_adapter(const std::string& book) {
  return {graphbook_binary(), "uci", "--book", book, "--learning", "--", kStockfish};
}

std::string play_go(ScriptedGui& gui, const std::string& position) {
  gui.send(position);
  gui.send("go wtime 60000 btime 60000");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  return uci_adapter::parse_bestmove(lines->back())->move;
}

store::LearnRecord learned(store::Book& book, Key key, Move move) {
  return book.learning(key, move).value_or(store::LearnRecord{});
}

// The GUI sends the scholar's mate as the final position of the game the
// adapter plays as White: it learns a win for White.
void end_with_scholars_mate(ScriptedGui& gui) {
  gui.send(kScholarsMate);
  gui.send("isready");
  auto lines = gui.until_prefix("readyok");
  REQUIRE(lines);
  CHECK(std::any_of(lines->begin(), lines->end(), [](const auto& l) {
    return starts_with(l, "info string graphbook: game over by checkmate, learned a win for white");
  }));
}

// The book at book_path learned one win for 1. e4 (the scholar's mate).
void check_learned_win_of_e4(const std::string& book_path) {
  auto book = store::Book::open(book_path, store::OpenMode::ReadOnly, nullptr);
  REQUIRE(book);
  Position start;
  CHECK(learned(*book, start.key(), move_of(start, "e2e4")).wins == 1);
}

// One game the adapter plays as White and then loses nothing.
void play_scholars_mate(ScriptedGui& gui) {
  gui.send("ucinewgame");
  play_go(gui, "position startpos");
  end_with_scholars_mate(gui);
}

// The adapter plays White from the start position: its move, 1... c5, its
// move, then a new game: White resigned, which the board does not say. The
// game is recorded as pending. Returns the three moves in UCI.
std::vector<std::string> play_until_white_resigns(const std::string& book_path) {
  std::vector<std::string> moves;
  ScriptedGui gui(learning_adapter(book_path));
  handshake(gui);
  gui.send("ucinewgame");
  moves.push_back(play_go(gui, "position startpos"));
  moves.push_back("c7c5");
  moves.push_back(play_go(gui, "position startpos moves " + moves[0] + " " + moves[1]));
  gui.send("ucinewgame");
  gui.send("isready");
  REQUIRE(gui.until_prefix("readyok"));
  gui.send("quit");
  REQUIRE(gui.wait_exit());
  return moves;
}

// The tournament's PGN of that game: the same moves (SAN by hand from the UCI moves), Black won,
// written to played.pgn in a fresh temporary directory of that name; its path.
std::string write_black_win(const std::string& dir_name, const std::vector<std::string>& moves) {
  Position pos;
  std::string text = "[Event \"test\"]\n[White \"graphbook\"]\n[Black \"opponent\"]\n[Result \"0-1\"]\n\n";
  for (std::size_t i = 0; i < moves.size(); ++i) {
    Move m = move_of(pos, moves[i].c_str());
    if (i % 2 == 0) text += std::to_string(i / 2 + 1) + ". ";
    text += to_san(pos, m) + " ";
    UndoInfo undo;
    pos.do_move(m, undo);
  }
  std::string path = temp_dir(dir_name) + "/played.pgn";
  std::ofstream(path) << text << "0-1\n";
  return path;
}

}  // namespace

TEST_CASE("A game that ends in mate teaches the book a win for the side the adapter played",
          "[uci-adapter]") {
  std::string book_path = writable_book_copy("mate");
  {
    ScriptedGui gui(learning_adapter(book_path));
    handshake(gui);
    play_scholars_mate(gui);
    gui.send("quit");
    REQUIRE(gui.wait_exit());
  }
  auto book = store::Book::open(book_path, store::OpenMode::ReadOnly, nullptr);
  REQUIRE(book);
  Position start;
  auto e4 = learned(*book, start.key(), move_of(start, "e2e4"));
  CHECK(e4.wins == 1);
  CHECK(e4.draws == 0);
  CHECK(e4.losses == 0);
  CHECK(e4.last_result == 1);
  // Black's moves were not the adapter's: they learn nothing.
  Position after_e4 = start;
  UndoInfo undo;
  after_e4.do_move(move_of(start, "e2e4"), undo);
  CHECK(learned(*book, after_e4.key(), move_of(after_e4, "e7e5")).wins +
            learned(*book, after_e4.key(), move_of(after_e4, "e7e5")).losses ==
        0);
  CHECK(learning::pending_games(*book).empty());
}

TEST_CASE("A book rebuilt while the adapter plays learns the game in the new file, not the replaced one",
          "[uci-adapter]") {
  std::string book_path = writable_book_copy("rebuilt");
  const std::string rebuilt = writable_book_copy("rebuilt-new");
  {
    ScriptedGui gui(learning_adapter(book_path));
    handshake(gui);
    gui.send("ucinewgame");
    play_go(gui, "position startpos");  // the adapter has the book open now
    // A build of a new book renames it over the path (new_book_file.h).
    std::filesystem::rename(rebuilt, book_path);
    std::filesystem::remove(book_path + "-lock");
    end_with_scholars_mate(gui);
    gui.send("quit");
    REQUIRE(gui.wait_exit());
  }
  check_learned_win_of_e4(book_path);
}

TEST_CASE("A game without a result on the board waits as pending until the tournament's PGN resolves it",
          "[uci-adapter]") {
  std::string book_path = writable_book_copy("pending");
  std::vector<std::string> moves = play_until_white_resigns(book_path);
  auto book = store::Book::open(book_path, store::OpenMode::ReadWrite, nullptr);
  REQUIRE(book);
  auto pending = learning::pending_games(*book);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].side == Color::White);
  CHECK(pending[0].last_ours);
  REQUIRE(pending[0].game.moves.size() == 3);

  std::string pgn = write_black_win("pending-pgn", moves);
  book.reset();  // the subcommand writes the book now
  Run resolved = graphbook("uci-pending " + quote(book_path) + " " + quote(pgn) + " --json");
  REQUIRE(resolved.status == 0);
  auto report = nlohmann::json::parse(resolved.out);
  CHECK(report["resolved"][0]["resolved"] == 1);
  CHECK(report["resolved"][0]["learned"] == 1);
  CHECK(report["pending"].empty());
  // `graphbook learn` on the same file afterwards: the game is known by its fingerprint, not learned twice.
  REQUIRE(graphbook("learn " + quote(book_path) + " " + quote(pgn) + " --side white").status == 0);
  book = store::Book::open(book_path, store::OpenMode::ReadOnly, nullptr);
  REQUIRE(book);
  CHECK(learning::pending_games(*book).empty());
  Position start;
  auto first = learned(*book, start.key(), move_of(start, moves[0].c_str()));
  CHECK(first.losses == 1);
  CHECK(first.wins == 0);
  CHECK(first.last_result == 3);
}

TEST_CASE("graphbook learn resolves a pending game of the adapter from the tournament's PGN, once",
          "[uci-adapter][learning]") {
  std::string book_path = writable_book_copy("pending-learn");
  std::vector<std::string> moves = play_until_white_resigns(book_path);
  {
    auto book = store::Book::open(book_path, store::OpenMode::ReadOnly, nullptr);
    REQUIRE(book);
    REQUIRE(learning::pending_games(*book).size() == 1);
  }
  std::string pgn = write_black_win("pending-learn-pgn", moves);
  auto learn = [&] {
    Run r = graphbook("learn " + quote(book_path) + " " + quote(pgn) + " --json");
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  auto first = learn();
  REQUIRE(first.size() == 1);
  CHECK(first[0]["games_learned"] == 1);
  CHECK(first[0]["pending_resolved"] == 1);
  CHECK(first[0]["pending_learned"] == 0);  // `learn` itself learned it just before: not counted twice
  CHECK(first[0]["still_pending"] == 0);

  // What the PGN says: 0-1, every move of both sides while the game is in the book, once.
  auto expect_counters = [&] {
    auto book = store::Book::open(book_path, store::OpenMode::ReadOnly, nullptr);
    REQUIRE(book);
    CHECK(learning::pending_games(*book).empty());
    Position pos;
    bool in_book = true;
    std::size_t credited = 0;
    for (const std::string& uci : moves) {
      Move m = move_of(pos, uci.c_str());
      auto edges = book->find_all(pos.key());
      in_book =
          in_book && std::any_of(edges.begin(), edges.end(), [&](const auto& e) { return e.move == m; });
      bool white = pos.side_to_move() == Color::White;
      auto r = learned(*book, pos.key(), m);
      INFO("move " << uci << (in_book ? " in the book" : " out of the book"));
      CHECK(r.wins == (in_book && !white ? 1u : 0u));
      CHECK(r.losses == (in_book && white ? 1u : 0u));
      CHECK(r.draws == 0);
      credited += in_book;
      UndoInfo undo;
      pos.do_move(m, undo);
    }
    CHECK(credited >= 2);  // the adapter's book move and a reply the book knows
  };
  expect_counters();
  auto again = learn();
  CHECK(again[0]["games_learned"] == 0);
  CHECK(again[0]["already_learned"] == 1);
  CHECK(again[0]["pending_resolved"] == 0);
  expect_counters();
}

TEST_CASE("Four adapters learning into one book at once lose no update", "[uci-adapter]") {
  std::string book_path = writable_book_copy("concurrent");
  constexpr int kAdapters = 4, kGames = 5;
  std::vector<std::thread> threads;
  std::atomic<int> finished{0};
  for (int a = 0; a < kAdapters; ++a) {
    threads.emplace_back([&] {
      ScriptedGui gui(learning_adapter(book_path));
      gui.send("uci");
      if (!gui.until_prefix("uciok")) return;
      for (int g = 0; g < kGames; ++g) {
        gui.send("ucinewgame");
        gui.send("position startpos");
        gui.send("go wtime 60000 btime 60000");
        if (!gui.until_prefix("bestmove")) return;
        gui.send(kScholarsMate);
      }
      // One more game that stops without a result: pending.
      gui.send("ucinewgame");
      gui.send("position startpos moves d2d4");
      gui.send("go wtime 60000 btime 60000");
      if (!gui.until_prefix("bestmove")) return;
      gui.send("quit");
      if (gui.wait_exit()) ++finished;
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(finished == kAdapters);
  auto book = store::Book::open(book_path, store::OpenMode::ReadOnly, nullptr);
  REQUIRE(book);
  Position start;
  CHECK(learned(*book, start.key(), move_of(start, "e2e4")).wins == kAdapters * kGames);
  CHECK(learning::pending_games(*book).size() == kAdapters);
}

TEST_CASE("An adapter keeps learning after another process grew the book's map (MDB_MAP_RESIZED)",
          "[uci-adapter]") {
  std::string book_path = writable_book_copy("resized");
  ScriptedGui gui(learning_adapter(book_path));
  handshake(gui);
  gui.send("ucinewgame");
  play_go(gui, "position startpos");  // the adapter has the book open now, at its map size
  {
    // Another writer with a map four times larger commits: LMDB records the new size in the file.
    auto other = store::Book::open(book_path, store::OpenMode::ReadWrite, nullptr, std::size_t(4) << 30);
    REQUIRE(other);
    Position start;
    REQUIRE_FALSE(learning::record_pending_game(*other, {"", {move_of(start, "d2d4")}}, Color::White, true));
  }
  end_with_scholars_mate(gui);
  gui.send("quit");
  REQUIRE(gui.wait_exit());
  check_learned_win_of_e4(book_path);
}
