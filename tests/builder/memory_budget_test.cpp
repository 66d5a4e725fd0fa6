// The memory budget (--memory) decides how often a build spills sorted runs
// to disk and how they are merged, never what the book holds: a build that
// spills dozens of runs (merged level by level on the way) gives the book of
// a build that spills none, byte for byte in its Polyglot export and count
// for count in info. And an aggregator whose budget is lowered in the middle
// of a build (as the build's fingerprints grow, builder/build.cpp) spills
// once and goes on within the new budget, with exact totals.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "builder/aggregator.h"
#include "builder/dedup_set.h"
#include "builder/ply_partitions.h"
#include "builder/run_merger.h"
#include "process.h"
#include "test_data.h"

using gb::test::graphbook;
using gb::test::info_json;
using gb::test::Output;
using gb::test::read_file;
using gb::test::TempDir;
using namespace gb;
using namespace gb::builder;

namespace {

// info --json without what depends on the file's layout or the clock: the
// size and bytes per edge, and when each source was added.
nlohmann::json counts_of(const std::string& book) {
  nlohmann::json j = info_json(book);
  j.erase("size_bytes");
  j.erase("bytes_per_edge");
  for (auto& source : j["sources"]) source.erase("added_at");
  return j;
}

// The runs of an aggregator that has finished, for a RunMerger.
std::vector<const Run*> runs_of(const Aggregator& a) {
  std::vector<const Run*> runs;
  for (const Run& r : a.runs()) runs.push_back(&r);
  return runs;
}

}  // namespace

TEST_CASE("A build that spills dozens of runs under a tiny --memory gives the book of one that spills none",
          "[builder]") {
  TempDir dir;
  // Three collections at full depth: 6,885 games, positions enough for
  // some 20 spills on each of the two threads, and 44 on one thread, whose
  // first 32 are merged into one of the next level before the commit.
  std::vector<std::string> inputs = {
      gb::test::data_path("pgn/small/twic0920.pgn"), gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn"),
      gb::test::data_path("pgn/small/tcec-standard-nocomments-every8th.pgn.zst")};
  // And twic0920 again, after the others, as another file (a blank line
  // first): its 2,245 games are duplicates of games whose fingerprints
  // spilled to runs long before.
  {
    std::ifstream twic(inputs[0], std::ios::binary);
    inputs.push_back(
        dir.write("twic-again.pgn", "\n" + std::string(std::istreambuf_iterator<char>(twic), {})));
  }
  auto build = [&](const std::string& book, const char* memory, const char* threads = "2") {
    std::vector<std::string> args = {"build", dir.file(book)};
    args.insert(args.end(), inputs.begin(), inputs.end());
    for (const char* a : {"--max-ply", "0", "--json", "--quiet", "--threads", threads, "--memory", memory})
      args.push_back(a);
    Output o = graphbook(args);
    INFO(o.err);
    REQUIRE(o.status == 0);
    return nlohmann::json::parse(o.out);
  };
  auto spilled = build("small.book", "1K");
  auto whole = build("large.book", "1G");
  // And on one thread, whose one key range spills them all: enough for a
  // merge of its spills into one of the next level.
  auto one = build("one.book", "1K", "1");
  CHECK(spilled["spilled_runs"].get<int>() >= 40);  // some 20 a thread
  CHECK(one["spilled_runs"].get<std::size_t>() >= PlyPartitions::kSpillsPerMerge);
  CHECK(whole["spilled_runs"] == 0);
  CHECK(spilled["fingerprint_spilled_runs"].get<std::size_t>() >= 2 * DedupSet::kRunsPerMerge);  // merged too
  CHECK(whole["fingerprint_spilled_runs"] == 0);
  CHECK(spilled["duplicates"] == 2245);  // the shared data's README: twic0920 holds 2,245 games
  CHECK(whole["duplicates"] == 2245);
  CHECK(spilled["nodes_written"] == whole["nodes_written"]);
  CHECK(spilled["edges_written"] == whole["edges_written"]);
  CHECK(spilled["games_added"] == whole["games_added"]);
  CHECK(counts_of(dir.file("small.book")) == counts_of(dir.file("large.book")));
  CHECK(counts_of(dir.file("one.book")) == counts_of(dir.file("large.book")));
  for (const char* book : {"small", "large", "one"}) {
    Output o =
        graphbook({"export", dir.file(std::string(book) + ".book"), dir.file(std::string(book) + ".bin")});
    INFO(o.err);
    REQUIRE(o.status == 0);
  }
  const std::string small_bin = read_file(dir.file("small.bin")),
                    large_bin = read_file(dir.file("large.bin"));
  CHECK(small_bin.size() > 16 * 400000);  // Polyglot entries of 16 bytes: not an empty export
  CHECK(small_bin == large_bin);
  CHECK(read_file(dir.file("one.bin")) == large_bin);
}

