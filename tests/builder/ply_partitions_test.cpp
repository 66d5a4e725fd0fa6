// The counting of a build into a new book (ply_partitions.h): plies kept in
// partitions of the key space, spilled as they are and counted by sorting at
// the commit, give the sections that counting into a table gives (the
// Aggregator, whose books equal Polyglot make-book's: tests/cli), byte for
// byte, whatever the budget, the spills and their merges; a key that most
// games reach is counted in chunks, each game once, and in every chunk as the
// position of its first ply; and a spill that cannot be written is an error
// that names its file.
#include "builder/ply_partitions.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>

#include "book/store/section_groups.h"
#include "random_games.h"
#include "resident_pages.h"

using namespace gb;
using namespace gb::builder;

namespace {

// What a commit writes of a maker's slices: each database's entries in key
// order, as bytes (the key, then the entry), and its sections by key.
struct Written {
  std::string kept_bytes, pruned_bytes;
  std::map<Key, store::Section> kept, pruned;
  std::uint64_t nodes = 0, edges = 0, collisions = 0;
};

Written write(SectionSlices& slices) {
  Written w;
  for (std::size_t i = 0; i < slices.count(); ++i) {
    const SliceSections* slice = slices.get(i, true);
    REQUIRE(slice);
    REQUIRE_FALSE(slice->error);
    w.nodes += slice->nodes;
    w.edges += slice->edges;
    w.collisions += slice->collisions;
    for (std::size_t p = 0; p < slice->positions.size(); ++p) {
      const auto& position = slice->positions[p];
      const std::string_view entry = slice->entry(p);
      (position.pruned ? w.pruned_bytes : w.kept_bytes)
          .append(reinterpret_cast<const char*>(&position.key), sizeof(Key))
          .append(entry);
      std::string_view section;
      REQUIRE(store::read_entry(entry, section) == entry.size());
      store::Section decoded;
      REQUIRE(store::from_bytes(section, decoded));
      (position.pruned ? w.pruned : w.kept).emplace(position.key, std::move(decoded));
    }
    slices.release(i);
  }
  return w;
}

// The games counted into tables (one Aggregator per key range, spilling at a
// tiny budget unless given one) and written from their runs, as a build into
// a book that holds records counts them.
Written by_tables(const Games& games, std::uint32_t ranges, std::uint32_t min_games, std::size_t budget = 1) {
  std::vector<std::unique_ptr<Aggregator>> tables;
  std::vector<const Run*> runs;
  for (std::uint32_t r = 0; r < ranges; ++r) {
    tables.push_back(std::make_unique<Aggregator>(budget, "/tmp", Side::Both, KeyRange{r, ranges}));
    for (std::size_t g = 0; g < games.plies.size(); ++g)
      REQUIRE_FALSE(tables[r]->add_game(games.facts[g], games.plies[g].data(), games.plies[g].size()));
    REQUIRE_FALSE(tables[r]->finish());
    for (const Run& run : tables[r]->runs()) runs.push_back(&run);
  }
  SectionSlices slices(runs, 2, min_games, min_games > 1, 4096);
  Written w = write(slices);
  for (auto& t : tables) w.collisions += t->collisions();
  return w;
}

// The same games counted into partitions of `ranges` key ranges with each
// range's budget; spills: how many each range made, at least.
Written by_partitions(const Games& games, std::uint32_t ranges, std::size_t budget, std::uint32_t min_games,
                      std::size_t* spills = nullptr) {
  std::vector<std::unique_ptr<PlyPartitions>> parts;
  std::vector<PlyPartitions*> in_order;
  std::uint64_t plies = 0;
  for (const auto& g : games.plies) plies += g.size();
  for (std::uint32_t r = 0; r < ranges; ++r) {
    parts.push_back(std::make_unique<PlyPartitions>(budget, "/tmp", Side::Both, KeyRange{r, ranges}, plies));
    for (std::size_t g = 0; g < games.plies.size(); ++g)
      REQUIRE_FALSE(parts[r]->add_game(games.facts[g], games.plies[g].data(), games.plies[g].size()));
    REQUIRE_FALSE(parts[r]->finish());
    if (spills) *spills = r == 0 ? parts[r]->spills() : std::min(*spills, parts[r]->spills());
    in_order.push_back(parts[r].get());
  }
  SectionSlices slices(partition_slices(in_order, min_games, min_games > 1), 2);
  return write(slices);
}

void check_same(const Written& got, const Written& want) {
  CHECK(want.kept.size() > 1000);  // something to compare
  CHECK(got.nodes == want.nodes);
  CHECK(got.edges == want.edges);
  CHECK(got.collisions == want.collisions);
  CHECK(got.kept.size() == want.kept.size());
  CHECK(got.pruned.size() == want.pruned.size());
  std::size_t differ = 0;
  for (const auto* db : {&got.kept, &got.pruned}) {
    const auto& other = db == &got.kept ? want.kept : want.pruned;
    for (const auto& [key, section] : *db) {
      auto at = other.find(key);
      differ += at == other.end() || at->second.node != section.node || at->second.edges != section.edges;
    }
  }
  CHECK(differ == 0);
  // And the entries themselves, byte for byte: the book is the same.
  CHECK(got.kept_bytes == want.kept_bytes);
  CHECK(got.pruned_bytes == want.pruned_bytes);
}

}  // namespace

