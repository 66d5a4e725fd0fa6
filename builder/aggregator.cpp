#include "builder/aggregator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "builder/run_file.h"
#include "builder/run_merger.h"

namespace gb::builder {

namespace {

// The tables are "ordered" linear-probing hash tables: a key's home slot is
// its key scaled to the table, key * homes / 2^64 (for a KeyRange, the key
// spread over the whole space first: KeyRange::spread) (Polyglot keys are
// uniformly random; any table size works, so a table can grow to just what
// the memory budget leaves instead of stopping at a power of two, which left
// up to half the budget unused and doubled the spills), so the used slots are in
// key order up to the short displacement of probing, and sorting a table for
// a run is a compaction plus an insertion sort over nearly sorted data
// (std::sort of the table was a hot spot of full-depth builds, which
// bench/build.sh times). Probing never
// wraps: kSlack slots past the end take the overflow of the last homes.
constexpr int kInitialBits = 14;
constexpr std::size_t kSlack = 4096;
constexpr double kMaxLoad = 0.7;
// A table that cannot grow by at least this factor within the budget spills instead.
constexpr double kMinGrowth = 1.25;
// The share of the room the last growth leaves free (make_room).
constexpr double kGrowthHeadroom = 1.0 / 16;
// Spill files of one level merged into one of the next level: bounds the open
// files of the final merge and keeps the rewriting at O(n log n) bytes.
constexpr std::size_t kRunsPerMerge = 16;
// Slots name games and tallies in 31 bits.
constexpr std::size_t kMaxRefs = Slot::kTallied - 1;
// A game takes at most kMaxPly + 1 stamps: tables spill before the next could wrap.
constexpr std::uint32_t kMaxStamp = std::numeric_limits<std::uint32_t>::max() - 2 * (Slot::kMaxPly + 1);
// The slot's ply field: 15 bits of ply under the side-to-move bit.
static_assert(Slot::kMaxPly == 0x7fff && (Slot::kBlackPly & Slot::kMaxPly) == 0);

__extension__ typedef unsigned __int128 Wide;
// A range holds 1/count of the key space: its keys spread over all the homes.
inline std::size_t home(Key key, std::size_t homes, KeyRange range) {
  return std::size_t((static_cast<Wide>(range.spread(key)) * homes) >> 64);
}

bool node_less(const Slot& a, const Slot& b) { return a.key < b.key; }
bool edge_less(const Slot& a, const Slot& b) { return a.key != b.key ? a.key < b.key : a.move < b.move; }

// Sorts nearly sorted data in place.
template <class T, class Less>
void insertion_sort(T* first, T* last, Less less) {
  for (T* i = first + (first != last); i < last; ++i) {
    if (!less(*i, *(i - 1))) continue;
    T v = *i;
    T* j = i;
    do {
      *j = *(j - 1);
      --j;
    } while (j > first && less(v, *(j - 1)));
    *j = v;
  }
}

// A slot reached again at ply: it keeps the smallest ply (and its side to move).
inline void keep_min_ply(Slot& s, std::uint16_t ply) {
  // The same position is reached with the same side to move.
  assert((s.ply & Slot::kBlackPly) == (ply & Slot::kBlackPly));
  if (s.min_ply() > (ply & Slot::kMaxPly))
    s.ply = std::uint16_t((s.ply & Slot::kBlackPly) | (ply & Slot::kMaxPly));
}

// A game's contribution, counted once, for the side that moves at the slot.
inline void count_game(store::Counters& c, const GameRecord& g, Color mover) {
  c.add_game(g.result, g.elo[int(mover)], g.year);
}

// The counters of a slot as a Tally (occurrences and score for an edge).
Tally tally_of(const Slot& s, const SlotTables& t) {
  const GameRecord* one = t.one_game(s);
  if (!one) return t.tallies[s.ref & ~Slot::kTallied];
  const GameRecord& g = *one;
  Tally out;
  count_game(out.counters, g, s.mover());
  out.occurrences = 1;
  out.score = store::play_score(g.result, s.mover());
  out.last_game = s.ref;
  out.first_play = t.first_play(s);  // (the slot's ply is still that of its one play)
  return out;
}

// The slot of (key, move) in table t (node slots have move 0), or the free
// slot where it goes; nullptr when the slack past the last home is full.
Slot* find(SlotVector& t, std::size_t homes, KeyRange range, Key key, std::uint16_t move) {
  for (std::size_t i = home(key, homes, range); i < t.size(); ++i)
    if (t[i].ref == 0 || (t[i].key == key && t[i].move == move)) return &t[i];
  return nullptr;
}

// Rebuilds table t with this many home slots, or more when clustering
// overflows the slack; returns the number it got.
std::size_t rebuild(SlotVector& t, std::size_t homes, KeyRange range) {
  SlotVector old;
  for (;; homes *= 2) {
    old.assign(homes + kSlack, Slot{});
    old.swap(t);
    bool ok = true;
    for (const Slot& s : old)
      if (s.ref) {
        Slot* slot = find(t, homes, range, s.key, s.move);
        if (!slot) {
          ok = false;
          break;
        }
        *slot = s;
      }
    if (ok) return homes;
    old.swap(t);  // pathological clustering: try a larger table
  }
}

// Gives the pages of v's capacity past its size back to the system, without
// the copy that shrink_to_fit makes: a table compacted for the last run kept
// its free slots, and shrink_to_fit's copy stood beside the full table for a
// moment, on every thread at once: the build's peak, over its memory budget
// (docs/SCALE.md). The slots past size() are dead: their pages come back as
// zeros if they are ever touched again, and the allocation stays whole.
template <class T, class A>
void release_spare_capacity(std::vector<T, A>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(v.data() + v.size()) + page - 1) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity()) & ~(page - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

bool over_refs(const SlotTables& t) {
  return t.games.size() >= kMaxRefs || t.tallies.size() >= kMaxRefs || t.next_stamp > kMaxStamp;
}

}  // namespace

std::uint32_t TallyArena::add(const Tally& t) {
  assert(size_ < kMaxRefs);  // a slot names its tally in 31 bits (over_refs spills first)
  if (size_ == blocks_.size() << kBlockBits)
    blocks_.push_back(std::make_unique<Tally[]>(std::size_t(1) << kBlockBits));
  auto i = std::uint32_t(size_++);
  (*this)[i] = t;
  return i;
}

void edge_ranks(const SlotTables& t, const Slot* first, const Slot* last, std::uint8_t* ranks) {
  const std::size_t n = std::size_t(last - first);
  if (n == 1) {  // most positions of a run have one move
    ranks[0] = 0;
    return;
  }
  // A position has at most 218 moves: more only past key collisions.
  std::pair<std::uint32_t, std::uint32_t> stack[256];  // first play, index
  std::vector<std::pair<std::uint32_t, std::uint32_t>> heap(n > 256 ? n : 0);
  auto* by_play = n > 256 ? heap.data() : stack;
  for (std::size_t i = 0; i < n; ++i) {
    assert(first[i].key == first[0].key);
    by_play[i] = {t.first_play(first[i]), std::uint32_t(i)};
  }
  // Ties (plies past kMaxPly share a stamp) go by move.
  std::sort(by_play, by_play + n);
  for (std::size_t r = 0; r < n; ++r) ranks[by_play[r].second] = std::uint8_t(std::min<std::size_t>(r, 255));
}

NodeEntry SlotTables::node(const Slot& s) const {
  NodeEntry e;
  e.key = s.key;
  e.record.position_hash = s.hash;
  e.record.min_ply = s.min_ply();
  e.record.flags = s.mover() == Color::Black ? store::kBlackToMove : 0;
  if (const GameRecord* g = one_game(s))
    count_game(e.record.counters, *g, s.mover());
  else
    e.record.counters = tallies[s.ref & ~Slot::kTallied].counters;
  return e;
}

EdgeEntry SlotTables::edge(const Slot& s) const {
  EdgeEntry e;
  e.key = s.key;
  e.move = s.move;
  e.record.child_key = s.hash;
  e.record.min_ply = s.min_ply();
  e.record.flags = s.mover() == Color::Black ? store::kEdgeBlackMoves : 0;
  Tally t = tally_of(s, *this);
  e.record.counters = t.counters;
  e.record.occurrences = t.occurrences;
  e.record.score = t.score;
  return e;
}

Aggregator::Aggregator(std::size_t memory_budget, std::string spill_dir, Side side, KeyRange range)
    : node_homes_(std::size_t(1) << kInitialBits),
      edge_homes_(std::size_t(1) << kInitialBits),
      budget_(memory_budget),
      spill_dir_(std::move(spill_dir)),
      side_(side),
      range_(range) {
  tables_.nodes.resize(node_homes_ + kSlack);
  tables_.edges.resize(edge_homes_ + kSlack);
}

void Aggregator::set_budget(std::size_t memory_budget) { budget_ = memory_budget; }

Aggregator::~Aggregator() {
  for (const Run& r : runs_)
    if (!r.path.empty()) ::unlink(r.path.c_str());
}

BuildStatus Aggregator::add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n) {
  SlotTables& t = tables_;
  GameRecord g;
  g.elo[0] = std::uint16_t(std::clamp(game.white_elo, 0, 65535));
  g.elo[1] = std::uint16_t(std::clamp(game.black_elo, 0, 65535));
  g.year = std::uint16_t(std::clamp(game.year, 0, 65535));
  g.result = game.result;
  g.stamp = t.next_stamp;
  // The stamps of this game: stamp + its slot plies, all below the next game's.
  t.next_stamp += std::uint32_t(std::min(game.first_ply + int(n), int(Slot::kMaxPly))) + 1;
  assert(t.next_stamp > g.stamp);  // over_refs spills before a stamp wraps
  t.games.push_back(g);
  const auto id = std::uint32_t(t.games.size());  // this game's ref
  assert(id < Slot::kTallied);                    // a ref is 31 bits (over_refs spills first)
  assert(n == 0 || !plies[n - 1].move);           // the final position plays nothing
  const KeyRange range = range_;
  const bool whole = range.count == 1;
  auto mover_at = [&](std::size_t i) { return (i & 1) ? ~game.first_mover : game.first_mover; };
  auto ply_at = [&](std::size_t i) {
    auto ply = std::uint16_t(std::min(game.first_ply + int(i), int(Slot::kMaxPly)));
    return std::uint16_t(ply | (mover_at(i) == Color::Black ? Slot::kBlackPly : 0));
  };
  const Side side = game.side == Side::Both ? side_ : game.side;
  auto counts_edge = [&](std::size_t i) {
    Color mover = mover_at(i);
    return plies[i].move && i + 1 < n && !(side == Side::White && mover != Color::White) &&
           !(side == Side::Black && mover != Color::Black);
  };
  // The lookups are cache misses in tables far larger than the cache, and so
  // are the tallies of slots that a second game reached. So the game is
  // counted in two passes: the first asks for every home slot, then finds
  // (or fills) the slots and asks for their tallies; the second counts into
  // the tallies (add_game is the hot path of a build: bench/build.sh times it).
  // The plies of the range are listed first, without a branch: about half of
  // a game's plies are in one of two ranges, at random, and a branch on it
  // was mispredicted every other ply in both passes.
  in_range_.resize(n);
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    in_range_[m] = std::uint32_t(i);
    m += whole || range.holds(plies[i].key);
  }
  for (std::size_t j = 0; j < m; ++j) {
    const Key key = plies[in_range_[j]].key;
    __builtin_prefetch(&t.nodes[home(key, node_homes_, range)], 1);
    __builtin_prefetch(&t.edges[home(key, edge_homes_, range)], 1);
  }
  found_.clear();
  bool moved = false;  // a table was rebuilt: the slots found before have moved
  // The slot of (key, move) in a table, or the free one where it goes; a
  // table whose slack is full is rebuilt larger first.
  auto slot_in = [&](SlotVector& table, std::size_t& homes, Key key, std::uint16_t move) {
    Slot* s = find(table, homes, range, key, move);
    for (; !s; s = find(table, homes, range, key, move)) {
      homes = rebuild(table, homes * 2, range);
      moved = true;
    }
    return s;
  };
  // A slot that already has counters is counted into in the second pass.
  auto count_later = [&](Slot* s) {
    if (s->ref & Slot::kTallied) __builtin_prefetch(&t.tallies[s->ref & ~Slot::kTallied], 1);
    return s;
  };
  for (std::size_t j = 0; j < m; ++j) {
    const std::size_t i = in_range_[j];
    const PlyRecord& p = plies[i];
    assert(whole || range.holds(p.key));  // each position is counted in its range only
    const std::uint16_t ply = ply_at(i);
    Slot* node = slot_in(t.nodes, node_homes_, p.key, 0);
    Found f{std::uint32_t(i), nullptr, nullptr};
    if (node->ref == 0) {
      *node = Slot{p.key, p.position_hash, id, ply, 0};
      ++node_count_;
    } else if (node->hash != p.position_hash) {
      ++collisions_;  // another position with this key: never merged
      continue;
    } else {
      keep_min_ply(*node, ply);
      if (node->ref != id)
        f.node = count_later(node);  // (a repetition this game reached first counts nothing)
    }
    if (counts_edge(i)) {
      Slot* edge = slot_in(t.edges, edge_homes_, p.key, p.move.raw());
      if (edge->ref == 0) {
        *edge = Slot{p.key, plies[i + 1].key, id, ply, p.move.raw()};
        ++edge_count_;
      } else {
        f.edge = count_later(edge);  // a second game, or this game again (its ply kept in the second pass)
      }
    }
    if (f.node || f.edge) found_.push_back(f);
  }
  // Counts one more game (or, for an edge, one more play) into a slot that
  // already has counters: its first tally when it named a single game.
  // The game is counted once into each tally, however often it came back.
  auto tally = [&](Slot& s, Color mover) -> Tally& {
    if (!(s.ref & Slot::kTallied)) s.ref = Slot::kTallied | t.tallies.add(tally_of(s, t));
    Tally& c = t.tallies[s.ref & ~Slot::kTallied];
    if (c.last_game != id) {
      c.last_game = id;
      count_game(c.counters, g, mover);
    }
    return c;
  };
  for (Found& f : found_) {
    const PlyRecord& p = plies[f.ply];
    const Color mover = mover_at(f.ply);
    if (moved) {
      if (f.node) f.node = find(t.nodes, node_homes_, range, p.key, 0);
      if (f.edge) f.edge = find(t.edges, edge_homes_, range, p.key, p.move.raw());
    }
    if (f.node) tally(*f.node, mover);
    if (f.edge) {
      // The tally first, which takes a one-game slot's first play from its ply.
      Tally& c = tally(*f.edge, mover);
      keep_min_ply(*f.edge, ply_at(f.ply));
      ++c.occurrences;
      c.score += store::play_score(g.result, mover);
    }
  }
  return make_room();
}

