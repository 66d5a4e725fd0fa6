// The counting of a build into a new book: the plies of one KeyRange kept as
// they came, in partitions of the key space, and counted by sorting each
// partition when the book is written.
//
// The Aggregator (aggregator.h) counts into a hash table: every ply is a
// look-up in a table far larger than the cache, and a table that outgrows
// the budget is sorted, encoded and written as a run that the commit decodes
// and merges again. Here a ply is appended to a buffer (no look-up), and a
// full buffer is cut into partitions by key (one stable counting pass) and
// written as it is: a spill is one sequential write, with no encoding. The
// commit takes the partitions in key order, each a slice of the key space
// that fits the cache: it reads the partition's plies from every spill,
// sorts them by key (stably: a key's plies stay in the order of the input)
// and counts each key's plies into its node and edges, straight into the
// sections of the book (PartitionSlices). docs/SCALE.md measures both.
//
// A key's plies, read in the order of the input, give what the table gave:
// its node counts each game once, each edge each game once and each play in
// the Polyglot counts, an edge's rank is the place of its first play among
// the key's edges, and a ply whose position hash differs from the key's
// first is a collision, left out.
//
// A partition too large for a slice (one key reached by most games: the
// start position of a large collection) is counted in chunks, cut between
// games, each chunk into a run of expanded entries, and the runs merged as
// the Aggregator's are (RunMerger).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "builder/aggregator.h"
#include "builder/build_error.h"
#include "builder/large_pages.h"
#include "builder/section_slices.h"

namespace gb::builder {

// One ply of a counted game: its position, and the move played from it when
// the move is counted (an edge). All a node and an edge take of their game is
// here, so a partition is counted without the games.
struct PlyEntry {
  Key key = 0;
  Key child = 0;                  // the key after the move (edges)
  std::uint32_t hash = 0;         // the position hash (32 bits, as the book keeps it)
  std::uint32_t game = 0;         // the game's number in this KeyRange: counted once per node and edge
  std::uint16_t move = 0;         // 0: no edge (the final position, or a side not counted)
  std::uint16_t ply = 0;          // as Slot::ply: the ply (15 bits) | Slot::kBlackPly
  std::uint16_t mover_elo = 0;    // 0: not rated
  std::uint16_t year_result = 0;  // year << 2 | store::Result
  static constexpr int kMaxYear = (1 << 14) - 1;
  store::Result result() const { return store::Result(year_result & 3); }
  int year() const { return year_result >> 2; }
  Color mover() const { return ply & Slot::kBlackPly ? Color::Black : Color::White; }
};
static_assert(sizeof(PlyEntry) == 32);

// Plies in address space reserved once for max_plies (large_pages.h), made
// resident as the array grows, in 2 MiB pages where the system gives them:
// a slice's scratch, which its thread keeps for the next slice (a vector
// grown by doubling faulted each new page, some 5 to 12 µs each here), in
// whole large pages: a commit's slices are of sizes near one large page.
class PlyArray {
 public:
  explicit PlyArray(std::size_t max_plies) : pages_(max_plies * sizeof(PlyEntry)) {}
  // In pages reserved (and perhaps made resident) before: their plies are undefined.
  explicit PlyArray(ReservedPages pages) : pages_(std::move(pages)) {}
  PlyEntry* data() { return static_cast<PlyEntry*>(pages_.data()); }
  const PlyEntry* data() const { return static_cast<const PlyEntry*>(pages_.data()); }
  std::size_t size() const { return size_; }
  // n plies (those kept hold what they held, the others are undefined);
  // false when n is past the reservation or the system has no memory.
  [[nodiscard]] bool resize(std::size_t n) {
    if (!pages_.use_large_pages(n * sizeof(PlyEntry))) return false;
    size_ = n;
    return true;
  }

 private:
  ReservedPages pages_;
  std::size_t size_ = 0;
};

class PlyPartitions {
 public:
  // The spills of a level are merged kSpillsPerMerge at a time into one of
  // the next, partition by partition: a build keeps fewer than
  // kSpillsPerMerge files a level open, and a slice reads as many pieces,
  // however many spills a large build makes. A merge writes every ply once
  // more, so it waits until the pieces would be many: at 16 a range, the
  // lines (18 spills a range) and tcec at full depth (20) each wrote most of
  // their plies twice (docs/SCALE.md, "Fresh memory").
  static constexpr std::size_t kSpillsPerMerge = 32;
  // A range's first kHalfSpills spills are of half the buffer (room()).
  static constexpr std::size_t kHalfSpills = 16;

  // memory_budget: the bytes the two buffers may take (plies as they come,
  // and the same cut into partitions; half of it until kHalfSpills
  // spills were made); expected_plies: about how many plies the
  // input may bring (0: unknown), which sets how many partitions the key
  // range is cut into, so that one partition of every spill together stays
  // within a slice.
  PlyPartitions(std::size_t memory_budget, std::string spill_dir, Side side, KeyRange range,
                std::uint64_t expected_plies);
  ~PlyPartitions();  // closes the spill files (which have no name: they are gone)
  PlyPartitions(const PlyPartitions&) = delete;
  PlyPartitions& operator=(const PlyPartitions&) = delete;

