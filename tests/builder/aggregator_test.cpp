// The aggregation of one build thread: once-per-game counting, Polyglot
// occurrence counts, key collisions kept apart, and spilled runs merged back.
#include "builder/aggregator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <optional>

#include "book/store/section_groups.h"
#include "builder/run_file.h"
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
  REQUIRE_FALSE(agg.add_game(g, first, 2));
  REQUIRE_FALSE(agg.add_game(g, other, 2));
  CHECK(agg.collisions() == 1);
  REQUIRE_FALSE(agg.finish());
  RunMerger merger({&agg.runs()[0]});
  REQUIRE_FALSE(merger.open());
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
  REQUIRE_FALSE(a.add_game(g, pa, 1));
  REQUIRE_FALSE(b.add_game(g, pb, 1));
  REQUIRE_FALSE(a.finish());
  REQUIRE_FALSE(b.finish());
  RunMerger merger({&a.runs()[0], &b.runs()[0]});
  REQUIRE_FALSE(merger.open());
  auto nodes = all_nodes(merger);
  REQUIRE(nodes.size() == 1);
  CHECK(nodes[0].record.counters.games == 1);
  CHECK(merger.collisions() == 1);
}

TEST_CASE("A collision across runs keeps the node of the earliest run, as one run keeps the first",
          "[builder]") {
  // Game one reaches key 7 as position 1. Game two passes key 3, then
  // reaches key 7 as another position (hash 2): one table keeps position 1.
  PlyRecord one[] = {{7, 1, Move()}};
  PlyRecord two[] = {{3, 5, Move(SQ_E2, SQ_E4)}, {7, 2, Move()}};
  GameFacts g;
  Aggregator together(1 << 20, "/tmp", Side::Both);
  REQUIRE_FALSE(together.add_game(g, one, 1));
  REQUIRE_FALSE(together.add_game(g, two, 2));
  REQUIRE_FALSE(together.finish());
  RunMerger single({&together.runs()[0]});
  REQUIRE_FALSE(single.open());
  const auto expected = all_nodes(single);
  REQUIRE(expected.size() == 2);
  REQUIRE(expected[1].key == 7);
  REQUIRE(expected[1].record.position_hash == 1);
  // The same games in two runs, in their order: the later run's stream
  // comes to key 7 after the earlier one's already waits there.
  Aggregator first(1 << 20, "/tmp", Side::Both), second(1 << 20, "/tmp", Side::Both);
  REQUIRE_FALSE(first.add_game(g, one, 1));
  REQUIRE_FALSE(second.add_game(g, two, 2));
  REQUIRE_FALSE(first.finish());
  REQUIRE_FALSE(second.finish());
  RunMerger merger({&first.runs()[0], &second.runs()[0]});
  REQUIRE_FALSE(merger.open());
  const auto nodes = all_nodes(merger);
  REQUIRE(nodes.size() == expected.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    CHECK(nodes[i].key == expected[i].key);
    CHECK(nodes[i].record.position_hash == expected[i].record.position_hash);
    CHECK(nodes[i].record.counters == expected[i].record.counters);
  }
  CHECK(merger.collisions() == 1);
  CHECK(together.collisions() == 1);
}

TEST_CASE("Spilled runs and the last in-memory run merge into exact totals", "[builder]") {
  // A budget too small for any table growth: a spill instead of every growth.
  Aggregator agg(1, "/tmp", Side::Both);
  GameFacts g;
  g.result = store::Result::Draw;
  // About 21 spills of a table of 32,768 slots at a load of 0.7 (each game
  // one new position): 16 of them merged into one bigger run on the way.
  const int games = 500000;
  const Key first = 0x8000000000000000ull;
  for (int i = 0; i < games; ++i) {
    // Every game: the common first position, then its own position (keys spread over the range).
    PlyRecord plies[] = {{first, 1, Move(SQ_D2, SQ_D4)}, {Key(i + 1) * 0x9E3779B97F4A7C15ull, 5, Move()}};
    REQUIRE_FALSE(agg.add_game(g, plies, 2));
  }
  REQUIRE_FALSE(agg.finish());
  CHECK(agg.spills() >= 16);
  CHECK(agg.runs().size() < agg.spills());  // spill files of one level were merged
  std::vector<const Run*> runs;
  for (const Run& r : agg.runs()) runs.push_back(&r);
  RunMerger merger(runs);
  REQUIRE_FALSE(merger.open());
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
  REQUIRE_FALSE(merger.open());
  CHECK(all_nodes(merger).size() == games + 1);
}

