// The commit of a new book in slices of the key space (section_slices.h): a
// merge of one slice (RunMerger over a KeySpan, starting a spill file at its
// marks) yields exactly the whole merge's entries of that slice, and the
// slices' sections, grouped, hold the merged nodes and edges, each in the
// database its games send it to, in the same groups whatever the slices.
#include "builder/section_slices.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>

#include "book/store/section_groups.h"
#include "random_games.h"

using namespace gb;
using namespace gb::builder;

namespace {

// The spill files and last run of an aggregator with a tiny budget: it spills
// whenever a table fills, and merges its spill files 16 at a time.
std::unique_ptr<Aggregator> spilled(const Games& games) {
  auto agg = std::make_unique<Aggregator>(1, "/tmp", Side::Both);
  for (std::size_t g = 0; g < games.plies.size(); ++g)
    REQUIRE_FALSE(agg->add_game(games.facts[g], games.plies[g].data(), games.plies[g].size()));
  REQUIRE_FALSE(agg->finish());
  CHECK(agg->spills() > 16);
  return agg;
}

std::vector<const Run*> runs_of(const Aggregator& agg) {
  std::vector<const Run*> runs;
  for (const Run& r : agg.runs()) runs.push_back(&r);
  return runs;
}

// How a test takes the slices, in order, as the commit's writer does.
struct Taking {
  bool helps = false;   // while slice i is not made, make the next (SectionSlices::help)
  bool threads = true;  // some thread besides makes slices (else a wait would never end)
  std::size_t helped = 0;
};

// Every slice's entries, back to back, and the positions they hold.
std::pair<std::string, std::vector<Key>> made_slices(SectionSlices& slices, Taking& taking) {
  std::string entries;
  std::vector<Key> keys;
  for (std::size_t i = 0; i < slices.count(); ++i) {
    const SliceSections* slice;
    while (!(slice = slices.get(i, !taking.helps)))
      if (slices.help()) {
        ++taking.helped;
      } else {
        REQUIRE(taking.threads);  // else: help made nothing while slice i was not made
        slice = slices.get(i, true);
        break;
      }
    REQUIRE(slice);
    REQUIRE_FALSE(slice->error);
    entries += slice->entries;
    for (const auto& p : slice->positions) keys.push_back(p.key);
    slices.release(i);
  }
  return std::pair(entries, keys);
}

// A merge's nodes and edges, each in its order.
struct Merged {
  std::vector<NodeEntry> nodes;
  std::vector<EdgeEntry> edges;
};

// Every node, then every edge, of a merge taken by its two streams.
Merged streams_of(RunMerger& merger) {
  Merged merged;
  REQUIRE_FALSE(merger.open());
  for (NodeEntry n; merger.next_node(n);) merged.nodes.push_back(n);
  for (EdgeEntry e; merger.next_edge(e);) merged.edges.push_back(e);
  REQUIRE_FALSE(merger.error());
  return merged;
}

// The nodes and edges of got that are not want's at the same place: another
// key, move or record (with its rank of first play). As many of each in both.
std::size_t differences(const Merged& got, const Merged& want) {
  std::size_t differ = 0;
  for (std::size_t i = 0; i < want.nodes.size(); ++i)
    differ += got.nodes[i].key != want.nodes[i].key || !(got.nodes[i].record == want.nodes[i].record);
  for (std::size_t i = 0; i < want.edges.size(); ++i)
    differ += got.edges[i].key != want.edges[i].key || got.edges[i].move != want.edges[i].move ||
              !(got.edges[i].record == want.edges[i].record);
  return differ;
}

}  // namespace