TEST_CASE("Plies counted in partitions give the sections a table gives, whatever the spills", "[builder]") {
  const std::uint32_t kMinGames = GENERATE(1u, 2u);
  // 90,000 games, some 1,220,000 plies: at the smallest buffers (16,384
  // plies) each of two ranges spills more than 32 times, and its spills are
  // merged.
  const Games games = random_games(90000);
  const Written want = by_tables(games, 2, kMinGames);
  if (kMinGames > 1) CHECK(want.pruned.size() > 1000);

  std::size_t spills = 0;
  SECTION("spilling and merging spills") {
    check_same(by_partitions(games, 2, 1, kMinGames, &spills), want);
    CHECK(spills >= PlyPartitions::kSpillsPerMerge);  // the first 32 of a level are merged
  }
  SECTION("all in memory") {
    check_same(by_partitions(games, 2, std::size_t(1) << 30, kMinGames, &spills), want);
    CHECK(spills == 0);
  }
  SECTION("one key range") {
    check_same(by_partitions(games, 1, 1, kMinGames), by_tables(games, 1, kMinGames));
  }
}

TEST_CASE("A range's first spills are of half the buffer its budget allows, the later ones of all of it",
          "[builder]") {
  // The buffers are pages touched for the first time, which cost more than a
  // small collection's spills (docs/SCALE.md, "Fresh memory"); a collection
  // that spills more than kHalfSpills times wants the whole buffer.
  const std::size_t budget = std::size_t(2) << 20;
  const std::uint64_t whole = budget / 2 / sizeof(PlyEntry), half = whole / 2;
  const std::uint64_t halves = PlyPartitions::kHalfSpills * half;  // the plies the first spills take
  // The spills after t plies: a full buffer spills when the next ply comes.
  auto spills_after = [&](std::uint64_t t) -> std::uint64_t {
    if (t <= halves) return t == 0 ? 0 : (t - 1) / half;
    return PlyPartitions::kHalfSpills + (t - halves - 1) / whole;
  };
  const Games games = random_games(30000);
  PlyPartitions parts(budget, "/tmp", Side::Both, KeyRange{}, 0);
  std::uint64_t plies = 0, wrong = 0;
  for (std::size_t g = 0; g < games.plies.size(); ++g) {
    REQUIRE_FALSE(parts.add_game(games.facts[g], games.plies[g].data(), games.plies[g].size()));
    plies += games.plies[g].size();
    wrong += parts.spills() != spills_after(plies);
  }
  REQUIRE(plies > halves + 2 * whole);  // some spills of the whole buffer
  CHECK(wrong == 0);
  CHECK(parts.spills() == spills_after(plies));
  CHECK(parts.spills() >= PlyPartitions::kHalfSpills + 2);
  REQUIRE_FALSE(parts.finish());
}