// Grows a table past its load limit: doubles it, or when that would pass the
// budget (with the old copy it is rebuilt from), gives it what the budget
// leaves; spills when that is too little.
// The tallies and games count against the budget too: when they push a grown
// table set over it, the tables spill before they are full. (Tables that
// never grew, under a tiny budget, spill only when full: their tallies are
// bounded by their slots.)
BuildStatus Aggregator::make_room() {
  constexpr double kSlot = sizeof(Slot);
  const SlotTables& t = tables_;
  const std::size_t initial = std::size_t(1) << kInitialBits;
  const bool used = node_count_ + edge_count_ > 0;
  double fixed = double(t.tallies.bytes() + t.games.capacity() * sizeof(GameRecord)) + 2 * kSlack * kSlot;
  double room = (double(budget_) - fixed) / kSlot;  // home slots the budget allows
  bool grown = node_homes_ > initial || edge_homes_ > initial;
  const bool over_budget = grown && double(node_homes_ + edge_homes_) > room && used;
  if (over_budget || over_refs(t)) return spill(over_budget);
  bool nodes_full = double(node_count_) > kMaxLoad * double(node_homes_);
  bool edges_full = double(edge_count_) > kMaxLoad * double(edge_homes_);
  if (!nodes_full && !edges_full) return std::nullopt;
  const double node_homes = double(node_homes_), edge_homes = double(edge_homes_);
  double nodes = node_homes * (nodes_full ? 2 : 1), edges = edge_homes * (edges_full ? 2 : 1);
  bool nodes_first = true;
  // The last growth leaves a sixteenth of the room free: the budget falls a
  // little at every block while the fingerprints grow, and tables sized to
  // the room exactly were over it at the next block.
  const double growth_room = room * (1 - kGrowthHeadroom);
  if (2 * (node_homes + edge_homes) + std::max(node_homes, edge_homes) > growth_room) {
    // The last growth the budget allows. Both tables are rebuilt, sized in
    // proportion to what they hold, so that they fill up together: doubling
    // the table that filled first left the other no room to grow, and the
    // tables spilled with one of them a third full (the lines spilled 14
    // times, now 8).
    // The table with the larger old copy is rebuilt first, beside both old
    // tables; the other then beside the first's new one.
    nodes_first = node_homes >= edge_homes;
    const double first_old = std::max(node_homes, edge_homes), second_old = std::min(node_homes, edge_homes);
    const double node_share = double(node_count_ + 1) / double(node_count_ + edge_count_ + 2);
    const double first_share = nodes_first ? node_share : 1 - node_share;
    const double total =
        std::min(growth_room - second_old, (growth_room - first_old - second_old) / first_share);
    if (total < kMinGrowth * (node_homes + edge_homes)) return used ? spill(false) : std::nullopt;
    nodes = total * node_share;
    edges = total - nodes;
    nodes_full = edges_full = true;
  }
  auto grow_nodes = [&] {
    if (nodes_full) node_homes_ = rebuild(tables_.nodes, std::size_t(nodes), range_);
  };
  auto grow_edges = [&] {
    if (edges_full) edge_homes_ = rebuild(tables_.edges, std::size_t(edges), range_);
  };
  if (nodes_first) {
    grow_nodes();
    grow_edges();
  } else {
    grow_edges();
    grow_nodes();
  }
  return std::nullopt;
}

