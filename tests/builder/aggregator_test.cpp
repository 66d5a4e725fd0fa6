// The aggregation of one build thread: once-per-game counting, Polyglot
// occurrence counts, key collisions kept apart, and spilled runs merged back.
#include "builder/aggregator.h"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "builder/run_merger.h"

using namespace gb;
using namespace gb::builder;

namespace {

std::vector<NodeEntry> all_nodes(RunMerger& m) {
  std::vector<NodeEntry> out;
  NodeEntry e;
  while (m.next_node(e)) out.push_back(e);
  return out;
}

std::vector<EdgeEntry> all_edges(RunMerger& m) {
  std::vector<EdgeEntry> out;
  EdgeEntry e;
  while (m.next_edge(e)) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("A position with a known key but another position hash is a collision, never merged", "[builder]") {
  Aggregator agg(1 << 20, "/tmp", Side::Both);
  Move m(SQ_E2, SQ_E4);
  PlyRecord first[] = {{100, 1, m}, {200, 2, Move()}};
  PlyRecord other[] = {{100, 999, m}, {200, 2, Move()}};  // key 100 again, a different position
  GameFacts g;
  g.result = store::Result::WhiteWins;
  REQUIRE(agg.add_game(g, first, 2));
  REQUIRE(agg.add_game(g, other, 2));
  CHECK(agg.collisions() == 1);
  REQUIRE(agg.finish());
  RunMerger merger({&agg.runs()[0]});
  REQUIRE(merger.open(nullptr));
  auto nodes = all_nodes(merger);
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[0].key == 100);
  CHECK(nodes[0].record.position_hash == 1);
  CHECK(nodes[0].record.counters.games == 1);  // the colliding game was not counted into it
  CHECK(nodes[1].record.counters.games == 2);  // key 200 is the same position in both games
}

TEST_CASE("Two runs with one key and different position hashes merge as a counted collision", "[builder]") {
  Aggregator a(1 << 20, "/tmp", Side::Both), b(1 << 20, "/tmp", Side::Both);
  PlyRecord pa[] = {{7, 1, Move()}}, pb[] = {{7, 2, Move()}};
  GameFacts g;
  REQUIRE(a.add_game(g, pa, 1));
  REQUIRE(b.add_game(g, pb, 1));
  REQUIRE(a.finish());
  REQUIRE(b.finish());
  RunMerger merger({&a.runs()[0], &b.runs()[0]});
  REQUIRE(merger.open(nullptr));
  auto nodes = all_nodes(merger);
  REQUIRE(nodes.size() == 1);
  CHECK(nodes[0].record.counters.games == 1);
  CHECK(merger.collisions() == 1);
}

TEST_CASE("Spilled runs and the last in-memory run merge into exact totals", "[builder]") {
  // A budget too small for any table growth: a spill instead of every growth.
  Aggregator agg(1, "/tmp", Side::Both);
  GameFacts g;
  g.result = store::Result::Draw;
  const int games = 250000;  // about 21 spills: 16 of them merged into one bigger run on the way
  const Key first = 0x8000000000000000ull;
  for (int i = 0; i < games; ++i) {
    // Every game: the common first position, then its own position (keys spread over the range).
    PlyRecord plies[] = {{first, 1, Move(SQ_D2, SQ_D4)}, {Key(i + 1) * 0x9E3779B97F4A7C15ull, 5, Move()}};
    REQUIRE(agg.add_game(g, plies, 2));
  }
  REQUIRE(agg.finish());
  CHECK(agg.spills() >= 16);
  CHECK(agg.runs().size() < agg.spills());  // spill files of one level were merged
  std::vector<const Run*> runs;
  for (const Run& r : agg.runs()) runs.push_back(&r);
  RunMerger merger(runs);
  REQUIRE(merger.open(nullptr));
  auto nodes = all_nodes(merger);
  REQUIRE(nodes.size() == games + 1);
  std::uint64_t own = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) CHECK(nodes[i - 1].key < nodes[i].key);  // one merged stream in key order
    if (nodes[i].key == first) {
      CHECK(nodes[i].record.counters.games == games);
      CHECK(nodes[i].record.counters.draws == games);
    } else {
      own += nodes[i].record.counters.games;
    }
  }
  CHECK(own == games);
  auto edges = all_edges(merger);
  REQUIRE(edges.size() == 1);
  CHECK(edges[0].record.counters.games == games);
  CHECK(edges[0].record.occurrences == games);
  CHECK(edges[0].record.score == games);  // a draw scores 1 per occurrence
  // The merge can be replayed from the start (a commit redone after MDB_MAP_FULL).
  REQUIRE(merger.open(nullptr));
  CHECK(all_nodes(merger).size() == games + 1);
}

TEST_CASE("A spill file cut short is reported by the merge, never read as a shorter run", "[builder]") {
  Aggregator agg(1, "/tmp", Side::Both);  // a spill whenever a table fills
  GameFacts g;
  for (int i = 0; i < 30000; ++i) {
    PlyRecord plies[] = {{Key(i + 1) * 0x9E3779B97F4A7C15ull, 5, Move()}};
    REQUIRE(agg.add_game(g, plies, 1));
  }
  REQUIRE(agg.finish());
  REQUIRE(agg.spills() > 0);
  const Run& spilled = agg.runs().front();
  REQUIRE(!spilled.path.empty());
  REQUIRE(::truncate(spilled.path.c_str(), off_t(spilled.edge_offset / 2)) == 0);
  std::vector<const Run*> runs;
  for (const Run& r : agg.runs()) runs.push_back(&r);
  RunMerger merger(runs);
  REQUIRE(merger.open(nullptr));
  auto nodes = all_nodes(merger);
  CHECK(nodes.size() < 30000);
  CHECK(merger.error().find(spilled.path) != std::string::npos);
}