TEST_CASE("After finish the buffer's pages are spare and resident, for one slice's scratch to take",
          "[builder]") {
  // A slice's scratch in fresh pages made each thread's first slice several
  // times slower than the next (docs/SCALE.md, "Fresh memory"); the buffer's
  // pages are resident and free once the parse is done.
  const Games games = random_games(3000);
  PlyPartitions parts(std::size_t(16) << 20, "/tmp", Side::Both, KeyRange{}, 0);
  std::uint64_t plies = 0;
  for (std::size_t g = 0; g < games.plies.size(); ++g) {
    REQUIRE_FALSE(parts.add_game(games.facts[g], games.plies[g].data(), games.plies[g].size()));
    plies += games.plies[g].size();
  }
  REQUIRE(plies > 2 * 16384);  // the buffer grew past its first pages
  REQUIRE(parts.spills() == 0);
  REQUIRE_FALSE(parts.finish());
  ReservedPages spare = parts.take_spare_pages();
  REQUIRE(spare.reserved() >= PlyPartitions::kScratchPlies * sizeof(PlyEntry));
  CHECK(gb::test::pages_not_resident(reinterpret_cast<std::uintptr_t>(spare.data()),
                                     plies * sizeof(PlyEntry)) == 0);
  CHECK(parts.take_spare_pages().reserved() == 0);  // taken once
  // A scratch in them holds a slice, and the plies are still there to read.
  PlyArray scratch(std::move(spare));
  REQUIRE(scratch.resize(PlyPartitions::kScratchPlies));
  std::uint64_t in_partitions = 0;
  for (std::size_t p = 0; p < parts.partitions(); ++p) in_partitions += parts.plies_in(p);
  CHECK(in_partitions == plies);
  std::vector<PlyEntry> read(plies);
  REQUIRE_FALSE(parts.read(0, parts.partitions(), read.data()));
  std::uint64_t wrong = 0;
  for (const PlyEntry& e : read) wrong += e.game == 0;
  CHECK(wrong == 0);
}

TEST_CASE("Partitions whose budget falls in the middle of a build spill within it and count the same",
          "[builder]") {
  // As the build's fingerprints grow, its tables' budget falls (build.cpp).
  const Games games = random_games(40000);
  const Written want = by_tables(games, 1, 1);
  PlyPartitions parts(std::size_t(64) << 20, "/tmp", Side::Both, KeyRange{}, 0);
  std::size_t spills_before = 0;
  for (std::size_t g = 0; g < games.plies.size(); ++g) {
    if (g == games.plies.size() / 2) {
      spills_before = parts.spills();
      parts.set_budget(1);
    }
    REQUIRE_FALSE(parts.add_game(games.facts[g], games.plies[g].data(), games.plies[g].size()));
  }
  REQUIRE_FALSE(parts.finish());
  CHECK(spills_before == 0);  // 64 MiB held the first half
  CHECK(parts.spills() > 8);  // the second half, some 270,000 plies, in buffers of 16,384
  SectionSlices slices(partition_slices({&parts}, 1, false), 2);
  check_same(write(slices), want);
}