// Compacts the used slots of each table to its front, in order.
void Aggregator::sort_tables() {
  auto sort = [](SlotVector& v, auto less) {
    auto end = std::remove_if(v.begin(), v.end(), [](const Slot& s) { return s.ref == 0; });
    insertion_sort(v.data(), v.data() + (end - v.begin()), less);
    v.resize(std::size_t(end - v.begin()));
  };
  sort(tables_.nodes, node_less);
  sort(tables_.edges, edge_less);
}

BuildStatus Aggregator::spill(bool over_budget) {
  std::size_t node_slots = tables_.nodes.size(), edge_slots = tables_.edges.size();
  sort_tables();
  Run run;
  run.path = next_run_path();
  ++spill_count_;
  RunFileWriter writer;
  if (auto e = writer.open(run)) return e;
  for (const Slot& s : tables_.nodes) writer.add_node(tables_, s);
  std::vector<std::uint8_t> ranks;
  const Slot* edges = tables_.edges.data();
  for (std::size_t i = 0, end; i < tables_.edges.size(); i = end) {  // each key's edges
    for (end = i + 1; end < tables_.edges.size() && edges[end].key == edges[i].key;) ++end;
    ranks.resize(end - i);
    edge_ranks(tables_, edges + i, edges + end, ranks.data());
    for (std::size_t j = i; j < end; ++j) writer.add_edge(tables_, edges[j], ranks[j - i]);
  }
  if (auto e = writer.close()) return e;
  runs_.push_back(std::move(run));
  tables_.tallies.clear();
  tables_.games.clear();
  tables_.games.shrink_to_fit();
  tables_.next_stamp = 0;
  node_count_ = edge_count_ = 0;
  const std::size_t initial = std::size_t(1) << kInitialBits;
  const bool grown = node_homes_ > initial || edge_homes_ > initial;
  if (!over_budget &&
      (!grown || double(node_homes_ + edge_homes_ + 2 * kSlack) <= double(budget_) / sizeof(Slot))) {
    // Full tables: reuse the memory, same number of slots, all free.
    tables_.nodes.assign(node_slots, Slot{});
    tables_.edges.assign(edge_slots, Slot{});
  } else {
    // The budget shrank below the tables (set_budget: the build's memory
    // outside them grew): start small again and grow within what is left.
    // Tables kept at their size spilled again as soon as a few games'
    // tallies came back, a run of a few games per block while the budget
    // fell (13,250 runs at 10 M games, full depth, docs/SCALE.md).
    node_homes_ = edge_homes_ = initial;
    SlotVector(node_homes_ + kSlack).swap(tables_.nodes);
    SlotVector(edge_homes_ + kSlack).swap(tables_.edges);
  }
  return compact_runs();
}