TEST_CASE("An aggregator whose budget is lowered spills once and goes on within it, with exact totals",
          "[builder]") {
  // 64 MiB: the tables grow far past their first size (a few MiB of slots).
  Aggregator agg(std::size_t(64) << 20, "/tmp", Side::Both);
  GameFacts g;
  g.result = store::Result::WhiteWins;
  const Key first = 0x8000000000000000ull;
  auto add = [&](int i) {
    // The common first position, then the game's own (keys spread over the range).
    PlyRecord plies[] = {{first, 1, Move(SQ_E2, SQ_E4)}, {Key(i + 1) * 0x9E3779B97F4A7C15ull, 5, Move()}};
    REQUIRE_FALSE(agg.add_game(g, plies, 2));
  };
  const int games = 200000;
  for (int i = 0; i < games / 2; ++i) add(i);
  REQUIRE(agg.spills() == 0);
  // Less than the grown tables: the next game spills them, and they start
  // again at their first size, which spills when full (16,384 node slots at
  // a load of 0.7: some 11,000 positions), not at every game.
  agg.set_budget(1);
  for (int i = games / 2; i < games; ++i) add(i);
  CHECK(agg.spills() >= 5);
  CHECK(agg.spills() <= 20);
  REQUIRE_FALSE(agg.finish());
  RunMerger merger(runs_of(agg));
  REQUIRE_FALSE(merger.open());
  std::uint64_t own = 0, nodes = 0;
  NodeEntry n;
  while (merger.next_node(n)) {
    ++nodes;
    if (n.key == first)
      CHECK(n.record.counters.games == games);
    else
      own += n.record.counters.games;
  }
  CHECK(nodes == games + 1);
  CHECK(own == games);
  EdgeEntry e;
  REQUIRE(merger.next_edge(e));
  CHECK(e.record.counters.games == games);
  CHECK(e.record.occurrences == games);
  CHECK_FALSE(merger.next_edge(e));
}

TEST_CASE(
    "A table that its tallies push over the budget keeps its size and their memory for the next run, "
    "with exact totals",
    "[builder]") {
  // Games in identical pairs, like a collection of lines that share their
  // positions: every slot a pair reaches gets a tally (56 bytes beside its
  // 24), so the tallies, not the slots, take the budget. Each run's games
  // bring as many again, so the next table is sized beside them, not
  // started at its first size to grow back three times per run.
  const std::size_t budget = std::size_t(8) << 20;
  Aggregator agg(budget, "/tmp", Side::Both);
  Aggregator whole(std::size_t(1) << 30, "/tmp", Side::Both);  // no spill: the totals to match
  GameFacts g;
  const int pairs = 40000, plies = 10;
  std::vector<PlyRecord> game(plies);
  std::size_t spills_seen = 0, first_homes = 0;
  std::vector<std::size_t> homes_after;  // the table's home slots after each spill
  for (int p = 0; p < pairs; ++p) {
    g.result = p % 3 == 0   ? store::Result::WhiteWins
               : p % 3 == 1 ? store::Result::Draw
                            : store::Result::BlackWins;
    for (int i = 0; i < plies; ++i)
      game[i] = {Key(p * plies + i + 1) * 0x9E3779B97F4A7C15ull, std::uint32_t(i + 1),
                 i + 1 < plies ? Move(SQ_E2, SQ_E4) : Move()};
    for (int twice = 0; twice < 2; ++twice) {
      REQUIRE_FALSE(agg.add_game(g, game.data(), game.size()));
      REQUIRE_FALSE(whole.add_game(g, game.data(), game.size()));
      if (agg.spills() != spills_seen) {
        spills_seen = agg.spills();
        homes_after.push_back(agg.home_slots());
      }
      if (spills_seen == 0) first_homes = std::max(first_homes, agg.home_slots());
    }
  }
  INFO("first table " << first_homes << " home slots");
  REQUIRE(homes_after.size() >= 4);
  REQUIRE(whole.spills() == 0);
  // The first run's table grew from its first size (2^15 home slots) to
  // where its tallies filled the budget; the later ones keep about that size.
  CHECK(first_homes >= 4 * (std::size_t(1) << 15));
  for (std::size_t h : homes_after) {
    CHECK(h >= first_homes / 2);
    CHECK(h <= first_homes);
  }
  REQUIRE_FALSE(agg.finish());
  REQUIRE_FALSE(whole.finish());
  RunMerger spilled(runs_of(agg)), one(runs_of(whole));
  REQUIRE_FALSE(spilled.open());
  REQUIRE_FALSE(one.open());
  std::size_t nodes = 0, edges = 0;
  NodeEntry a, b;
  while (one.next_node(b)) {
    REQUIRE(spilled.next_node(a));
    REQUIRE(a.key == b.key);
    CHECK(a.record.counters.games == 2);  // the pair
    CHECK(a.record == b.record);
    ++nodes;
  }
  CHECK_FALSE(spilled.next_node(a));
  EdgeEntry x, y;
  while (one.next_edge(y)) {
    REQUIRE(spilled.next_edge(x));
    REQUIRE((x.key == y.key && x.move == y.move));
    CHECK(x.record.occurrences == 2);
    CHECK(x.record == y.record);
    ++edges;
  }
  CHECK_FALSE(spilled.next_edge(x));
  CHECK(nodes == std::size_t(pairs) * plies);
  CHECK(edges == std::size_t(pairs) * (plies - 1));
}

