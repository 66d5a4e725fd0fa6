// The aggregation of a build's buckets (book/store/buckets.h): per thread,
// beside its Aggregator and for the same KeyRange, the (key, move, bucket)
// counts of the games. The Aggregator's 24-byte slots name one game or a
// tally of one node or edge and cannot hold a split by bucket, so buckets take
// a path of their own, simpler and separate: each game's contributions are
// appended to a buffer as items of fixed size; a full buffer is sorted and
// its equal items summed, and when that frees less than half of it, it is
// written as a sorted run file (graphbook-run-PID-b..., removed like the
// Aggregator's); 16 files of one level are merged into one of the next. The
// BucketMerger merges every thread's runs in key order for the commit.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "book/store/buckets.h"
#include "builder/aggregator.h"
#include "builder/build_error.h"

namespace gb::builder {

// One bucket of one node (move 0) or edge, as the buffer and the run files
// hold it (the files: these bytes, in bucket_item_less order).
struct BucketItem {
  Key key = 0;
  std::uint64_t id = 0;
  std::uint64_t elo_sum = 0;
  std::uint64_t first_play = 0;
  std::uint32_t games = 0, white_wins = 0, draws = 0, black_wins = 0, rated_games = 0;
  std::uint32_t occurrences = 0, score = 0;
  std::uint16_t move = 0, min_ply = 0;
};
static_assert(sizeof(BucketItem) == 64);

inline bool bucket_item_less(const BucketItem& a, const BucketItem& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.move != b.move) return a.move < b.move;
  return a.id < b.id;
}
inline bool same_bucket(const BucketItem& a, const BucketItem& b) {
  return a.key == b.key && a.move == b.move && a.id == b.id;
}
// Adds b's counts into a (same bucket).
void add_item(BucketItem& a, const BucketItem& b);
store::BucketCounters counters_of(const BucketItem& item);

class BucketAggregator {
 public:
  BucketAggregator(std::size_t memory_budget, std::string spill_dir, Side side, KeyRange range,
                   bool by_month);
  ~BucketAggregator();
  BucketAggregator(const BucketAggregator&) = delete;
  BucketAggregator& operator=(const BucketAggregator&) = delete;

  // Counts the game's positions of the range into its buckets, as
  // Aggregator::add_game counts them into the totals. ordinal: the game's
  // place among the games of the book (from 1: the games it had before, then
  // this build's in input order); source: its input's number in `sources`.
  [[nodiscard]] BuildStatus add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n,
                                     std::uint64_t ordinal, std::uint32_t source);
  // Sorts what is in memory into the last run.
  [[nodiscard]] BuildStatus finish();

  // A sorted run file written elsewhere (the buckets an MPI rank received,
  // BucketRunWriter), merged as one of this aggregation's and removed with it.
  void adopt_run(std::string path) {
    files_.push_back(std::move(path));
    levels_.push_back(0);
  }

  const std::vector<std::string>& files() const { return files_; }
  const std::vector<BucketItem>& memory() const { return items_; }  // after finish(): sorted, summed
  std::size_t spills() const { return spill_count_; }

 private:
  void compact();  // sorts items_ and sums equal buckets
  BuildStatus spill();
  std::string next_path();

  std::vector<BucketItem> items_;
  std::vector<BucketItem> game_;  // add_game's scratch
  std::size_t capacity_;
  std::string spill_dir_;
  Side side_;
  KeyRange range_;
  bool by_month_;
  std::vector<std::string> files_;
  std::vector<int> levels_;  // of files_
  std::size_t spill_count_ = 0, serial_ = 0;
};

// Writes items in bucket_item_less order to a new run file: an
// aggregation's spills, and what an MPI rank receives (adopt_run).
class BucketRunWriter {
 public:
  explicit BucketRunWriter(const std::string& path);
  ~BucketRunWriter();
  BucketRunWriter(const BucketRunWriter&) = delete;
  BucketRunWriter& operator=(const BucketRunWriter&) = delete;
  void add(const BucketItem& item);
  [[nodiscard]] BuildStatus close();
  const std::string& path() const { return path_; }

 private:
  void flush();
  std::string path_;
  std::FILE* f_;
  std::vector<BucketItem> buf_;
  bool failed_ = false;
};

// Merges the runs of every thread's BucketAggregator (in the order of their
// key ranges) into one stream of keys in order, each with its buckets.
class BucketMerger {
 public:
  explicit BucketMerger(std::vector<const BucketAggregator*> aggregators);
  ~BucketMerger();
  // The next key and its buckets sorted by store::bucket_order; false at the
  // end or on an error (then error() is set).
  bool next(Key& key, std::vector<store::BucketEntry>& entries);
  const BuildStatus& error() const { return error_; }
  // From the first key again (a commit redone after the map grew).
  void restart();
  // The next item of all streams, equal buckets summed, in bucket_item_less
  // order (what next() groups by key; what an MPI rank sends); false at the
  // end or on an error.
  bool next_item(BucketItem& out);

 private:
  struct Stream;
  bool open_thread();
  std::vector<const BucketAggregator*> aggregators_;
  std::size_t thread_ = 0;
  std::unique_ptr<Stream> stream_;
  BucketItem pending_{};  // next_item's: the bucket being summed
  bool has_pending_ = false;
  BucketItem head_{};  // next's: the first bucket of the next key
  bool has_head_ = false;
  BuildStatus error_;
};

}  // namespace gb::builder