TEST_CASE("A key that most games reach is counted in chunks, each game once however often it returns",
          "[builder]") {
  // 150,000 games from one position S: S -a-> T -b-> S -c-> a position of
  // the game's own. S takes 300,000 plies, more than a slice: its partition
  // is counted in chunks, and a chunk may end between a game's two visits.
  constexpr int kGames = 150000;
  const Key s = 0x1234567887654321ull, t = 0x0fedcba987654321ull;
  const Move a(Square(12), Square(28)), b(Square(52), Square(36)), c(Square(6), Square(21));
  Games games;
  for (int g = 0; g < kGames; ++g) {
    const Key own = (Key(g) + 7) * 0x9E3779B97F4A7C15ull;
    games.plies.push_back(
        {{s, 0x51, a}, {t, 0x52, b}, {s, 0x51, c}, {own, std::uint32_t(own >> 32) | 1, Move()}});
    GameFacts f;
    f.result = store::Result(g % 3);  // white wins, draw, black wins in turn
    f.white_elo = 2000 + g % 7;
    f.black_elo = 2100;
    f.year = 2000 + g % 20;
    games.facts.push_back(f);
  }
  const Written got = by_partitions(games, 2, 1, 1);
  check_same(got, by_tables(games, 2, 1));

  // And S by its definition: each game counted once at S and at each of its
  // moves, each play of a move once in the Polyglot counts.
  REQUIRE(got.kept.count(s));
  const store::Section& at_s = got.kept.at(s);
  REQUIRE(at_s.node);
  CHECK(at_s.node->counters.games == kGames);
  CHECK(at_s.node->counters.white_wins == kGames / 3);
  CHECK(at_s.node->counters.draws == kGames / 3);
  CHECK(at_s.node->counters.black_wins == kGames / 3);
  CHECK(at_s.node->min_ply == 0);
  REQUIRE(at_s.edges.size() == 2);
  for (const auto& [move, edge] : at_s.edges) {
    CHECK(edge.counters.games == kGames);
    CHECK(edge.occurrences == kGames);
    // a is played first in every game, c after it.
    CHECK(edge.polyglot_rank == (move == a.raw() ? 0 : 1));
    CHECK(edge.min_ply == (move == a.raw() ? 0 : 2));
  }
}

TEST_CASE("A key counted in chunks is the position of its first ply, in every chunk", "[builder]") {
  // As above, 150,000 games through S (S -a-> T -b-> S -c-> their own), but
  // in games 60,000 to 79,999 the first position is another one with S's
  // key (a collision): a chunk begins among them, and its first ply of the
  // key is the other position's, which the key's node is not.
  constexpr int kGames = 150000, kFrom = 60000, kTo = 80000;
  const Key s = 0x1234567887654321ull, t = 0x0fedcba987654321ull;
  const Move a(Square(12), Square(28)), b(Square(52), Square(36)), c(Square(6), Square(21));
  Games games;
  for (int g = 0; g < kGames; ++g) {
    const Key own = (Key(g) + 7) * 0x9E3779B97F4A7C15ull;
    const std::uint32_t first = g >= kFrom && g < kTo ? 0x61 : 0x51;
    games.plies.push_back(
        {{s, first, a}, {t, 0x52, b}, {s, 0x51, c}, {own, std::uint32_t(own >> 32) | 1, Move()}});
    GameFacts f;
    f.result = store::Result(g % 3);
    f.year = 2000 + g % 20;
    games.facts.push_back(f);
  }
  const Written got = by_partitions(games, 2, 1, 1);
  // (A table that does not spill holds each key's plies in the order of the
  // input: its runs, each with a node of one position, would not.)
  check_same(got, by_tables(games, 2, 1, std::size_t(1) << 30));

  // And by the definition: S is the position of game 0's first ply.
  REQUIRE(got.kept.count(s));
  const store::Section& at_s = got.kept.at(s);
  REQUIRE(at_s.node);
  CHECK(at_s.node->position_hash == 0x51);
  CHECK(at_s.node->counters.games == kGames);
  CHECK(got.collisions == kTo - kFrom);
  REQUIRE(at_s.edges.size() == 2);
  for (const auto& [move, edge] : at_s.edges) {
    CHECK(edge.counters.games == (move == a.raw() ? kGames - (kTo - kFrom) : kGames));
    CHECK(edge.polyglot_rank == (move == a.raw() ? 0 : 1));
  }
}

TEST_CASE("A spill that cannot be written is an error that names its file", "[builder]") {
  PlyPartitions parts(1, "/nonexistent-spill-folder", Side::Both, KeyRange{}, 0);
  const Games games = random_games(5000);
  BuildStatus error;
  for (std::size_t g = 0; g < games.plies.size() && !error; ++g)
    error = parts.add_game(games.facts[g], games.plies[g].data(), games.plies[g].size());
  REQUIRE(error);
  CHECK(error->code == BuildError::Code::Book);
  CHECK_THAT(error->message, Catch::Contains("/nonexistent-spill-folder/graphbook-run-"));
}