TEST_CASE("A spill file cut short is reported by the merge, never read as a shorter run", "[builder]") {
  Aggregator agg(1, "/tmp", Side::Both);  // a spill whenever a table fills
  GameFacts g;
  for (int i = 0; i < 30000; ++i) {
    PlyRecord plies[] = {{Key(i + 1) * 0x9E3779B97F4A7C15ull, 5, Move()}};
    REQUIRE_FALSE(agg.add_game(g, plies, 1));
  }
  REQUIRE_FALSE(agg.finish());
  REQUIRE(agg.spills() > 0);
  const Run& spilled = agg.runs().front();
  REQUIRE(!spilled.path.empty());
  REQUIRE(::truncate(spilled.path.c_str(), off_t(spilled.edge_offset / 2)) == 0);
  std::vector<const Run*> runs;
  for (const Run& r : agg.runs()) runs.push_back(&r);
  RunMerger merger(runs);
  REQUIRE_FALSE(merger.open());
  auto nodes = all_nodes(merger);
  CHECK(nodes.size() < 30000);
  REQUIRE(merger.error());
  CHECK(merger.error()->message.find(spilled.path) != std::string::npos);
}

TEST_CASE("Aggregators of key ranges count every position in exactly one range, as one would", "[builder]") {
  // Games over a small pool of keys: shared positions, transpositions,
  // repetitions within a game, and positions one game reaches.
  std::vector<std::vector<PlyRecord>> games;
  std::uint64_t x = 0x243F6A8885A308D3ull;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull; };
  for (int g = 0; g < 3000; ++g) {
    std::vector<Key> index;  // of each position in a pool of 400: 200 with White to move, 200 with Black
    const int n = 2 + int((next() >> 33) % 30);
    for (int i = 0; i < n; ++i) index.push_back(((next() >> 33) % 200) * 2 + Key(i % 2));
    std::vector<PlyRecord> plies;
    for (int i = 0; i < n; ++i) {
      const Key key = (index[i] + 1) * 0x9E3779B97F4A7C15ull;
      // The move names the position it leads to: one child per edge.
      Move move = i + 1 < n ? Move(Square(index[i + 1] % 64), Square(8 + index[i + 1] / 64)) : Move();
      plies.push_back({key, std::uint32_t(key ^ 0x5555), move});  // 32 bits, as position_hash
    }
    games.push_back(std::move(plies));
  }
  auto facts = [](int g) {
    GameFacts f;
    f.result = store::Result(g % 4);
    f.white_elo = 2000 + g % 700;
    f.black_elo = 2100 + g % 500;
    f.year = 1990 + g % 30;
    return f;
  };
  Aggregator whole(1 << 20, "/tmp", Side::Both);
  std::vector<std::unique_ptr<Aggregator>> ranges;
  for (std::uint32_t i = 0; i < 3; ++i)
    ranges.push_back(std::make_unique<Aggregator>(1 << 20, "/tmp", Side::Both, KeyRange{i, 3}));
  for (std::size_t g = 0; g < games.size(); ++g) {
    REQUIRE_FALSE(whole.add_game(facts(int(g)), games[g].data(), games[g].size()));
    for (auto& a : ranges) REQUIRE_FALSE(a->add_game(facts(int(g)), games[g].data(), games[g].size()));
  }
  REQUIRE_FALSE(whole.finish());
  std::vector<const Run*> whole_runs, runs;
  for (const Run& r : whole.runs()) whole_runs.push_back(&r);
  for (std::uint32_t i = 0; i < 3; ++i) {
    REQUIRE_FALSE(ranges[i]->finish());
    for (const Run& r : ranges[i]->runs()) runs.push_back(&r);
    REQUIRE_FALSE(ranges[i]->runs().back().memory.slots.empty());
    for (const Slot& s : ranges[i]->runs().back().memory.slots) CHECK(KeyRange{i, 3}.holds(s.key));
  }
  RunMerger one(whole_runs), three(runs);
  REQUIRE_FALSE(one.open());
  REQUIRE_FALSE(three.open());
  auto nodes = all_nodes(one);
  CHECK(nodes.size() == 400);
  auto split_nodes = all_nodes(three);
  REQUIRE(split_nodes.size() == nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    CHECK(split_nodes[i].key == nodes[i].key);
    CHECK(split_nodes[i].record == nodes[i].record);
  }
  auto edges = all_edges(one), split_edges = all_edges(three);
  REQUIRE(split_edges.size() == edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    CHECK(split_edges[i].key == edges[i].key);
    CHECK(split_edges[i].move == edges[i].move);
    CHECK(split_edges[i].record == edges[i].record);
  }
}

