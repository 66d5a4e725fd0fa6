// Perft against published node counts: the chessprogramming wiki positions,
// the 126-position suite, 960 Chess960 starts and the tricky regressions.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "book/chess/movegen.h"
#include "test_data.h"

using namespace gb;

namespace {

struct PerftCase {
  std::string fen;
  std::vector<std::pair<int, std::uint64_t>> counts;  // depth, nodes
  std::string id;
};

// EPD lines "FEN ;D1 n ;D2 n ... [;id "x"]".
std::vector<PerftCase> read_epd(const std::string& path) {
  std::vector<PerftCase> cases;
  std::ifstream in(path);
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string part;
    PerftCase c;
    std::getline(ss, c.fen, ';');
    while (std::getline(ss, part, ';')) {
      std::stringstream ps(part);
      std::string tag;
      ps >> tag;
      if (tag.size() >= 2 && tag[0] == 'D')
        c.counts.push_back({std::stoi(tag.substr(1)), 0}), ps >> c.counts.back().second;
      else if (tag == "id")
        c.id = part;
    }
    cases.push_back(c);
  }
  return cases;
}

// "id / epd / perft d n" blocks.
std::vector<PerftCase> read_perft(const std::string& path) {
  std::vector<PerftCase> cases;
  std::ifstream in(path);
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("id ", 0) == 0)
      cases.push_back({"", {}, line.substr(3)});
    else if (line.rfind("epd ", 0) == 0)
      cases.back().fen = line.substr(4);
    else if (line.rfind("perft ", 0) == 0) {
      std::stringstream ss(line.substr(6));
      int d;
      std::uint64_t n;
      ss >> d >> n;
      cases.back().counts.push_back({d, n});
    }
  }
  return cases;
}

// Checks every case up to max_nodes leaves per position.
void check(const std::vector<PerftCase>& cases, std::uint64_t max_nodes, int min_depth = 1) {
  REQUIRE(!cases.empty());
  for (const auto& c : cases) {
    FenError error;
    auto pos = Position::from_fen(c.fen, &error);
    INFO(c.id << " " << c.fen << " " << error.message());
    REQUIRE(pos);
    for (auto [depth, nodes] : c.counts) {
      if (nodes > max_nodes && depth > min_depth) continue;
      INFO("depth " << depth);
      CHECK(perft(*pos, depth) == nodes);
    }
  }
}

}  // namespace

TEST_CASE("Perft matches the chessprogramming wiki counts for its six positions", "[chess]") {
  check(read_epd(gb::test::data_path("perft/cpw-positions.epd")), 5'000'000);
}

TEST_CASE("Perft matches the 126-position suite to depth 4", "[chess]") {
  auto cases = read_epd(gb::test::data_path("perft/ethereal-standard.epd"));
  CHECK(cases.size() >= 126);  // the classic 126 and two extra positions
  for (auto& c : cases) std::erase_if(c.counts, [](auto& dn) { return dn.first > 4; });
  check(cases, UINT64_MAX);
}

TEST_CASE("Perft matches the Chess960 suite to depth 3", "[chess][chess960]") {
  auto cases = read_epd(gb::test::data_path("perft/ethereal-fischer.epd"));
  CHECK(cases.size() == 960);
  for (auto& c : cases) std::erase_if(c.counts, [](auto& dn) { return dn.first > 3; });
  check(cases, UINT64_MAX);
}

TEST_CASE("Perft matches python-chess's Chess960 positions to 1M nodes", "[chess][chess960]") {
  check(read_perft(gb::test::data_path("perft/python-chess-chess960.perft")), 1'000'000);
}

TEST_CASE("Perft matches the tricky en passant, pin and castling regressions", "[chess]") {
  check(read_perft(gb::test::data_path("perft/python-chess-tricky.perft")), 20'000'000);
  check(read_perft(gb::test::data_path("perft/scalachess-tricky.perft")), 20'000'000);
}

TEST_CASE("Perft matches the 126-position suite to depth 6", "[chess][slow]") {
  check(read_epd(gb::test::data_path("perft/ethereal-standard.epd")), UINT64_MAX);
}

TEST_CASE("Perft matches the Chess960 suite to depth 5", "[chess][chess960][slow]") {
  auto cases = read_epd(gb::test::data_path("perft/ethereal-fischer.epd"));
  for (auto& c : cases) std::erase_if(c.counts, [](auto& dn) { return dn.first > 5; });
  check(cases, UINT64_MAX);
}

namespace {

// The castling moves generate_legal lists (perft-verified above), against
// castling_move, in pos and every position below it to depth.
void check_castling(Position& pos, int depth) {
  MoveList moves;
  generate_legal(pos, moves);
  for (bool king_side : {true, false}) {
    Move listed;
    for (Move m : moves)
      if (m.kind() == Move::Kind::Castling && (m.to() > m.from()) == king_side) listed = m;
    INFO(pos.fen() << (king_side ? " king side" : " queen side"));
    CHECK(castling_move(pos, king_side) == listed);
  }
  if (depth == 0) return;
  UndoInfo undo;
  for (Move m : moves) {
    pos.do_move(m, undo);
    check_castling(pos, depth - 1);
    pos.undo_move(m, undo);
  }
}

}  // namespace

TEST_CASE("The castling move alone is the one the legal move list holds", "[chess][chess960]") {
  std::vector<PerftCase> cases = read_epd(gb::test::data_path("perft/cpw-positions.epd"));
  for (const char* file : {"perft/ethereal-standard.epd", "perft/ethereal-fischer.epd"})
    for (auto& c : read_epd(gb::test::data_path(file))) cases.push_back(c);
  for (const char* file : {"perft/python-chess-tricky.perft", "perft/python-chess-chess960.perft"})
    for (auto& c : read_perft(gb::test::data_path(file))) cases.push_back(c);
  REQUIRE(cases.size() > 2000);  // two suites of the 960 Chess960 starts among them
  for (const auto& c : cases) {
    auto pos = Position::from_fen(c.fen);
    REQUIRE(pos);
    check_castling(*pos, 2);
  }
}
