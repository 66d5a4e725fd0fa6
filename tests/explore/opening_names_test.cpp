#include "book/explore/opening_names.h"

#include <catch2/catch.hpp>

#include "book/chess/notation.h"
#include "test_data.h"

using namespace gb;
using gb::explore::ExploreError;
using gb::explore::OpeningTable;

namespace {

Position play(std::initializer_list<const char*> sans) {
  Position pos;
  for (const char* san : sans) {
    auto r = parse_san(pos, san);
    REQUIRE(r.ok());
    UndoInfo undo;
    pos.do_move(r.move, undo);
  }
  return pos;
}

const OpeningTable& lichess_table() {
  static const OpeningTable table = [] {
    OpeningTable t;
    for (const char* f : {"a", "b", "c", "d", "e"}) {
      auto error = t.add_file(test::data_path(std::string("eco/") + f + ".tsv"));
      INFO((error ? error->message : ""));
      REQUIRE_FALSE(error);
    }
    return t;
  }();
  return table;
}

}  // namespace

// The lichess table names "1. d4 d5 2. Nf3" (d.tsv: D02 Queen's Pawn Game:
// Zukertort Variation) and has no line "1. Nf3 d5 2. d4" (checked with grep).
TEST_CASE("A transposed move order gets the name of the position it reaches", "[explore][names]") {
  const OpeningTable& table = lichess_table();
  const auto* by_d4 = table.find(play({"d4", "d5", "Nf3"}));
  const auto* by_nf3 = table.find(play({"Nf3", "d5", "d4"}));
  REQUIRE(by_d4);
  REQUIRE(by_nf3);
  CHECK(by_d4 == by_nf3);
  CHECK(by_nf3->eco == "D02");
  CHECK(by_nf3->name == "Queen's Pawn Game: Zukertort Variation");
}

TEST_CASE("Each line of the lichess tables names the position it reaches", "[explore][names]") {
  const OpeningTable& table = lichess_table();
  // a.tsv: "A00<TAB>Amar Opening<TAB>1. Nh3"; b.tsv "B20 Sicilian Defense 1. e4 c5".
  REQUIRE(table.find(play({"Nh3"})));
  CHECK(table.find(play({"Nh3"}))->name == "Amar Opening");
  REQUIRE(table.find(play({"e4", "c5"})));
  CHECK(table.find(play({"e4", "c5"}))->eco == "B20");
  CHECK(table.find(play({"e4", "c5"}))->name == "Sicilian Defense");
  CHECK_FALSE(table.find(Position()));
  // 3812 lines minus 5 headers; several lines share a position, so fewer names.
  CHECK(table.size() > 3000);
  CHECK(table.size() <= 3807);
}

TEST_CASE("A position without an entry inherits its nearest named ancestor", "[explore][names]") {
  const OpeningTable& table = lichess_table();
  // No line of the tables starts "1. e4 c5 2. Qh5" (grep), while "1. e4 c5" is
  // B20 Sicilian Defense.
  std::vector<Key> line;
  Position pos;
  line.push_back(pos.key());
  for (const char* san : {"e4", "c5", "Qh5", "Qa5"}) {
    UndoInfo undo;
    pos.do_move(parse_san(pos, san).move, undo);
    line.push_back(pos.key());
  }
  CHECK_FALSE(table.find(line.back()));
  const auto* name = table.nearest(line);
  REQUIRE(name);
  CHECK(name->name.starts_with("Sicilian Defense"));
  CHECK(table.nearest(std::span<const Key>(line.data(), 1)) == nullptr);
}

TEST_CASE("The pgn-extract ECO table names positions with Opening and Variation", "[explore][names]") {
  OpeningTable table;
  REQUIRE_FALSE(table.add_file(test::data_path("eco/pgn-extract-eco.pgn")));
  // The file's third entry: [ECO "A00"] [Opening "Polish"] [Variation "Tuebingen variation"] 1. b4 Nh6
  const auto* name = table.find(play({"b4", "Nh6"}));
  REQUIRE(name);
  CHECK(name->eco == "A00");
  CHECK(name->name == "Polish: Tuebingen variation");
}

TEST_CASE("A table line with an illegal move is an error naming file and line", "[explore][names]") {
  OpeningTable table;
  auto error = table.add_tsv("eco\tname\tpgn\nA00\tGood\t1. e4\nB00\tBad\t1. e4 e4\n", "bad.tsv");
  REQUIRE(error);
  CHECK(error->code == ExploreError::Code::Names);
  CHECK(error->message.find("bad.tsv:3") != std::string::npos);
  error = table.add_file("/nonexistent/eco.tsv");
  REQUIRE(error);
  CHECK(error->code == ExploreError::Code::Names);
  CHECK(error->message.find("/nonexistent/eco.tsv") != std::string::npos);
}