TEST_CASE("Merged edges rank by first play, game after game and ply after ply, over spills and key ranges",
          "[builder]") {
  // Random games over a pool of positions, some coming back to a position
  // two plies later with another move; the expected ranks are counted here:
  // each key's moves in the order the games first play them.
  std::vector<std::vector<PlyRecord>> games;
  std::uint64_t x = 0x13198A2E03707344ull;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull; };
  constexpr Key kPool = 30000;       // positions, half with White to move
  for (int g = 0; g < 30000; ++g) {  // more than 16 spills of the smallest table
    const int n = 2 + int((next() >> 33) % 20);
    std::vector<Key> index;
    for (int i = 0; i < n; ++i)
      index.push_back(i >= 2 && next() % 8 == 0 ? index[i - 2]
                                                : ((next() >> 33) % (kPool / 2)) * 2 + Key(i % 2));
    std::vector<PlyRecord> plies;
    for (int i = 0; i < n; ++i) {
      const Key key = (index[i] + 1) * 0x9E3779B97F4A7C15ull;
      // One of 6 moves, so that most moves of a position are played by several games.
      const auto c = int((next() >> 33) % 6);
      plies.push_back(
          {key, std::uint32_t(key ^ 0x5555), i + 1 < n ? Move(Square(c), Square(c + 8)) : Move()});
    }
    games.push_back(std::move(plies));
  }
  std::map<Key, std::vector<std::uint16_t>> first_played;
  for (const auto& game : games)
    for (std::size_t i = 0; i + 1 < game.size(); ++i) {
      auto& moves = first_played[game[i].key];
      if (std::find(moves.begin(), moves.end(), game[i].move.raw()) == moves.end())
        moves.push_back(game[i].move.raw());
    }
  auto check_ranks = [&](std::vector<Aggregator*> aggregators) {
    std::vector<const Run*> runs;
    for (Aggregator* a : aggregators) {
      REQUIRE_FALSE(a->finish());
      for (const Run& r : a->runs()) runs.push_back(&r);
    }
    RunMerger merger(runs);
    REQUIRE_FALSE(merger.open());
    std::size_t edges = 0, wrong = 0;
    for (const EdgeEntry& e : all_edges(merger)) {
      const auto& moves = first_played.at(e.key);
      const auto rank = std::size_t(std::find(moves.begin(), moves.end(), e.move) - moves.begin());
      REQUIRE(rank < moves.size());
      wrong += e.record.polyglot_rank != std::min<std::size_t>(rank, 255);
      ++edges;
    }
    REQUIRE_FALSE(merger.error());
    std::size_t expected = 0;
    for (const auto& [key, moves] : first_played) expected += moves.size();
    CHECK(edges == expected);
    CHECK(wrong == 0);
  };
  GameFacts facts;
  SECTION("one run in memory") {
    Aggregator whole(std::size_t(64) << 20, "/tmp", Side::Both);
    for (const auto& game : games) REQUIRE_FALSE(whole.add_game(facts, game.data(), game.size()));
    CHECK(whole.spills() == 0);
    check_ranks({&whole});
  }
  SECTION("spill files, merged 16 at a time") {
    Aggregator small(1, "/tmp", Side::Both);
    for (const auto& game : games) REQUIRE_FALSE(small.add_game(facts, game.data(), game.size()));
    CHECK(small.spills() > 16);
    check_ranks({&small});
  }
  SECTION("three key ranges, spilling") {
    std::vector<std::unique_ptr<Aggregator>> ranges;
    for (std::uint32_t i = 0; i < 3; ++i)
      ranges.push_back(std::make_unique<Aggregator>(1, "/tmp", Side::Both, KeyRange{i, 3}));
    for (const auto& game : games)
      for (auto& a : ranges) REQUIRE_FALSE(a->add_game(facts, game.data(), game.size()));
    CHECK(ranges[0]->spills() > 1);
    check_ranks({ranges[0].get(), ranges[1].get(), ranges[2].get()});
  }
}

