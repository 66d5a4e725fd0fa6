// The fingerprints of the games a build has counted, which decide whether a
// game is a copy of one before it (build.cpp, mark_duplicates).
//
// They are the one part of a build that grows with the games, so they are
// held in memory only up to a limit: past it, the set writes them as a sorted
// run to a file of the spill folder, maps it read-only, and starts empty. A
// fingerprint is new when neither the tables in memory nor a run holds it.
// Fingerprints are uniformly random, so a run is searched by interpolation: a
// look-up touches a page or two of a run, and those pages are the kernel's
// page cache, not the build's memory. Runs of one level are merged
// kRunsPerMerge at a time into one of the next (as the aggregator's runs), so
// a set of n fingerprints checks O(log n) runs.
//
//   DedupSet set(KeyRange{0, 2}, "/tmp", 64 << 20);
//   if (set.insert(fp)) ...            // new: count the game
//   if (auto e = set.spill_if_over()) ...
//   set.take(runs);                    // at the commit: sorted, in order
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "builder/aggregator.h"  // KeyRange
#include "builder/build_error.h"
#include "builder/fingerprint_run.h"

namespace gb::builder {

// The fingerprints of one KeyRange of fp[0] in a build: open-addressing
// tables of the 128-bit fingerprints themselves, one allocation per growth
// instead of one per game (a node-based set allocated for every game of
// bench/build.sh's 198,350 lines), and the runs spilled when they outgrew
// their limit. The tables are kShards, each for an equal part of the range
// in fp[0] order, each growing by half on its own: a growth holds a table's
// old copy beside the new one, and one table of many is a small spike where
// one table for the whole set was a large part of the build's peak memory.
// The home slot is the next bits of fp[0] scaled to the table's size.
class DedupSet {
 public:
  static constexpr std::size_t kRunsPerMerge = 8;
  // memory_limit: bytes the tables may hold (memory_bytes) before
  // spill_if_over writes them to spill_dir; 0: no limit.
  explicit DedupSet(KeyRange range = {}, std::string spill_dir = {}, std::size_t memory_limit = 0)
      : range_(range), spill_dir_(std::move(spill_dir)), memory_limit_(memory_limit) {}

  // True when fp is new to this build (and then remembered); fp is in the range.
  bool insert(const Fingerprint& fp) {
    if (empty(fp)) {
      if (has_zero_ || in_runs(fp)) return false;
      return has_zero_ = true;
    }
    const std::uint64_t spread = range_.spread(fp[0]);
    Shard& shard = shards_[spread >> (64 - kShardBits)];
    if ((shard.count + 1) * 10 > shard.slots.size() * 8) grow(shard);
    Fingerprint* slot = find(shard.slots, spread, fp);
    if (!empty(*slot) || in_runs(fp)) return false;
    *slot = fp;
    ++shard.count;
    return true;
  }
  // Writes the tables to a run when they hold more than the limit (and then
  // merges runs of a level); errors: the spill folder's.
  [[nodiscard]] BuildStatus spill_if_over();
  // Appends the fingerprints to out as runs, each sorted, all of one run
  // before all of the next; the set is empty afterwards. Without spilled
  // runs they are the tables' own memory, compacted and sorted in place (no
  // copy of the whole set exists at any time); with them, one run merged
  // from all of them and the tables.
  [[nodiscard]] BuildStatus take(std::vector<FingerprintRun>& out);

  std::size_t size() const { return in_memory() + spilled_; }
  std::size_t in_memory() const {
    std::size_t n = has_zero_;
    for (const Shard& shard : shards_) n += shard.count;
    return n;
  }
  // A bound on the bytes the tables hold and may grow to before the next
  // check: n fingerprints of 16 bytes in at most n * 15 / 8 slots (a table
  // grows by half past a load of 0.8), plus the shards' first slots.
  std::size_t memory_bytes() const {
    return sizeof(Fingerprint) * (in_memory() * 15 / 8 + (std::size_t(1) << kShardBits) * kFirstSlots);
  }
  std::size_t runs() const { return runs_.size(); }  // held now (merged ones count once)
  std::uint64_t spills() const { return spills_; }   // runs written from the tables
  void set_memory_limit(std::size_t bytes) { memory_limit_ = bytes; }

 private:
  __extension__ typedef unsigned __int128 Wide;
  static constexpr int kShardBits = 6;
  static constexpr std::size_t kFirstSlots = 64;
  struct Shard {
    std::vector<Fingerprint> slots = std::vector<Fingerprint>(kFirstSlots);
    std::size_t count = 0;
  };
  static bool empty(const Fingerprint& f) { return (f[0] | f[1]) == 0; }
  bool in_runs(const Fingerprint& fp) const {
    for (const FingerprintRun& run : runs_)
      if (run.contains(fp, range_.spread(fp[0]))) return true;
    return false;
  }
  // The slot holding fp in slots, or the free slot where it goes.
  static Fingerprint* find(std::vector<Fingerprint>& slots, std::uint64_t spread, const Fingerprint& fp) {
    const std::size_t n = slots.size();
    for (auto i = std::size_t((static_cast<Wide>(spread << kShardBits) * n) >> 64);;
         i = i + 1 == n ? 0 : i + 1)
      if (empty(slots[i]) || slots[i] == fp) return &slots[i];
  }
  void grow(Shard& shard) const {
    std::vector<Fingerprint> old(shard.slots.size() + shard.slots.size() / 2);
    old.swap(shard.slots);
    for (const Fingerprint& f : old)
      if (!empty(f)) *find(shard.slots, range_.spread(f[0]), f) = f;
  }
  // The tables' fingerprints as sorted runs (their own memory); the tables are empty afterwards.
  void take_tables(std::vector<std::vector<Fingerprint>>& out);
  // Writes the tables to a run of level 0.
  [[nodiscard]] BuildStatus spill();
  // Merges the runs of a level while kRunsPerMerge of them are there.
  [[nodiscard]] BuildStatus compact();
  // Merges runs (and sorted parts in memory) into one run of level.
  [[nodiscard]] BuildStatus merge(std::vector<FingerprintRun> runs,
                                  const std::vector<std::vector<Fingerprint>>& parts, int level,
                                  FingerprintRun& out);
  std::string next_run_name();

  KeyRange range_;
  std::string spill_dir_;
  std::size_t memory_limit_ = 0;
  std::array<Shard, std::size_t(1) << kShardBits> shards_;
  bool has_zero_ = false;  // the all-zero fingerprint, which marks a free slot
  std::vector<FingerprintRun> runs_;
  std::size_t spilled_ = 0;  // fingerprints in runs_
  std::uint64_t spills_ = 0;
  unsigned run_serial_ = 0;
};

}  // namespace gb::builder