TEST_CASE("A merge of a slice of the key space yields the whole merge's entries of that slice", "[builder]") {
  const Games games = random_games(20000);
  auto agg = spilled(games);
  const auto runs = runs_of(*agg);
  std::size_t marked = 0;  // spill files with marks past their first record: a slice starts inside them
  for (const Run* r : runs) marked += r->section_marks.size() > 1;
  REQUIRE(marked > 0);
  REQUIRE_FALSE(runs.back()->memory.slots.empty());  // and the last run, in memory

  RunMerger whole(runs);
  const Merged merged = streams_of(whole);
  const std::vector<NodeEntry>& nodes = merged.nodes;
  REQUIRE(nodes.size() > 20000);

  // Cuts at keys of the book, next to them, and at the marks of the files.
  std::vector<Key> cuts = {0};
  for (std::size_t i = 0; i < nodes.size(); i += 997) {
    cuts.push_back(nodes[i].key);
    cuts.push_back(nodes[i].key + 1);
  }
  for (const Run* r : runs)
    for (const RunMark& m : r->section_marks) cuts.push_back(m.key);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  Merged sliced;
  std::uint64_t collisions = 0;
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    const KeySpan span{cuts[i], i + 1 < cuts.size() ? cuts[i + 1] - 1 : ~Key(0)};
    RunMerger slice(runs, span);
    REQUIRE_FALSE(slice.open());
    for (NodeEntry n; slice.next_node(n);) {
      CHECK(span.holds(n.key));
      sliced.nodes.push_back(n);
    }
    for (EdgeEntry e; slice.next_edge(e);) {
      CHECK(span.holds(e.key));
      sliced.edges.push_back(e);
    }
    REQUIRE_FALSE(slice.error());
    collisions += slice.collisions();
  }
  CHECK(collisions == whole.collisions());
  REQUIRE(sliced.nodes.size() == nodes.size());
  REQUIRE(sliced.edges.size() == merged.edges.size());
  CHECK(differences(sliced, merged) == 0);
}

TEST_CASE("A merge a key at a time yields the two streams' nodes and edges, with their ranks and collisions",
          "[builder]") {
  // Two builds' runs: the second reaches some positions of the first with
  // another position hash (collisions: the first run's node is kept) and
  // plays their moves in other orders (ranks of first play across runs).
  const Games games = random_games(20000);
  Games others = random_games(3000);
  for (auto& plies : others.plies)
    for (std::size_t i = 0; i < plies.size(); i += 7) plies[i].position_hash ^= 2;
  auto first = spilled(games);
  auto second = std::make_unique<Aggregator>(1, "/tmp", Side::Both);
  for (std::size_t g = others.plies.size(); g-- > 0;)  // backwards: other first plays
    REQUIRE_FALSE(second->add_game(others.facts[g], others.plies[g].data(), others.plies[g].size()));
  REQUIRE_FALSE(second->finish());
  std::vector<const Run*> runs = runs_of(*first);
  for (const Run* r : runs_of(*second)) runs.push_back(r);

  RunMerger streams(runs);
  const Merged merged = streams_of(streams);
  REQUIRE(merged.nodes.size() > 20000);
  REQUIRE(streams.collisions() > 100);

  // Runs of sections read as two streams of records, as positions, and as
  // positions whose entries (a key of one run) are handed out as they are.
  const auto mode = GENERATE(RunMerger::kStreams, RunMerger::kSections, RunMerger::kEntries);
  RunMerger by_key(runs, {}, mode);
  REQUIRE_FALSE(by_key.open());
  Merged by_keys;
  std::size_t wrong_key = 0, ranked = 0, entries = 0, undecoded = 0;
  Key last = 0;
  bool started = false;
  MergedSection m;
  while (by_key.next_section(m)) {
    if (!m.entry.empty()) {  // decoded here, as a reader of the book decodes it
      ++entries;
      std::string_view bytes;
      store::Section section;
      if (store::read_entry(m.entry, bytes) != m.entry.size() || !store::from_bytes(bytes, section)) {
        ++undecoded;
        continue;
      }
      wrong_key += m.has_node != section.node.has_value() || m.entry_edges != section.edges.size();
      if (section.node) m.node = {m.key, *section.node};
      for (const auto& [move, record] : section.edges) m.edges.push_back({m.key, move, record});
    }
    wrong_key += (started && m.key <= last) || (!m.has_node && m.edges.empty());
    started = true;
    last = m.key;
    if (m.has_node) {
      wrong_key += m.node.key != m.key;
      by_keys.nodes.push_back(m.node);
    }
    for (std::size_t i = 0; i < m.edges.size(); ++i) {
      wrong_key += m.edges[i].key != m.key || (i > 0 && m.edges[i - 1].move >= m.edges[i].move);
      ranked += m.edges[i].record.polyglot_rank > 0;
      by_keys.edges.push_back(m.edges[i]);
    }
  }
  REQUIRE_FALSE(by_key.error());
  CHECK(wrong_key == 0);
  CHECK(undecoded == 0);
  CHECK(ranked > 1000);
  if (mode == RunMerger::kEntries)
    CHECK(entries > merged.nodes.size() / 2);  // most keys are one run's
  else
    CHECK(entries == 0);
  CHECK(by_key.collisions() == streams.collisions());
  REQUIRE(by_keys.nodes.size() == merged.nodes.size());
  REQUIRE(by_keys.edges.size() == merged.edges.size());
  CHECK(differences(by_keys, merged) == 0);
}