std::string Aggregator::next_run_path() {
  return spill_dir_ + "/" + std::string(kRunFilePrefix) + std::to_string(::getpid()) + "-" +
         std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-" + std::to_string(run_serial_++);
}

BuildStatus Aggregator::compact_runs() {
  for (int level = 0;; ++level) {
    std::vector<const Run*> same;  // in the order of the input (see below)
    for (const Run& r : runs_)
      if (!r.path.empty() && r.level == level) same.push_back(&r);
    if (same.size() < kRunsPerMerge) return std::nullopt;
    Run merged;
    merged.level = level + 1;
    merged.path = next_run_path();
    {
      RunMerger merger(same);
      RunFileWriter writer;
      if (auto e = merger.open()) return e;
      if (auto e = writer.open(merged)) return e;
      NodeEntry n;
      while (merger.next_node(n)) writer.add(n);
      EdgeEntry e;
      while (merger.next_edge(e)) writer.add(e);
      if (auto e = writer.close()) return e;
      if (auto e = merger.error()) return e;
      collisions_ += merger.collisions();
    }
    // The runs of a level are merged as soon as there are kRunsPerMerge, so
    // every run of a level came after those of the levels above it: the
    // merged run goes last, and runs_ stays in the order of the input.
    std::vector<Run> kept;
    for (Run& r : runs_) {
      if (!r.path.empty() && r.level == level)
        ::unlink(r.path.c_str());
      else
        kept.push_back(std::move(r));
    }
    kept.push_back(std::move(merged));
    runs_.swap(kept);
  }
}

BuildStatus Aggregator::finish() {
  sort_tables();
  Run run;
  // Give back the free slots before the commit needs memory for its pages
  // (lowers a build's peak by a third at --max-ply 40).
  release_spare_capacity(tables_.nodes);
  release_spare_capacity(tables_.edges);
  run.memory = std::move(tables_);
  runs_.push_back(std::move(run));
  tables_ = SlotTables{};
  return std::nullopt;
}

}  // namespace gb::builder
