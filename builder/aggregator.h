// In-memory aggregation of (position, move) counters for one build thread.
//
// Each build thread owns one Aggregator (no locks), which counts the
// positions of one KeyRange. Games are added as the sequence of positions
// they pass through; counters are summed in one flat hash table of compact
// slots, nodes (move 0) and edges (key+move) alike, all placed by their key:
// a position's node and its edges lie side by side, mostly in one cache
// line, so that a ply costs one cache miss, not one in a table of nodes and
// another in a table of edges. When the table outgrows the memory budget it
// is sorted and written to a run file (run_file.h, a "spill"); at the end
// the table itself becomes the last, sorted, in-memory run. The RunMerger
// (run_merger.h) merges all runs of all threads in key order.
//
// A slot is 24 bytes, a third of an expanded entry: most positions of a
// collection are reached by one game only, so a slot names that game (its
// result, ratings and year sit in a per-run table of games) and only a slot
// that a second game reaches, or a repetition within its game, gets a Tally
// with real counters. Smaller slots are fewer cache misses per ply, three
// times as many positions in the same budget, and spill files a third the size.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "book/store/buckets.h"
#include "book/store/records.h"
#include "builder/build_error.h"
#include "builder/large_pages.h"

namespace gb::builder {

// A node or edge with its key, expanded: what runs yield and the book stores.
struct NodeEntry {
  Key key = 0;
  store::NodeRecord record;
};
struct EdgeEntry {
  Key key = 0;
  std::uint16_t move = 0;
  store::EdgeRecord record;
};

// The order of runs, their merge and the book: nodes by key, edges by key
// then move.
inline bool key_move_order(Key a, std::uint16_t a_move, Key b, std::uint16_t b_move) {
  return a != b ? a < b : a_move < b_move;
}
inline bool node_order(const NodeEntry& a, const NodeEntry& b) { return a.key < b.key; }
inline bool edge_order(const EdgeEntry& a, const EdgeEntry& b) {
  return key_move_order(a.key, a.move, b.key, b.move);
}

// One position of a game: its key, its full-position hash and the move
// played from it (Move() for the final position).
struct PlyRecord {
  Key key;
  std::uint32_t position_hash;  // store::position_hash: 32 bits, as the book keeps it
  Move move;
};
// 16 bytes: every position a build reads is written as one by the thread
// that parses it and read by every thread, each for its range (build.cpp).
static_assert(sizeof(PlyRecord) == 16);

// Which side's moves become edges (--color).
enum class Side : std::uint8_t { Both, White, Black };

struct GameFacts {
  int white_elo = 0;  // 0: no rating
  int black_elo = 0;
  int year = 0;       // 0: unknown
  int date = 0;       // yyyymmdd (parse_pgn_date), 0: unknown; the period of its buckets
  int first_ply = 0;  // the game ply of plies[0] (0 for the standard start)
  store::Result result = store::Result::Unknown;
  store::Speed speed = store::Speed::Unknown;  // from the TimeControl tag (buckets)
  Color first_mover = Color::White;
  Side side =
      Side::Both;  // this game's edges (build --player: the player's colour); Both: the build's --color
};

// A node (move 0) or an edge in the tables.
struct Slot {
  Key key = 0;
  std::uint64_t hash = 0;  // node: the position hash; edge: the child's key
  std::uint32_t ref = 0;   // 0: free; kTallied | i: tallies[i]; else the one game (1-based) that counted it
  std::uint16_t ply = 0;   // the smallest ply (15 bits) | kBlackPly: Black is to move at the node
  std::uint16_t move = 0;  // edges: the move
  static constexpr std::uint32_t kTallied = 0x80000000u;
  static constexpr std::uint16_t kBlackPly = 0x8000;
  static constexpr std::uint16_t kMaxPly = kBlackPly - 1;
  std::uint16_t min_ply() const { return ply & kMaxPly; }
  Color mover() const { return ply & kBlackPly ? Color::Black : Color::White; }  // at the node
};
static_assert(sizeof(Slot) == 24);

// Counters of a slot reached by more than one game (or twice by one).
struct Tally {
  store::Counters counters;
  std::uint32_t occurrences = 0;  // edges: Polyglot's count of every play
  std::uint32_t score = 0;        // edges: Polyglot's 2*win + draw per play
  std::uint32_t last_game = 0;    // the game that last counted it
  std::uint32_t first_play = 0;   // edges: the stamp of its first play in the run (GameRecord::stamp)
};
// first_play sits in what was the padding after last_game.
static_assert(sizeof(Tally) == 56);

// Tallies in blocks that never move (no doubling spike in the budget).
class TallyArena {
 public:
  std::uint32_t add(const Tally& t);
  Tally& operator[](std::uint32_t i) {
    assert(i < size_);
    return blocks_[i >> kBlockBits][i & kBlockMask];
  }
  const Tally& operator[](std::uint32_t i) const {
    assert(i < size_);
    return blocks_[i >> kBlockBits][i & kBlockMask];
  }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return blocks_.size() * sizeof(Tally) << kBlockBits; }
  void clear() {
    blocks_.clear();
    size_ = 0;
  }
  // No tallies, the blocks kept for the next ones (bytes() is unchanged).
  void reset() { size_ = 0; }
  // Gives back the blocks that hold no tally.
  void shrink_to_fit() { blocks_.resize((size_ + kBlockMask) >> kBlockBits); }