TEST_CASE("A table's first size follows the input it expects, up to a share of its budget", "[builder]") {
  const std::size_t budget = std::size_t(8) << 20;
  const std::size_t smallest = std::size_t(1) << 15;  // home slots of a table that expects nothing
  const double room = double(budget) / sizeof(Slot);  // the slots the budget holds
  auto first = [&](std::size_t memory, std::uint64_t expected) {
    return Aggregator(memory, "/tmp", Side::Both, {}, expected).home_slots();
  };
  CHECK(first(budget, 0) == smallest);      // unknown input (stdin, .zst)
  CHECK(first(budget, 10000) == smallest);  // a small one: 14,286 home slots at a load of 0.7
  CHECK(first(budget, 100000) == 142857);   // 100,000 / 0.7
  const std::size_t large = first(budget, std::uint64_t(1) << 32);  // more than the budget holds
  CHECK(double(large) >= 0.5 * room);
  CHECK(double(large) <= 0.6 * room);
  CHECK(first(std::size_t(1) << 10, std::uint64_t(1) << 32) ==
        smallest);  // a budget below the smallest table

  // Sized up front, the table counts as one grown to that size.
  Aggregator agg(budget, "/tmp", Side::Both, {}, 100000);
  Aggregator grown(budget, "/tmp", Side::Both);
  GameFacts g;
  g.result = store::Result::Draw;
  for (int i = 0; i < 30000; ++i) {
    PlyRecord plies[] = {{Key(i + 1) * 0x9E3779B97F4A7C15ull, 1, Move(SQ_G1, SQ_F3)},
                         {Key(i + 1) * 0xC2B2AE3D27D4EB4Full, 2, Move()}};
    REQUIRE_FALSE(agg.add_game(g, plies, 2));
    REQUIRE_FALSE(grown.add_game(g, plies, 2));
  }
  CHECK(agg.home_slots() == 142857);  // 90,000 slots: within its load, no growth
  CHECK(grown.home_slots() > smallest);
  REQUIRE_FALSE(agg.finish());
  REQUIRE_FALSE(grown.finish());
  RunMerger sized(runs_of(agg)), other(runs_of(grown));
  REQUIRE_FALSE(sized.open());
  REQUIRE_FALSE(other.open());
  std::size_t nodes = 0;
  NodeEntry a, b;
  while (other.next_node(b)) {
    REQUIRE(sized.next_node(a));
    CHECK(a.key == b.key);
    CHECK(a.record == b.record);
    ++nodes;
  }
  CHECK_FALSE(sized.next_node(a));
  CHECK(nodes == 60000);
}