TEST_CASE(
    "The slices' sections hold every merged node and edge, in positions or, below --min-games, in pruned",
    "[builder]") {
  // Above 1 the slices decode every position (it may be pruned); at 1 they
  // take a position of one run as its run holds it.
  const std::uint32_t kMinGames = GENERATE(1u, 2u);
  const Games games = random_games(20000);
  auto agg = spilled(games);
  const auto runs = runs_of(*agg);
  RunMerger whole(runs);
  REQUIRE_FALSE(whole.open());

  // What one commit writes, grouped as its writer groups the slices' entries:
  // each database's groups (key and value), and its sections by key.
  struct Held {
    std::vector<std::pair<std::string, std::string>> kept_groups, pruned_groups;
    std::map<Key, store::Section> kept, pruned;
    std::uint64_t nodes = 0, edges = 0;
  };
  auto read = [&](SectionSlices& slices) {
    Held held;
    auto to = [](auto& groups) {
      return store::GroupAppender([&groups](std::string_view key, std::string_view value) -> store::Status {
        groups.emplace_back(key, value);
        return std::nullopt;
      });
    };
    store::GroupAppender kept = to(held.kept_groups), pruned = to(held.pruned_groups);
    for (std::size_t i = 0; i < slices.count(); ++i) {
      const SliceSections* slice = slices.get(i, true);
      REQUIRE(slice);
      REQUIRE_FALSE(slice->error);
      held.nodes += slice->nodes;
      held.edges += slice->edges;
      for (std::size_t p = 0; p < slice->positions.size(); ++p)
        REQUIRE_FALSE(
            (slice->positions[p].pruned ? pruned : kept).add_entry(slice->positions[p].key, slice->entry(p)));
      slices.release(i);
    }
    REQUIRE_FALSE(kept.finish());
    REQUIRE_FALSE(pruned.finish());
    for (auto [groups, db] :
         {std::pair(&held.kept_groups, &held.kept), std::pair(&held.pruned_groups, &held.pruned)}) {
      Key last = 0;
      for (const auto& [group, value] : *groups) {
        auto group_key = store::group_key(group);
        REQUIRE(group_key);
        store::GroupReader reader(*group_key, value);
        Key key;
        std::string_view bytes;
        while (reader.next(key, bytes)) {
          CHECK((key > last || db->empty()));  // each database in key order, as appends need
          last = key;
          store::Section section;
          REQUIRE(store::from_bytes(bytes, section));
          db->emplace(key, std::move(section));
        }
        REQUIRE_FALSE(reader.damaged());
      }
    }
    return held;
  };
  SectionSlices one(runs, 2, kMinGames, true, std::uint64_t(1) << 40);
  SectionSlices many(runs, 2, kMinGames, true, 1000);
  REQUIRE(one.count() == 1);
  REQUIRE(many.count() > 50);
  const Held whole_book = read(one), sliced = read(many);
  // The same groups, byte for byte, whatever the slices.
  CHECK(sliced.kept_groups.size() > 100);
  CHECK(sliced.kept_groups == whole_book.kept_groups);
  CHECK(sliced.pruned_groups == whole_book.pruned_groups);

  std::size_t kept_nodes = 0, pruned_nodes = 0, kept_edges = 0, wrong = 0;
  for (NodeEntry n; whole.next_node(n);) {
    const bool keep = n.record.counters.games >= kMinGames;
    (keep ? kept_nodes : pruned_nodes) += 1;
    const auto& db = keep ? sliced.kept : sliced.pruned;
    auto at = db.find(n.key);
    wrong += at == db.end() || !at->second.node || !(*at->second.node == n.record);
  }
  for (EdgeEntry e; whole.next_edge(e);) {
    const bool keep = e.record.counters.games >= kMinGames;
    kept_edges += keep;
    const auto& db = keep ? sliced.kept : sliced.pruned;
    auto at = db.find(e.key);
    bool found = false;
    if (at != db.end())
      for (const auto& [move, record] : at->second.edges)
        found = found || (move == e.move && record == e.record);
    wrong += !found;
  }
  REQUIRE_FALSE(whole.error());
  CHECK(kept_nodes > 1000);
  if (kMinGames > 1)
    CHECK(pruned_nodes > 1000);
  else
    CHECK(pruned_nodes == 0);
  CHECK(wrong == 0);
  CHECK(sliced.nodes == kept_nodes);
  CHECK(sliced.edges == kept_edges);
  CHECK(whole_book.nodes == kept_nodes);
  CHECK(whole_book.edges == kept_edges);

  // The sections themselves: the same in both, whatever the slices.
  CHECK(sliced.kept.size() == whole_book.kept.size());
  CHECK(sliced.pruned.size() == whole_book.pruned.size());
  std::size_t other = 0;
  for (const auto* dbs : {&sliced.kept, &sliced.pruned}) {
    const auto& whole_db = dbs == &sliced.kept ? whole_book.kept : whole_book.pruned;
    for (const auto& [key, section] : *dbs) {
      auto at = whole_db.find(key);
      other += at == whole_db.end() || at->second.node != section.node || at->second.edges != section.edges;
    }
  }
  CHECK(other == 0);
}