 private:
  static constexpr int kBlockBits = 12;
  static constexpr std::uint32_t kBlockMask = (1u << kBlockBits) - 1;
  std::vector<std::vector<Tally>> blocks_;  // each of 1 << kBlockBits, never resized
  std::size_t size_ = 0;
};

// The facts of a game that a slot names.
struct GameRecord {
  std::uint16_t elo[2] = {0, 0};  // by Color
  std::uint16_t year = 0;
  store::Result result = store::Result::Unknown;
  // The play at slot ply p of this game has the stamp stamp + p: stamps grow
  // with the input (the games in order, the plies of a game in order), so
  // they order the first plays of a position's moves as Polyglot make-book
  // orders its entries of equal weight (docs/FORMAT.md, "Polyglot export").
  std::uint32_t stamp = 0;
};

// Slots in pages reserved for the most a table may grow to (ReservedPages,
// large_pages.h): an Aggregator's table grows in place, never beside a copy
// of itself. A free slot is all zero bytes, and every slot past size() is
// free: a table grows into slots that are free already.
class SlotArray {
 public:
  SlotArray() = default;
  // Room for max_slots without moving (a larger resize moves them once).
  explicit SlotArray(std::size_t max_slots) : pages_(max_slots * sizeof(Slot)) {}
  SlotArray(SlotArray&& o) noexcept : pages_(std::move(o.pages_)), size_(std::exchange(o.size_, 0)) {}
  SlotArray& operator=(SlotArray&& o) noexcept {
    pages_ = std::move(o.pages_);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Slot* data() { return static_cast<Slot*>(pages_.data()); }
  const Slot* data() const { return static_cast<const Slot*>(pages_.data()); }
  Slot* begin() { return data(); }
  Slot* end() { return data() + size_; }
  const Slot* begin() const { return data(); }
  const Slot* end() const { return data() + size_; }
  Slot& operator[](std::size_t i) {
    assert(i < size_);
    return data()[i];
  }
  const Slot& operator[](std::size_t i) const {
    assert(i < size_);
    return data()[i];
  }

  // n slots: the first ones kept, the others free. The memory of the slots
  // cut off goes back to the system. Throws std::bad_alloc when the system
  // has none.
  void resize(std::size_t n);
  // n slots, all free: the first ones written free in the pages they have,
  // which a table cleared at each spill would otherwise fault in again.
  void clear(std::size_t n) {
    std::fill(begin(), begin() + std::min(n, size_), Slot{});
    resize(n);
  }

 private:
  ReservedPages pages_;
  std::size_t size_ = 0;
};

// Slots with what they refer to: an Aggregator's live table, or, sorted and
// compacted, an in-memory run.
struct SlotTables {
  // A run's: by key, then move: each key's node (move 0) before its edges.
  SlotArray slots;
  TallyArena tallies;
  std::vector<GameRecord> games;
  std::uint32_t next_stamp = 0;  // the next game's GameRecord::stamp
  NodeEntry node(const Slot& s) const;
  // The edge with record.polyglot_rank 0: a run's ranks are its edge_ranks.
  EdgeEntry edge(const Slot& s) const;
  // The stamp of an edge slot's first play in the run.
  std::uint32_t first_play(const Slot& s) const {
    const GameRecord* g = one_game(s);
    return g ? g->stamp + s.min_ply() : tallies[s.ref & ~Slot::kTallied].first_play;
  }
  // The one game a slot names, or nullptr when it has a tally.
  const GameRecord* one_game(const Slot& s) const {
    assert(s.ref != 0);  // a free slot names nothing
    assert(s.ref & Slot::kTallied ? (s.ref & ~Slot::kTallied) < tallies.size() : s.ref <= games.size());
    return s.ref & Slot::kTallied ? nullptr : &games[s.ref - 1];
  }
};

// Past the slots of slots[at]'s key in sorted slots [at, end): its node and
// edges lie together.
inline std::size_t key_end(const Slot* slots, std::size_t at, std::size_t end) {
  assert(at < end);
  std::size_t i = at + 1;
  while (i < end && slots[i].key == slots[at].key) ++i;
  return i;
}

// The place of each of the edge slots [first, last) of one key, sorted by
// move, in the order of their first plays in the run (0: played first), into
// ranks (capped at 255): the rank of first play that a run gives its edges
// in their record.polyglot_rank.
void edge_ranks(const SlotTables& t, const Slot* first, const Slot* last, std::uint8_t* ranks);

// Appends to out the entry of the section of node (nullptr: none) and edges
// (in move order, ranked) as a group of the book holds it
// (section_groups.h, GroupEncoder::entry_of). section: scratch.
void append_entry(const store::NodeRecord* node, const std::vector<EdgeEntry>& edges, std::string& section,
                  std::string& out);

// The records of the position whose slots in a run's tables t are [first,
// last): its node (when it has one), returned, and its edges, ranked by first
// play in the run (edge_ranks), appended to edges. ranks: scratch.
std::optional<NodeEntry> expand(const SlotTables& t, const Slot* first, const Slot* last,
                                std::vector<std::uint8_t>& ranks, std::vector<EdgeEntry>& edges);

// What append_entry of slots keeps between positions (for its memory).
struct EntryScratch {
  std::vector<std::uint8_t> ranks;
  std::vector<EdgeEntry> edges;
  std::string section;
};
// Appends to out the entry of the position whose slots in a run's tables t
// are [first, last) (its node, if it has one, then its edges by move) as a
// group of the book holds it (section_groups.h, GroupEncoder::entry_of): its
// section, its edges ranked by first play in the run (edge_ranks).
void append_entry(const SlotTables& t, const Slot* first, const Slot* last, EntryScratch& scratch,
                  std::string& out);

// A place in a spill file: its record number `ordinal` (among the nodes, or
// among the edges) starts at byte `offset` and has key `key`.
struct RunMark {
  Key key = 0;
  std::uint64_t offset = 0;
  std::uint64_t ordinal = 0;
};

// A spill file marks every kRunMarkEvery-th node and edge, so that a merge of
// one slice of the key space starts reading near the slice's first key
// (RunStream::open): a mark per 100 KiB of a file or so, half of that passed
// over on average.
inline constexpr std::uint64_t kRunMarkEvery = 4096;

// The keys first to last (both in): a slice of the key space.
struct KeySpan {
  Key first = 0;
  Key last = ~Key(0);
  bool holds(Key key) const { return key >= first && key <= last; }
};

// A sorted run: the slots of a build's last run, a spill file (run_file.h),
// or expanded entries (an import); exactly one of the three. Every run gives
// each edge, in record.polyglot_rank, its rank of first play among the edges
// of its key in the run (for an import: its place among its key's entries in
// the .bin); runs are in the order of the input (RunMerger relies on both).
struct Run {
  SlotTables memory;             // the last run of a build: sorted nodes, sorted edges
  std::vector<NodeEntry> nodes;  // expanded entries, sorted
  std::vector<EdgeEntry> edges;
  std::string path;              // spill file: nodes then edges
  std::uint64_t node_count = 0;  // spill file: its nodes, its edges, where the edges start
  std::uint64_t edge_count = 0;
  std::uint64_t edge_offset = 0;
  std::vector<RunMark> node_marks, edge_marks;  // spill file: every kRunMarkEvery-th node and edge
  Key last_node_key = 0, last_edge_key = 0;     // spill file: the keys of its last node and last edge
  // A spill file of sections (run_file.h): its positions (with its node_count
  // nodes and edge_count edges), every kRunMarkEvery-th of them, the last key.
  bool sections = false;
  std::uint64_t section_count = 0;
  std::vector<RunMark> section_marks;
  Key last_section_key = 0;
  int level = 0;  // spill files: how many merges made it (see Aggregator::compact_runs)
};

// One of `count` equal ranges of the key space, in key order: the keys whose
// scaled value key * count / 2^64 is `index`. A build gives each thread's
// Aggregator one range, so that no position is counted on two threads: each
// slot is held once in the build's memory, and the runs of two threads never
// hold the same key, so their merge only concatenates.
struct KeyRange {
  std::uint32_t index = 0, count = 1;
  bool holds(Key key) const {
    __extension__ typedef unsigned __int128 Wide;
    return std::uint64_t((static_cast<Wide>(key) * count) >> 64) == index;
  }
  // A key of the range spread over all 64 bits, in the same order (key *
  // count mod 2^64): what tables of one range scale to their size.
  std::uint64_t spread(std::uint64_t key) const { return key * count; }
};

class Aggregator {
 public:
  // memory_budget: bytes the tables may use before a spill; spill_dir:
  // where run files go (removed by the destructor); range: the positions it
  // counts (the others of every game are left to the other ranges);
  // expected_slots: about how many nodes and edges the input may bring
  // (0: unknown), which sizes the first table, up to a share of the budget:
  // an input that fills the budget starts near the size its table would
  // grow to, not at the smallest (each growth rehashes the table, and pages
  // grown into come one 4 KiB fault at a time, where a table made whole at
  // once gets 2 MiB pages).
  Aggregator(std::size_t memory_budget, std::string spill_dir, Side side, KeyRange range = {},
             std::uint64_t expected_slots = 0);
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // A new budget for the tables, from the next game on: a build lowers it as
  // its memory outside the tables (the fingerprints of the games) grows.
  // Tables above it spill at the next game and start small again.
  void set_budget(std::size_t memory_budget);

