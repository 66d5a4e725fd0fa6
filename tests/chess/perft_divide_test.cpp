// `graphbook perft --divide` through the real binary, move by move, against
// published counts: the chessprogramming wiki's divide of the start position,
// its perft totals of the start position and Kiwipete, and the per-move counts
// of Stockfish's `go perft` (an independent move generator, run here).
#include <stdio.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "run_graphbook.h"

namespace {

const char* kStockfish = "/usr/games/stockfish";
const char* kKiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const char* kStartFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

struct Divide {
  std::map<std::string, std::uint64_t> moves;  // UCI move -> leaf count below it
  std::uint64_t total = 0;                     // the "Nodes searched" line
  int lines = 0;                               // move lines, to see a move printed twice
};

// Lines "e2e4: 405385" and "Nodes searched: 4865609", as both graphbook and Stockfish print them.
Divide parse_divide(const std::string& text) {
  Divide d;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Nodes searched: ", 0) == 0) {
      d.total = std::stoull(line.substr(16));
      continue;
    }
    auto colon = line.find(": ");
    if (colon < 4 || colon > 5 || line.find(' ') != colon + 1) continue;
    d.moves[line.substr(0, colon)] = std::stoull(line.substr(colon + 2));
    ++d.lines;
  }
  return d;
}

Divide graphbook_divide(const std::string& fen, int depth) {
  gb::test::Run r =
      gb::test::graphbook("perft " + gb::test::quote(fen) + " " + std::to_string(depth) + " --divide");
  INFO(r.err);
  REQUIRE(r.status == 0);
  return parse_divide(r.out);
}

// Stockfish's `go perft DEPTH`, which prints the same divide.
Divide stockfish_divide(const std::string& fen, int depth) {
  std::string command =
      "printf 'position fen " + fen + "\\ngo perft " + std::to_string(depth) + "\\nquit\\n' | " + kStockfish;
  gb::test::Run r = gb::test::run_shell(command);
  REQUIRE(r.status == 0);
  return parse_divide(r.out);
}

}  // namespace

TEST_CASE("perft --divide of the start position at depth 5 is the chessprogramming wiki's",
          "[chess][perft]") {
  // https://www.chessprogramming.org/Perft#Divide: Stockfish's output for perft 5 from the start.
  const std::map<std::string, std::uint64_t> published = {
      {"a2a3", 181046}, {"b2b3", 215255}, {"c2c3", 222861}, {"d2d3", 328511}, {"e2e3", 402988},
      {"f2f3", 178889}, {"g2g3", 217210}, {"h2h3", 181044}, {"a2a4", 217832}, {"b2b4", 216145},
      {"c2c4", 240082}, {"d2d4", 361790}, {"e2e4", 405385}, {"f2f4", 198473}, {"g2g4", 214048},
      {"h2h4", 218829}, {"b1a3", 198572}, {"b1c3", 234656}, {"g1f3", 233491}, {"g1h3", 198502}};
  Divide d = graphbook_divide("startpos", 5);
  CHECK(d.lines == 20);
  CHECK(d.moves == published);
  CHECK(d.total == 4865609);  // https://www.chessprogramming.org/Perft_Results, initial position, depth 5
}

TEST_CASE("perft --divide of the start position and Kiwipete at depths 1 to 3 is Stockfish's, move by move",
          "[chess][perft]") {
  // Totals from https://www.chessprogramming.org/Perft_Results: the initial
  // position 20, 400, 8,902; Kiwipete (position 2) 48, 2,039, 97,862.
  const std::map<std::string, std::vector<std::uint64_t>> published_totals = {{kStartFen, {20, 400, 8902}},
                                                                              {kKiwipete, {48, 2039, 97862}}};
  for (const auto& [fen, totals] : published_totals) {
    for (int depth = 1; depth <= 3; ++depth) {
      INFO(fen << " depth " << depth);
      const std::uint64_t total = totals[std::size_t(depth - 1)];
      Divide want = stockfish_divide(fen, depth);
      REQUIRE(want.total == total);  // the oracle itself agrees with the published total
      REQUIRE(want.moves.size() == std::size_t(totals[0]));
      Divide got = graphbook_divide(fen, depth);
      CHECK(got.lines == int(want.moves.size()));
      CHECK(got.moves == want.moves);
      CHECK(got.total == total);
    }
  }
}
