#include "builder/aggregator.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <optional>

#include "book/store/section_groups.h"
#include "builder/run_file.h"
#include "builder/run_merger.h"

namespace gb::builder {

namespace {

// The table is an "ordered" linear-probing hash table: a key's home slot is
// its key scaled to the table, key * homes / 2^64 (for a KeyRange, the key
// spread over the whole space first: KeyRange::spread) (Polyglot keys are
// uniformly random; any table size works, so a table can grow to just what
// the memory budget leaves instead of stopping at a power of two, which left
// up to half the budget unused and doubled the spills), so the used slots are in
// key order up to the short displacement of probing, and sorting the table for
// a run is a compaction plus an insertion sort over nearly sorted data
// (std::sort of the table was a hot spot of full-depth builds, which
// bench/build.sh times). Probing never
// wraps: kSlack slots past the end take the overflow of the last homes.
constexpr int kInitialBits = 15;
constexpr std::size_t kSlack = 4096;
constexpr double kMaxLoad = 0.7;
// A table that cannot grow by at least this factor within the budget spills instead.
constexpr double kMinGrowth = 1.25;
// The share of the room the last growth leaves free (make_room).
constexpr double kGrowthHeadroom = 1.0 / 16;
// The share of the budget's room the first table takes when the input may
// fill it (expected_slots): the rest is for the tallies and games (the lines
// of bench/build.sh leave the table 0.58 of it, tcec more).
constexpr double kFirstShare = 0.55;
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

// A run's order: by key, then move (a node, move 0, before its edges).
bool slot_less(const Slot& a, const Slot& b) { return key_move_order(a.key, a.move, b.key, b.move); }

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

// The slots of a ply in table t: its node's, and (for an edge_move, not 0)
// its edge's, each the slot that holds it or the free slot where it goes;
// false when the slack past the last home is full. One walk from the key's
// home finds both, in a cache line or two: nothing is ever removed, so an
// edge, placed after its node existed, lies after it on the walk.
bool find_ply(SlotArray& t, std::size_t homes, KeyRange range, Key key, std::uint16_t edge_move, Slot*& node,
              Slot*& edge) {
  node = edge = nullptr;
  const std::size_t size = t.size();
  std::size_t i = home(key, homes, range);
  for (; i < size && t[i].ref; ++i) {
    if (t[i].key != key) continue;
    if (t[i].move == 0) {
      node = &t[i];
      if (!edge_move) return true;
    } else if (t[i].move == edge_move) {
      assert(node);  // a position's edge lies after its node
      edge = &t[i];
      return true;
    }
  }
  if (i == size) return false;
  if (!node) {  // a new position: its node goes in the free slot, its edge in the next
    node = &t[i];
    if (!edge_move) return true;
    for (++i; i < size && t[i].ref;) ++i;
    if (i == size) return false;
  }
  edge = &t[i];
  return true;
}

// Sorts the used slots of table t to its front, in a run's order (which is
// also the order of their homes, at any table size); returns how many.
std::size_t sort_used(SlotArray& t) {
  Slot* used = std::remove_if(t.begin(), t.end(), [](const Slot& s) { return s.ref == 0; });
  insertion_sort(t.begin(), used, slot_less);
  return std::size_t(used - t.begin());
}

// Grows table t in place to this many home slots, or more when clustering
// overflows the slack; returns the number it got. The used slots are sorted
// to the front, then each goes to its place in the grown table, the last
// first: its home, or the slot past the one before it (where linear probing
// puts keys inserted in order, which keeps a node before its edges). A place
// is never below the slot's index, so no slot is overwritten before it has
// moved. Beside the table this holds only the places, 8 bytes a used slot,
// where a rebuild beside the old table held 24 a slot (make_room).
std::size_t grow(SlotArray& t, std::size_t homes, KeyRange range) {
  const std::size_t used = sort_used(t);
  std::vector<std::size_t> places;  // (new pages each growth: made resident at once, large_pages.h)
  places.reserve(used);
  populate(places.data(), used * sizeof(std::size_t));
  places.resize(used);
  for (;; homes *= 2) {
    std::size_t next = 0;  // the first place after the slot before
    for (std::size_t i = 0; i < used; ++i) {
      next = std::max(next, home(t[i].key, homes, range));
      places[i] = next++;
    }
    if (next <= homes + kSlack) break;
  }
  const std::size_t old_size = t.size();
  t.resize(homes + kSlack);  // the slots past the old ones are free
  Slot* s = t.data();
  std::size_t clear_to = old_size;  // what lies from the last place on up to here is free now
  for (std::size_t i = used; i-- > 0;) {
    const Slot slot = s[i];
    const std::size_t place = places[i];
    assert(place >= i);
    if (place + 1 < clear_to) std::fill(s + place + 1, s + clear_to, Slot{});
    s[place] = slot;
    clear_to = std::min(place, old_size);
  }
  std::fill(s, s + clear_to, Slot{});
  return homes;
}

// The home slots a table may have within budget beside t's tallies and games
// (their memory, used or not) and the slack.
double home_room(const SlotTables& t, std::size_t budget) {
  constexpr double kSlot = sizeof(Slot);
  const double fixed = double(t.tallies.bytes() + t.games.capacity() * sizeof(GameRecord)) + kSlack * kSlot;
  return (double(budget) - fixed) / kSlot;
}

bool over_refs(const SlotTables& t) {
  return t.games.size() >= kMaxRefs || t.tallies.size() >= kMaxRefs || t.next_stamp > kMaxStamp;
}

}  // namespace

std::uint32_t TallyArena::add(const Tally& t) {
  assert(size_ < kMaxRefs);  // a slot names its tally in 31 bits (over_refs spills first)
  if (size_ == blocks_.size() << kBlockBits) {
    // Its pages made resident at once (large_pages.h, populate), then written.
    std::vector<Tally>& block = blocks_.emplace_back();
    block.reserve(std::size_t(1) << kBlockBits);
    populate(block.data(), sizeof(Tally) << kBlockBits);
    block.resize(std::size_t(1) << kBlockBits);
  }
  auto i = std::uint32_t(size_++);
  (*this)[i] = t;
  return i;
}

void SlotArray::resize(std::size_t n) {
  if (n < size_) {
    pages_.zero_from(n * sizeof(Slot));  // a free slot is all zero bytes
  } else if (n > size_ && !pages_.use(n * sizeof(Slot))) {
    // Past the reservation (a table grown past its budget, for a cluster
    // that overflowed the slack): new pages, to which the slots move once.
    ReservedPages more(std::max(n * sizeof(Slot), 2 * pages_.reserved()));
    if (!more.use(n * sizeof(Slot))) throw std::bad_alloc();
    std::memcpy(more.data(), pages_.data(), size_ * sizeof(Slot));
    pages_ = std::move(more);
  }
  size_ = n;
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

void append_entry(const SlotTables& t, const Slot* first, const Slot* last, EntryScratch& scratch,
                  std::string& out) {
  assert(first < last);
  const Slot* node = first->move == 0 ? first : nullptr;
  const Slot* edges = node ? first + 1 : first;
  const auto n = std::size_t(last - edges);
  // Most positions: one game reached it once and played one move there. Its
  // node and edge name that game, at one ply.
  if (node && n == 1 && node->ref == edges->ref && !(node->ref & Slot::kTallied) && node->ply == edges->ply) {
    const GameRecord& g = *t.one_game(*node);
    const Color mover = node->mover();
    const store::OneGameNode one{.position_hash = std::uint32_t(node->hash),
                                 .min_ply = node->min_ply(),
                                 .black = mover == Color::Black,
                                 .result = g.result,
                                 .mover_elo = g.elo[int(mover)],
                                 .year = g.year};
    if (store::append_one_game_inline(out, one, edges->move, edges->hash)) return;
  }
  scratch.edges.clear();
  const std::optional<NodeEntry> expanded = expand(t, first, last, scratch.ranks, scratch.edges);
  append_entry(expanded ? &expanded->record : nullptr, scratch.edges, scratch.section, out);
}

std::optional<NodeEntry> expand(const SlotTables& t, const Slot* first, const Slot* last,
                                std::vector<std::uint8_t>& ranks, std::vector<EdgeEntry>& edges) {
  std::optional<NodeEntry> node;
  if (first < last && first->move == 0) node = t.node(*first++);
  const auto n = std::size_t(last - first);
  ranks.resize(n);
  if (n) edge_ranks(t, first, last, ranks.data());
  for (std::size_t i = 0; i < n; ++i) {
    edges.push_back(t.edge(first[i]));
    edges.back().record.polyglot_rank = ranks[i];
  }
  return node;
}

void append_entry(const store::NodeRecord* node, const std::vector<EdgeEntry>& edges, std::string& section,
                  std::string& out) {
  section.clear();
  store::append_section_node(section, node);
  for (const EdgeEntry& e : edges) store::append_section_edge(section, e.move, e.record, node);
  store::append_entry(out, section);
}

Aggregator::Aggregator(std::size_t memory_budget, std::string spill_dir, Side side, KeyRange range,
                       std::uint64_t expected_slots)
    : homes_(std::size_t(1) << kInitialBits),
      budget_(memory_budget),
      spill_dir_(std::move(spill_dir)),
      side_(side),
      range_(range) {
  const double first = std::min(double(expected_slots) / kMaxLoad, home_room(tables_, budget_) * kFirstShare);
  homes_ = std::max(homes_, std::size_t(std::max(first, 0.0)));
  // Pages for the largest table the budget allows (make_room), reserved, not used.
  tables_.slots = SlotArray(std::max(budget_ / sizeof(Slot), homes_) + kSlack);
  tables_.slots.resize(homes_ + kSlack);
}

void Aggregator::set_budget(std::size_t memory_budget) { budget_ = memory_budget; }

Aggregator::~Aggregator() {
  // (The commit of a new book may have removed them already: SectionSlices.)
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
  // The lookups are cache misses in a table far larger than the cache, and
  // so are the tallies of slots that a second game reached. So the game is
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
    // A new position's node and edge take 48 bytes from its home on: the next line too.
    const Slot* h = &t.slots[home(plies[in_range_[j]].key, homes_, range)];
    __builtin_prefetch(h, 1);
    __builtin_prefetch(reinterpret_cast<const char*>(h) + 64, 1);
  }
  found_.clear();
  bool moved = false;  // the table was rebuilt: the slots found before have moved
  // The slots of a ply (find_ply); a table whose slack is full is rebuilt larger first.
  auto slots_of = [&](Key key, std::uint16_t edge_move, Slot*& node, Slot*& edge) {
    while (!find_ply(t.slots, homes_, range, key, edge_move, node, edge)) {
      homes_ = grow(t.slots, homes_ * 2, range);
      moved = true;
    }
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
    const std::uint16_t edge_move = counts_edge(i) ? p.move.raw() : 0;
    assert(!counts_edge(i) || edge_move != 0);  // move 0 is the node's
    Slot *node, *edge;
    slots_of(p.key, edge_move, node, edge);
    Found f{std::uint32_t(i), nullptr, nullptr};
    if (node->ref == 0) {
      *node = Slot{p.key, p.position_hash, id, ply, 0};
      ++used_;
    } else if (node->hash != p.position_hash) {
      ++collisions_;  // another position with this key: never merged
      continue;
    } else {
      keep_min_ply(*node, ply);
      if (node->ref != id)
        f.node = count_later(node);  // (a repetition this game reached first counts nothing)
    }
    if (edge) {
      if (edge->ref == 0) {
        *edge = Slot{p.key, plies[i + 1].key, id, ply, edge_move};
        ++used_;
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
      Slot *node, *edge;
      slots_of(p.key, f.edge ? p.move.raw() : 0, node, edge);  // (finds, as nothing is added now)
      if (f.node) f.node = node;
      if (f.edge) f.edge = edge;
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

// Grows the table past its load limit: doubles it, or when that would pass
// the budget (with what grow holds beside it), gives it what the budget
// leaves; spills when that is too little.
// The tallies and games count against the budget too: when they push a grown
// table over it, the table spills before it is full. (A table that never
// grew, under a tiny budget, spills only when full: its tallies are bounded
// by its slots.)
BuildStatus Aggregator::make_room() {
  constexpr double kSlot = sizeof(Slot);
  const SlotTables& t = tables_;
  const std::size_t initial = std::size_t(1) << kInitialBits;
  const double room = home_room(t, budget_);
  const bool over_budget = homes_ > initial && double(homes_) > room && used_ > 0;
  if (over_budget || over_refs(t)) return spill(over_budget);
  if (double(used_) <= kMaxLoad * double(homes_)) return std::nullopt;
  const double homes = double(homes_);
  double grown = 2 * homes;
  // The last growth leaves a sixteenth of the room free: the budget falls a
  // little at every block while the fingerprints grow, and a table sized to
  // the room exactly was over it at the next block.
  const double growth_room = room * (1 - kGrowthHeadroom);
  const double places = double(used_) * sizeof(std::size_t) / kSlot;  // what grow holds beside the table
  if (grown + places > growth_room) {
    grown = growth_room - places;  // the last growth the budget allows
    if (grown < kMinGrowth * homes) return spill(false);
  }
  homes_ = grow(tables_.slots, std::size_t(grown), range_);
  return std::nullopt;
}

// Compacts the used slots of the table to its front, in a run's order.
void Aggregator::sort_table() { tables_.slots.resize(sort_used(tables_.slots)); }

BuildStatus Aggregator::spill(bool over_budget) {
  // Sorted in place, the table keeps its pages: cleared, it takes the next games.
  const std::size_t used = sort_used(tables_.slots);
  Run run;
  run.path = next_run_path();
  run.sections = true;
  ++spill_count_;
  RunFileWriter writer;
  if (auto e = writer.open(run)) return e;
  const Slot* slots = tables_.slots.data();
  EntryScratch scratch;
  std::string entry;
  for (std::size_t i = 0, end; i < used; i = end) {  // each key's slots: its node, then its edges
    end = key_end(slots, i, used);
    entry.clear();
    append_entry(tables_, slots + i, slots + end, scratch, entry);
    const bool has_node = slots[i].move == 0;
    writer.add_section(slots[i].key, entry, has_node, end - i - has_node);
  }
  if (auto e = writer.close()) return e;
  runs_.push_back(std::move(run));
  used_ = 0;
  tables_.next_stamp = 0;
  const std::size_t initial = std::size_t(1) << kInitialBits;
  // The home slots the budget leaves beside this run's tallies and games.
  const double beside = home_room(tables_, budget_) * (1 - kGrowthHeadroom);
  // A full table keeps its slots, all free.
  const bool full =
      !over_budget && (homes_ == initial || double(homes_ + kSlack) <= double(budget_) / sizeof(Slot));
  // Over the budget by the tallies and games that came with the run's games
  // (a collection whose games share their positions, like a book of lines):
  // the next run's come too, so the table keeps the slots they leave. Started
  // small again, it grew back three times per run, each a rehash and, on a
  // virtual machine, a page fault per 4 KiB (bench/build.sh, lines).
  // Else the budget shrank below the table (set_budget: the build's memory
  // outside it grew): it starts small again and grows within what is left,
  // with tallies and games given back. A table kept at its size spilled
  // again as soon as a few games' tallies came back, a run of a few games
  // per block while the budget fell (13,250 runs at 10 M games, full depth,
  // docs/SCALE.md).
  const bool keep = full || beside >= std::max(double(homes_) / 2, double(initial));
  if (!full) homes_ = keep ? std::min(homes_, std::size_t(beside)) : initial;
  tables_.slots.clear(full ? tables_.slots.size() : homes_ + kSlack);
  tables_.games.clear();
  if (keep) {
    tables_.tallies.reset();  // their memory is the next run's: counted in its budget as in this one's
  } else {
    tables_.tallies.clear();
    tables_.games.shrink_to_fit();
  }
  return compact_runs();
}

std::string Aggregator::next_run_path() {
  return run_file_path(spill_dir_, std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-" +
                                       std::to_string(run_serial_++));
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
    merged.sections = true;
    {
      // A position that one of the runs alone holds is copied as it is.
      RunMerger merger(same, {}, RunMerger::kEntries);
      RunFileWriter writer;
      if (auto e = merger.open()) return e;
      if (auto e = writer.open(merged)) return e;
      MergedSection m;
      std::string section, entry;
      while (merger.next_section(m)) {
        if (m.entry.empty()) {
          entry.clear();
          append_entry(m.has_node ? &m.node.record : nullptr, m.edges, section, entry);
        }
        writer.add_section(m.key, m.entry.empty() ? entry : m.entry, m.has_node, m.edge_count());
      }
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
  // Sorting gives back the free slots before the commit needs memory for its
  // pages (lowers a build's peak by a third at --max-ply 40).
  sort_table();
  tables_.tallies.shrink_to_fit();  // (a spill kept the blocks of its run's tallies for this one)
  tables_.games.shrink_to_fit();
  Run run;
  run.memory = std::move(tables_);
  runs_.push_back(std::move(run));
  tables_ = SlotTables{};
  return std::nullopt;
}

}  // namespace gb::builder