  // plies[0..n) are the positions a game passed through (plies[n-1].move is
  // Move()). Counts each node and edge once for the game, every occurrence
  // in the Polyglot counts. Games come in the order of the input. An error
  // (a BuildError::book naming the run file) when a spill failed; the
  // aggregator is then of no further use.
  [[nodiscard]] BuildStatus add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n);

  // Sorts what is in memory into a final run; after this only runs() is valid.
  [[nodiscard]] BuildStatus finish();
  const std::vector<Run>& runs() const { return runs_; }  // in the order of the input
  std::uint64_t collisions() const { return collisions_; }
  std::size_t spills() const { return spill_count_; }
  std::size_t home_slots() const { return homes_; }  // of the table now

 private:
  BuildStatus make_room();  // grows a full table within the budget, or spills
  // over_budget: the tables outgrew a budget that fell; else they are full.
  BuildStatus spill(bool over_budget);
  BuildStatus compact_runs();
  std::string next_run_path();
  void sort_table();

  // A ply of the game being added whose slots already held counters: what
  // add_game's second pass counts into.
  struct Found {
    std::uint32_t ply;
    Slot* node;  // nullptr: nothing to count at the node
    Slot* edge;  // nullptr: nothing to count at the edge
  };

  SlotTables tables_;
  std::vector<Found> found_;             // add_game's scratch, kept for its capacity
  std::vector<std::uint32_t> in_range_;  // add_game's scratch: the plies of the game in range_
  std::size_t homes_;                    // home slots of the table (it holds a slack more)
  std::size_t used_ = 0;                 // the slots in use: nodes and edges
  std::size_t budget_;
  std::string spill_dir_;
  Side side_;
  KeyRange range_;
  std::uint64_t collisions_ = 0;
  std::size_t spill_count_ = 0;
  std::size_t run_serial_ = 0;  // names the run files
  std::vector<Run> runs_;
};

}  // namespace gb::builder