TEST_CASE("A table rebuilt in the middle of a game still counts the game's earlier positions", "[builder]") {
  // Keys packed into the top of the key space want the last home slots: a
  // long run of them overflows the slack past the end, and the table is
  // rebuilt (twice as large) while the second game is being added.
  const Key top = ~Key(0), step = Key(1) << 47;
  auto ply = [&](Key j, bool last) {
    return PlyRecord{top - j * step, std::uint32_t(j), last ? Move() : Move(SQ_G1, SQ_F3)};
  };
  std::vector<PlyRecord> first, second;
  for (Key j = 0; j < 10; ++j) first.push_back(ply(j, j == 9));
  for (Key j = 0; j < 6000; ++j) second.push_back(ply(j, j == 5999));  // its first 10: known slots
  Aggregator agg(std::size_t(1) << 30, "/tmp", Side::Both);
  GameFacts g;
  g.result = store::Result::BlackWins;
  REQUIRE_FALSE(agg.add_game(g, first.data(), first.size()));
  REQUIRE_FALSE(agg.add_game(g, second.data(), second.size()));
  REQUIRE_FALSE(agg.finish());
  RunMerger merger({&agg.runs()[0]});
  REQUIRE_FALSE(merger.open());
  auto nodes = all_nodes(merger);
  REQUIRE(nodes.size() == 6000);
  for (const NodeEntry& n : nodes) {
    CHECK(n.record.counters.games == (n.key > top - 10 * step ? 2u : 1u));
    CHECK(n.record.counters.black_wins == n.record.counters.games);
  }
  auto edges = all_edges(merger);
  REQUIRE(edges.size() == 5999);
  for (const EdgeEntry& e : edges) CHECK(e.record.counters.games == (e.key > top - 9 * step ? 2u : 1u));
}

TEST_CASE("A position's entry from its slots is the entry of its expanded node and edges", "[builder]") {
  // Positions of one game (Black and White to move, rated or not, dated or
  // not, every result), which append_entry writes from the slots alone, and
  // positions that take the long way (a tally, two edges, no edge, an edge at
  // another ply, a position hash of 0): each against the entry of the section
  // that the records tables.node and tables.edge expand to make, byte for byte.
  SlotTables tables;
  tables.games.push_back({{2500, 0}, 2019, store::Result::WhiteWins, 0});
  tables.games.push_back({{0, 2710}, 0, store::Result::BlackWins, 100});
  tables.games.push_back({{0, 0}, 1999, store::Result::Draw, 200});
  tables.games.push_back({{1800, 1900}, 2024, store::Result::Unknown, 300});
  Tally tally;
  tally.counters.add_game(store::Result::Draw, 2400, 2001);
  tally.counters.add_game(store::Result::WhiteWins, 2450, 2003);
  tally.occurrences = 3;
  tally.score = 4;
  const std::uint32_t tallied = Slot::kTallied | tables.tallies.add(tally);
  std::vector<std::vector<Slot>> positions;
  const Key key = 0x1234567890ABCDEFull;
  const std::uint64_t hash = 0x87654321, child = 0xFEDCBA0987654321ull;
  for (std::uint32_t ref : {1u, 2u, 3u, 4u})
    for (std::uint16_t ply : {std::uint16_t(7), std::uint16_t(Slot::kBlackPly | 12)}) {
      positions.push_back({{key, hash, ref, ply, 0}, {key, child, ref, ply, 0x0C1C}});  // one game's
      positions.push_back({{key, hash, ref, ply, 0}});                                  // no edge
      positions.push_back({{key, hash, ref, ply, 0}, {key, child, ref, std::uint16_t(ply + 2), 0x0C1C}});
      positions.push_back(
          {{key, hash, ref, ply, 0}, {key, child, ref, ply, 0x0C1C}, {key, child + 1, ref, ply, 0x0D1D}});
      positions.push_back({{key, 0, ref, ply, 0}, {key, child, ref, ply, 0x0C1C}});
      positions.push_back({{key, hash, tallied, ply, 0}, {key, child, ref, ply, 0x0C1C}});
      positions.push_back({{key, child, ref, ply, 0x0C1C}});  // an edge without its node
    }
  std::size_t inline_entries = 0, differ = 0;
  EntryScratch scratch;
  for (const auto& slots : positions) {
    std::string got;
    append_entry(tables, slots.data(), slots.data() + slots.size(), scratch, got);
    // The long way: expanded records, ranked as the run ranks them, encoded.
    const bool has_node = slots[0].move == 0;
    std::optional<NodeEntry> node;
    if (has_node) node = tables.node(slots[0]);
    const store::NodeRecord* record = node ? &node->record : nullptr;
    std::string section, want;
    store::append_section_node(section, record);
    std::vector<std::uint8_t> ranks(slots.size());
    const Slot* edges = slots.data() + has_node;
    const auto n = std::size_t(slots.data() + slots.size() - edges);
    if (n) edge_ranks(tables, edges, edges + n, ranks.data());
    for (std::size_t i = 0; i < n; ++i) {
      EdgeEntry e = tables.edge(edges[i]);
      e.record.polyglot_rank = ranks[i];
      store::append_section_edge(section, e.move, e.record, record);
    }
    store::GroupEncoder::entry_of(section, want);
    differ += got != want;
    inline_entries +=
        std::uint8_t(got[0]) >= store::kPackedHead && (std::uint8_t(got[0]) & store::kInlineEdge);
  }
  CHECK(differ == 0);
  CHECK(inline_entries == 8);  // the one-game positions, each a packed node with its edge inline
}