  // As Aggregator::set_budget: from the next ply on, the buffer spills at
  // what the budget allows, and the spill gives back the pages past it.
  void set_budget(std::size_t memory_budget);
  // As Aggregator::add_game: plies[0..n) are the positions a game passed
  // through, games in the order of the input. An error names the spill file
  // that could not be written.
  [[nodiscard]] BuildStatus add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n);
  // Cuts the plies still in memory into partitions; after this only the
  // read side below is valid.
  [[nodiscard]] BuildStatus finish();

  // The partitions, in key order: partition p holds the keys whose
  // range_.spread(key) has p in its top partition_bits() bits.
  std::size_t partitions() const { return std::size_t(1) << bits_; }
  int partition_bits() const { return bits_; }
  const KeyRange& range() const { return range_; }
  // The plies of partition p over every spill and memory.
  std::uint64_t plies_in(std::size_t p) const;
  // Writes the plies of partitions [first, last) to out (which has room for
  // them: plies_in summed), partition by partition, each in the order of the
  // input; an error names a spill file that could not be read. Safe on
  // several threads at once.
  [[nodiscard]] BuildStatus read(std::size_t first, std::size_t last, PlyEntry* out) const;
  // Calls take(plies, n) with the plies of partition p in the order of the
  // input, in chunks of `plies` or so, each cut between games (a chunk ends
  // where a game's plies do, so that no game is counted in two), read
  // through buffer. Safe on several threads at once, each with its buffer.
  [[nodiscard]] BuildStatus read_chunks(std::size_t p, std::size_t plies, PlyArray& buffer,
                                        const std::function<void(const PlyEntry*, std::size_t)>& take) const;
  std::size_t spills() const { return spill_count_; }
  // After finish: the pages of the buffer plies came into, resident and
  // holding nothing now, for a slice's scratch to take (once; empty pages
  // after): fresh pages in their place made each thread's first slice of a
  // small book several times slower than the next (docs/SCALE.md, "Fresh
  // memory"). Reserved for at least kScratchPlies; resident, the first 2 MiB.
  ReservedPages take_spare_pages();
  // The plies a slice's scratch reads at most (PartitionSlices).
  static constexpr std::size_t kScratchPlies = std::size_t(1) << 18;
  // The plies are read no more: the spill files are closed (which have no
  // name: the kernel drops their pages) and the memory of the last plies
  // goes back. Only spills() is valid after it.
  void release();

 private:
  // A file of plies cut into partitions: partition p's plies are
  // [starts[p], starts[p + 1]) (in plies), in the order of the input.
  struct Spill {
    std::string path;
    int fd = -1;
    std::vector<std::uint64_t> starts;  // partitions() + 1
    int level = 0;                      // how many merges made it (compact)
  };
  [[nodiscard]] BuildStatus compact();
  [[nodiscard]] BuildStatus merge(std::size_t first, std::size_t count, Spill& out);
  std::string next_path();
  std::size_t partition_of(Key key) const { return std::size_t(range_.spread(key) >> (64 - bits_)); }
  // Cuts the buffer's plies into partitions (into cut_), stably; starts
  // gets where each begins.
  void cut(std::vector<std::uint64_t>& starts);
  [[nodiscard]] BuildStatus spill();
  std::size_t capacity() const { return budget_ / 2 / sizeof(PlyEntry); }
  std::size_t room() const;  // the plies the buffer may grow to now (half of capacity() at first)

  std::size_t budget_;
  std::string spill_dir_;
  Side side_;
  KeyRange range_;
  int bits_ = 0;
  ReservedPages buffer_pages_, cut_pages_;  // each for the most plies a budget may hold
  std::size_t reserved_ = 0;                // plies each of them has room for
  std::size_t used_ = 0;                    // plies in the buffer
  std::size_t in_use_ = 0;                  // plies the buffer's pages have room for
  PlyEntry* buffer_ = nullptr;
  PlyEntry* cut_ = nullptr;
  std::vector<std::uint64_t> memory_starts_;  // after finish: the partitions of cut_
  std::vector<Spill> spills_;                 // in the order of the input
  std::size_t spill_count_ = 0;               // spills made (not counting merges)
  std::size_t serial_ = 0;                    // names the files
  std::uint32_t games_ = 0;                   // numbers the games from 1
  bool finished_ = false;
};

// The slices of a new book made from the partitions of every KeyRange (in
// range order): consecutive partitions of one range, some tens of thousands
// of plies each, each counted on the thread that takes it (SectionSlices).
// min_games and keep_pruned as for the runs' slices. The last slice of a
// range releases it (PlyPartitions::release), on the slice's thread: the
// kernel's freeing of the spills' pages, some milliseconds at full depth,
// then runs beside the writer, not after the commit.
std::unique_ptr<SliceMaker> partition_slices(const std::vector<PlyPartitions*>& ranges,
                                             std::uint32_t min_games, bool keep_pruned);

}  // namespace gb::builder
