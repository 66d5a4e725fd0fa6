// Polyglot keys against the format specification's vectors and 4,703 keys
// of real positions computed by an independent implementation.
#include <catch2/catch.hpp>
#include <fstream>

#include "book/chess/position.h"
#include "test_data.h"

using namespace gb;

namespace {

int check_vectors(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto bar1 = line.find('|');
    auto bar2 = line.find('|', bar1 + 1);
    std::string fen = line.substr(0, bar1);
    std::string hex = line.substr(bar1 + 1, bar2 == std::string::npos ? std::string::npos : bar2 - bar1 - 1);
    FenError error;
    auto pos = Position::from_fen(fen, &error);
    INFO(line << " " << error.message());
    REQUIRE(pos);
    CHECK(pos->key() == std::stoull(hex, nullptr, 16));
    ++checked;
  }
  return checked;
}

}  // namespace

TEST_CASE("Polyglot keys match the 29 published vectors", "[chess][polyglot]") {
  CHECK(check_vectors(gb::test::data_path("polyglot/polyglot-zobrist-vectors.txt")) == 29);
}

TEST_CASE("Polyglot keys match 4,703 positions from real games", "[chess][polyglot]") {
  CHECK(check_vectors(gb::test::data_path("polyglot/polyglot-zobrist-vectors-twic0920-derived.txt")) == 4703);
}

TEST_CASE("Incremental keys equal keys computed from scratch after every move", "[chess][polyglot]") {
  // 1.e4 d5 2.e5 f5 3.Ke2 Kf7 from the format spec, played move by move.
  Position pos;
  const char* moves[][2] = {{"e2", "e4"}, {"d7", "d5"}, {"e4", "e5"},
                            {"f7", "f5"}, {"e1", "e2"}, {"e8", "f7"}};
  const Key expected[] = {0x823c9b50fd114196ULL, 0x0756b94461c50fb0ULL, 0x662fafb965db29d4ULL,
                          0x22a48b5a8e47ff78ULL, 0x652a607ca3f242c1ULL, 0x00fdd303c946bdd9ULL};
  for (int i = 0; i < 6; ++i) {
    auto sq = [](const char* s) { return square_of(s[0], s[1]); };
    UndoInfo undo;
    pos.do_move(Move(sq(moves[i][0]), sq(moves[i][1])), undo);
    CHECK(pos.key() == expected[i]);
    CHECK(Position::from_fen(pos.fen())->key() == expected[i]);
  }
}