TEST_CASE("Slices that remove their runs' files make the same sections and leave none of the files",
          "[builder]") {
  const Games games = random_games(20000);
  auto agg = spilled(games);
  const auto runs = runs_of(*agg);
  std::vector<std::string> files;
  for (const Run* r : runs)
    if (!r->path.empty()) files.push_back(r->path);
  REQUIRE(files.size() > 1);
  auto exist = [&] {
    std::size_t n = 0;
    for (const std::string& f : files) n += ::access(f.c_str(), F_OK) == 0;
    return n;
  };
  auto made = [](SectionSlices& slices) {
    Taking waits;
    return made_slices(slices, waits);
  };
  std::pair<std::string, std::vector<Key>> kept, removed;
  {
    SectionSlices slices(runs, 2, 1, false, 1000);
    REQUIRE(slices.count() > 50);
    kept = made(slices);
  }
  CHECK(exist() == files.size());  // not asked to: the files stay
  {
    SectionSlices slices(runs, 2, 1, false, 1000, true);
    removed = made(slices);
  }
  CHECK(exist() == 0);
  CHECK(kept.second.size() > 20000);
  CHECK(removed.second == kept.second);
  CHECK(removed.first == kept.first);
}

TEST_CASE("Slices the writer makes while it waits (help) are those the threads make, with or without threads",
          "[builder]") {
  const Games games = random_games(20000);
  auto agg = spilled(games);
  const auto runs = runs_of(*agg);
  SectionSlices threads_only(runs, 2, 1, false, 1000);
  REQUIRE(threads_only.count() > 50);
  Taking waits;
  const auto want = made_slices(threads_only, waits);
  REQUIRE(want.second.size() > 20000);
  for (unsigned threads : {0u, 1u}) {
    INFO(threads << " threads beside the writer");
    SectionSlices slices(runs, threads, 1, false, 1000);
    Taking helps{.helps = true, .threads = threads > 0};
    const auto got = made_slices(slices, helps);
    // With no thread the writer makes every slice (with one, how many
    // depends on how the two are scheduled).
    if (threads == 0) CHECK(helps.helped == slices.count());
    CHECK(got.second == want.second);
    CHECK(got.first == want.first);
  }
}
