// A book imported from a Polyglot .bin has weights and no games: probe must
// show and order its moves by those weights and pick must choose by them, as
// the .bin itself would. The .bin is the one Debian's `polyglot make-book`
// writes in the test from a small PGN; the expected weights are read from it
// byte by byte (16-byte big-endian entries: key, move, weight, learn).
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "probe_helpers.h"

using namespace gb;
using namespace gb::test;

namespace {

// Twelve short games whose start position gets make-book weights 9 (e4), 5
// (d4) and 1 (Nf3), and 0 for c4 (make-book writes no weight-0 entry).
// Weight = 2 * wins + draws of the side that moved, over every game.
const char* kGames = R"([Event "a"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "b"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 1/2-1/2

[Event "c"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nf6 1-0

[Event "d"]
[Result "0-1"]

1. e4 c5 2. Nf3 d6 0-1

[Event "e"]
[Result "0-1"]

1. e4 c5 2. Nc3 Nc6 0-1

[Event "f"]
[Result "1-0"]

1. d4 d5 2. c4 e6 1-0

[Event "g"]
[Result "1/2-1/2"]

1. d4 Nf6 2. c4 g6 1/2-1/2

[Event "h"]
[Result "1-0"]

1. d4 d5 2. Nf3 Nf6 1-0

[Event "i"]
[Result "1/2-1/2"]

1. Nf3 d5 1/2-1/2

[Event "j"]
[Result "0-1"]

1. c4 e5 0-1

[Event "k"]
[Result "1-0"]

1. e4 e6 2. d4 d5 1-0

[Event "l"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 1-0
)";

// The same games' moves, to reach every position they pass through.
const std::vector<std::vector<const char*>> kLines = {{"e4", "e5", "Nf3", "Nc6", "Bb5", "a6"},
                                                      {"e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"},
                                                      {"e4", "e5", "Nf3", "Nf6"},
                                                      {"e4", "c5", "Nf3", "d6"},
                                                      {"e4", "c5", "Nc3", "Nc6"},
                                                      {"d4", "d5", "c4", "e6"},
                                                      {"d4", "Nf6", "c4", "g6"},
                                                      {"d4", "d5", "Nf3", "Nf6"},
                                                      {"Nf3", "d5"},
                                                      {"c4", "e5"},
                                                      {"e4", "e6", "d4", "d5"},
                                                      {"e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"}};

struct Imported {
  std::string bin, book;
};

// make-book's .bin of kGames and a book imported from it, made once.
const Imported& imported() {
  static const Imported made = [] {
    Imported m{temp_dir() + "/games.bin", temp_dir() + "/imported.book"};
    std::string pgn = temp_dir() + "/games.pgn";
    std::ofstream(pgn) << kGames;
    std::string make_book = "/usr/games/polyglot make-book -pgn " + quote(pgn) + " -bin " + quote(m.bin) +
                            " -min-game 1 >/dev/null 2>&1";
    if (std::system(make_book.c_str()) != 0) std::fprintf(stderr, "polyglot make-book failed\n");
    Run r = graphbook("import " + quote(m.book) + " " + quote(m.bin), true);
    if (r.status != 0) std::fprintf(stderr, "graphbook import failed: %s\n", r.out.c_str());
    return m;
  }();
  return made;
}

// Every position the games pass through (once each), with its FEN.
std::vector<Position> positions_of_the_games() {
  std::vector<Position> out;
  std::set<Key> seen;
  for (const auto& line : kLines) {
    Position pos;
    for (std::size_t i = 0; i <= line.size(); ++i) {
      if (seen.insert(pos.key()).second) out.push_back(pos);
      if (i == line.size()) break;
      UndoInfo undo;
      pos.do_move(parse_san(pos, line[i]).move, undo);
    }
  }
  return out;
}

std::string fen_arg(const Position& pos) { return " --fen " + quote(pos.fen()) + " --no-names"; }

}  // namespace

TEST_CASE("Probe of an imported Polyglot book shows the .bin's weights, heaviest first", "[probe][import]") {
  const Imported& m = imported();
  int positions = 0;
  for (const Position& pos : positions_of_the_games()) {
    auto expected = polyglot_weights(m.bin, pos.key());
    if (expected.empty()) continue;  // make-book wrote no entry here (the last move of a game)
    ++positions;
    INFO(pos.fen());
    auto j = graphbook_json("probe " + quote(m.book) + fen_arg(pos) + " --json");
    REQUIRE(j.is_object());
    REQUIRE(j["moves"].size() == expected.size());
    std::map<std::uint16_t, std::uint16_t> got;
    int previous = 1 << 20;
    for (const auto& move : j["moves"]) {
      int weight = move["weight"].get<int>();
      got[polyglot_move(move["uci"])] = std::uint16_t(weight);
      CHECK(move["imported_weight"] == weight);
      CHECK(weight <= previous);  // heaviest first
      previous = weight;
    }
    CHECK(got == expected);
  }
  CHECK(positions >= 8);  // the start, after 1.e4, 1.d4, 1.e4 e5, ...

  // The text table: the weight column, in the .bin's order, and no made-up 0.0 % results.
  Run text = graphbook("probe " + quote(m.book) + " --no-names");
  CHECK(text.status == 0);
  auto e4 = text.out.find("\ne4 "), d4 = text.out.find("\nd4 "), nf3 = text.out.find("\nNf3 ");
  REQUIRE(e4 != std::string::npos);
  REQUIRE(d4 != std::string::npos);
  REQUIRE(nf3 != std::string::npos);
  CHECK(e4 < d4);
  CHECK(d4 < nf3);
  auto e4_row = text.out.substr(e4 + 1, text.out.find('\n', e4 + 1) - e4 - 1);
  CHECK(e4_row.find(" 9 ") != std::string::npos);
  CHECK(text.out.find("weight") != std::string::npos);
  CHECK(text.out.find("0.0") == std::string::npos);
}

TEST_CASE("Pick on an imported Polyglot book chooses by the .bin's weights under every policy",
          "[probe][import][pick]") {
  const Imported& m = imported();
  int positions = 0;
  for (const Position& pos : positions_of_the_games()) {
    auto expected = polyglot_weights(m.bin, pos.key());
    if (expected.empty()) continue;
    ++positions;
    INFO(pos.fen());
    double sum = 0;
    std::uint16_t heaviest = expected.begin()->first;
    for (auto [move, weight] : expected) {
      sum += weight;
      if (weight > expected.at(heaviest)) heaviest = move;
    }
    int ties = 0;
    for (auto [move, weight] : expected) ties += weight == expected.at(heaviest);

    auto best = graphbook_json("pick " + quote(m.book) + fen_arg(pos) + " --policy best --json");
    REQUIRE(best["move"].is_object());
    if (ties == 1) CHECK(polyglot_move(best["move"]["uci"]) == heaviest);

    for (const char* policy : {"weighted", "uniform", "learned"}) {
      for (int seed = 0; seed < 4; ++seed) {
        Run r = graphbook("pick " + quote(m.book) + fen_arg(pos) + " --policy " + policy + " --seed " +
                          std::to_string(seed));
        INFO(policy << " seed " << seed << ": " << r.out);
        REQUIRE(r.status == 0);
        CHECK(expected.count(polyglot_move(r.out.substr(0, 4))) == 1);
      }
    }
    // Weighted: each move's probability is its weight over the position's total.
    auto w = graphbook_json("pick " + quote(m.book) + fen_arg(pos) + " --policy weighted --explain --json");
    REQUIRE(w["candidates"].size() == expected.size());
    for (const auto& c : w["candidates"])
      CHECK(c["probability"].get<double>() == Approx(expected.at(polyglot_move(c["uci"])) / sum));
  }
  CHECK(positions >= 8);
}

TEST_CASE("On an imported Polyglot book the learned policy avoids a move that lost, by the weights",
          "[probe][import][learning]") {
  const Imported& m = imported();
  std::string book = temp_dir() + "/imported-learn.book";
  std::filesystem::copy_file(m.book, book, std::filesystem::copy_options::overwrite_existing);
  std::string pgn = temp_dir() + "/imported-lost.pgn";
  std::ofstream(pgn) << "[Event \"t\"]\n[White \"me\"]\n[Black \"you\"]\n[Result \"0-1\"]\n\n1. e4 c5 0-1\n";
  REQUIRE(graphbook("learn " + quote(book) + " " + quote(pgn) + " --player me").status == 0);

  auto start = polyglot_weights(m.bin, Position().key());
  REQUIRE(start[polyglot_move("e2e4")] == 9);
  auto j = graphbook_json("pick " + quote(book) + " --policy learned --explain --json --no-names --seed 1");
  REQUIRE(j["candidates"].size() == start.size());
  for (const auto& c : j["candidates"]) {
    INFO(c.dump());
    if (c["uci"] == "e2e4") {
      CHECK(c["weight"] == 0);
      CHECK(c["reason"].get<std::string>().find("lost last time") != std::string::npos);
    } else {
      CHECK(c["weight"].get<double>() == Approx(start[polyglot_move(c["uci"])]));  // nothing learned
    }
  }
  for (int seed = 0; seed < 8; ++seed)
    CHECK(graphbook("pick " + quote(book) + " --policy learned --no-names --seed " + std::to_string(seed))
              .out.substr(0, 4) != "e2e4");
}
