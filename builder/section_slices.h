// The sections of a new book, made from the sorted runs of a build on several
// threads at once: the key space is cut into slices of some tens of thousands
// of nodes and edges, each slice's runs are merged (RunMerger over that span)
// and its sections encoded, as the entries of a group hold them
// (store::GroupEncoder::entry_of), by whichever thread takes it (the writer's
// too, while the slice it wants is not made: help); the writer of the book
// takes the slices in key order, groups their entries and appends the
// groups, as LMDB's one writer must. A thread works at most a few slices
// ahead of the writer, so the entries held wait for it are bounded (a few MB)
// whatever the size of the book.
//
// Before, two merge threads (one for the nodes, one for the edges) handed the
// writer the parts of sections, which it joined, shared and grouped: the
// writer's work, one thread's, was most of a commit (bench/build.sh). Now a
// slice's merge and encoding are on the thread that takes it, and the writer
// cuts the groups where one stream of sections would (the book is the same
// whatever the slices, the threads and the spills).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "builder/build_error.h"
#include "builder/run_merger.h"

namespace gb::builder {

// What a slice holds for the writer: its positions' entries (sections as a
// group holds them), back to back in key order, each for the positions
// database or the pruned one, and what it counted.
struct SliceSections {
  struct Position {
    Key key = 0;
    std::size_t end = 0;  // of its entry in entries; it starts at the previous position's end
    bool pruned = false;  // for the pruned database, else for positions
  };
  std::string entries;
  std::vector<Position> positions;
  std::uint64_t nodes = 0, edges = 0;  // written to positions
  std::uint64_t collisions = 0;        // found in merging the runs
  BuildStatus error;                   // a run file that could not be read

  std::string_view entry(std::size_t i) const {
    const std::size_t begin = i ? positions[i - 1].end : 0;
    return std::string_view(entries).substr(begin, positions[i].end - begin);
  }
};

// The nodes and edges a slice merges, about (slice_entries): its entries take
// some 1 MB (30,000 positions or so), and its merge reads each spill file from
// a mark at most kRunMarkEvery records before the slice, passed over
// undecoded. With many spill files (a large build) that is more than the slice
// needs of each, so a slice grows with them, to kRunMarkEvery records a file:
// what is passed over stays within about half of what is merged, and the
// slices held for the writer (kAhead and one a thread, 15 bytes or so a node
// or edge) within some 30 MB.
inline constexpr std::uint64_t kSliceEntries = std::uint64_t(1) << 16;
inline constexpr std::uint64_t kMaxSliceEntries = std::uint64_t(1) << 19;
std::uint64_t slice_entries(const std::vector<const Run*>& runs);

// Adds the section of key, its node (nullptr: none) and its edges in move
// order (ranked), to out as the entries of a group hold them; what has fewer
// than min_games games goes to a section of the pruned database instead
// (keep_pruned) or nowhere. value, below: scratch.
void add_position(SliceSections& out, Key key, const store::NodeRecord* node,
                  const std::vector<EdgeEntry>& edges, std::uint32_t min_games, bool keep_pruned,
                  std::string& value, std::string& below);

// Adds the positions of an opened merge to out, in key order, as
// add_position does (a position that one run alone holds as that run's
// entry, in RunMerger::kEntries); with the merge's collisions and its error.
void add_merged(RunMerger& merger, SliceSections& out, std::uint32_t min_games, bool keep_pruned);

// What a SectionSlices makes its slices of: slices of the key space in key
// order, each made apart from the others.
class SliceMaker {
 public:
  virtual ~SliceMaker() = default;
  virtual std::size_t count() const = 0;
  // About how many nodes and edges a slice holds (its room is made at once).
  virtual std::uint64_t per_slice() const = 0;
  // Whether the slices hold sections for the pruned database.
  virtual bool keeps_pruned() const = 0;
  // Slice i's sections into out (emptied, its capacity kept); called on any
  // thread, for each slice once.
  virtual void make(std::size_t i, SliceSections& out) = 0;
};

class SectionSlices {
 public:
  // Makes maker's slices on `threads` threads (0: only help() makes them).
  SectionSlices(std::unique_ptr<SliceMaker> maker, unsigned threads);
  // Merges runs (each sorted, in the order of the input) on `threads`
  // threads; nodes and edges with fewer than min_games games go to the
  // pruned database when keep_pruned, else are left out. entries: the nodes
  // and edges of a slice, about (slice_entries(runs); a test makes them few).
  // remove_files: the runs' files are the caller's temporaries, removed once
  // the last slice has opened them.
  SectionSlices(const std::vector<const Run*>& runs, unsigned threads, std::uint32_t min_games,
                bool keep_pruned, std::uint64_t entries, bool remove_files = false);
  ~SectionSlices();  // stops the threads (the writer may stop early: an LMDB error)
  SectionSlices(const SectionSlices&) = delete;
  SectionSlices& operator=(const SectionSlices&) = delete;

  std::size_t count() const { return count_; }
  // Whether the slices hold sections for the pruned database (keep_pruned).
  bool keeps_pruned() const { return maker_->keeps_pruned(); }
  // Slice i (taken in order, from 0) once it is made; nullptr when it is not
  // yet and wait is false. Valid until release(i).
  const SliceSections* get(std::size_t i, bool wait);
  // The writer is done with slice i: its memory goes to a later slice.
  void release(std::size_t i);
  // Makes the next slice not yet taken, on the calling thread: the writer's,
  // while the slice it wants is not made yet. False when none is left to
  // take or none has room. The writer and one thread fewer then share the
  // commit's cores: with a thread more than cores, each waited on the others
  // (docs/SCALE.md, "The writer makes slices while it waits").
  bool help();

 private:
  // The slices a thread may be ahead of the writer, beside the threads' own.
  static constexpr std::size_t kAhead = 2;
  void work();
  // Whether slice next_ has a place free (the writer released the slice
  // window_ before it); under mutex_.
  bool has_room() const { return next_ < released_ + window_; }
  // Makes slice next_, taken under lock (unlocked meanwhile).
  void make_next(std::unique_lock<std::mutex>& lock);
  void make(std::size_t i, SliceSections& out);

  std::unique_ptr<SliceMaker> maker_;
  const std::size_t count_;
  std::size_t window_;  // slices made or being made beyond the writer's

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<SliceSections> made_;   // by slice % window_; guarded by mutex_ while not ready
  std::vector<bool> ready_;           // of made_; guarded by mutex_
  std::size_t next_ = 0;              // the next slice to take; guarded by mutex_
  std::size_t released_ = 0;          // slices the writer is done with; guarded by mutex_
  bool stop_ = false;                 // guarded by mutex_
  std::vector<std::thread> threads_;  // last: they start after the rest exists
};

}  // namespace gb::builder