TEST_CASE("Populated memory is resident before it is written, and only the whole pages inside the range",
          "[builder]") {
  // mincore says which pages of a mapping are resident: none of a fresh
  // anonymous mapping, then those populate made so, the pages the range only
  // partly covers left out.
  const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE)), pages = 64;
  void* map = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  auto resident = [&] {
    std::vector<unsigned char> in(pages);
    REQUIRE(::mincore(map, pages * page, in.data()) == 0);
    std::vector<bool> out;
    for (unsigned char c : in) out.push_back(c & 1);
    return out;
  };
  const std::vector<bool> before = resident();
  CHECK(std::count(before.begin(), before.end(), true) == 0);
  // (A kernel older than 5.14 has no MADV_POPULATE_WRITE: populate is advice, and does nothing there.)
  if (::madvise(static_cast<char*>(map) + (pages - 1) * page, page, MADV_POPULATE_WRITE) != 0) {
    WARN("this kernel has no MADV_POPULATE_WRITE: nothing to check");
    ::munmap(map, pages * page);
    return;
  }
  char* base = static_cast<char*>(map);
  populate(base + 10 * page + 1, 20 * page);  // pages 11 to 29 whole; 10 and 30 in part
  const std::vector<bool> after = resident();
  for (std::size_t i = 0; i < pages; ++i) CHECK(after[i] == ((i >= 11 && i < 30) || i == pages - 1));
  ::munmap(map, pages * page);
}

TEST_CASE("A slot array keeps its slots as it grows and gives free slots past its size", "[builder]") {
  // The in-place growth of an aggregator's table (aggregator.cpp, grow)
  // relies on both: the slots it had stay where they were, and every slot
  // past the size, cut off before or never used, reads free (all zeros).
  auto slot = [](std::size_t i) {
    return Slot{Key(i + 1) * 0x9E3779B97F4A7C15ull, i, std::uint32_t(i + 1), std::uint16_t(i % 99), 0};
  };
  auto same = [](const Slot& a, const Slot& b) {
    return a.key == b.key && a.hash == b.hash && a.ref == b.ref && a.ply == b.ply && a.move == b.move;
  };
  auto free_from = [&](const SlotArray& t, std::size_t first) {
    std::size_t used = 0;
    for (std::size_t i = first; i < t.size(); ++i) used += t[i].ref != 0 || t[i].key != 0 || t[i].hash != 0;
    return used;
  };
  // Room for 200,000 slots: growing to it keeps the array where it is.
  SlotArray t(200000);
  t.resize(100000);
  REQUIRE(free_from(t, 0) == 0);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = slot(i);
  const Slot* at = t.data();
  t.resize(200000);
  CHECK(t.data() == at);
  CHECK(free_from(t, 100000) == 0);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < 100000; ++i) kept += same(t[i], slot(i));
  CHECK(kept == 100000);
  // Cut to a size inside a page, then grown again: what was cut off is free.
  t.resize(1001);
  t.resize(200000);
  CHECK(free_from(t, 1001) == 0);
  CHECK(same(t[1000], slot(1000)));
  // Cleared: all free, at any size.
  t.clear(150000);
  CHECK(t.size() == 150000);
  CHECK(free_from(t, 0) == 0);
  // Past its room: the slots move once, kept, and the rest is free.
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = slot(i);
  t.resize(1000000);
  kept = 0;
  for (std::size_t i = 0; i < 150000; ++i) kept += same(t[i], slot(i));
  CHECK(kept == 150000);
  CHECK(free_from(t, 150000) == 0);
  // Moved from: empty, and the array moved to holds the slots.
  SlotArray moved(std::move(t));
  CHECK(t.empty());  // NOLINT(bugprone-use-after-move): a moved-from array is empty
  CHECK(moved.size() == 1000000);
  CHECK(same(moved[149999], slot(149999)));
}
