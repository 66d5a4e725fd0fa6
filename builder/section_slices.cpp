#include "builder/section_slices.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>

#include "book/store/section_groups.h"
#include "builder/large_pages.h"

namespace gb::builder {

namespace {

// More than the bytes of a node's or an edge's part of an entry, on average
// (a book of sections takes some 16 an edge: docs/FORMAT.md).
constexpr std::uint64_t kEntryBytes = 24;

std::uint64_t entries_of(const Run& r) {
  if (!r.path.empty()) return r.node_count + r.edge_count;
  return r.nodes.size() + r.edges.size() + r.memory.slots.size();
}

// count equal slices of the key space, in key order (Polyglot keys are
// uniformly random: they hold about as many positions each).
std::vector<KeySpan> equal_spans(std::size_t count) {
  __extension__ typedef unsigned __int128 Wide;
  std::vector<KeySpan> spans(count);
  for (std::size_t i = 0; i < count; ++i) {
    spans[i].first = Key((Wide(i) << 64) / count);
    if (i > 0) spans[i - 1].last = spans[i].first - 1;
  }
  spans.back().last = ~Key(0);
  return spans;
}

}  // namespace

std::uint64_t slice_entries(const std::vector<const Run*>& runs) {
  std::uint64_t files = 0;
  for (const Run* r : runs) files += !r->path.empty();
  return std::clamp(files * kRunMarkEvery, kSliceEntries, kMaxSliceEntries);
}

namespace {

// The slices of sorted runs: equal spans of the key space, each merged
// (RunMerger) into its sections.
class RunSlices : public SliceMaker {
 public:
  RunSlices(const std::vector<const Run*>& runs, std::uint32_t min_games, bool keep_pruned,
            std::uint64_t entries, bool remove_files)
      : runs_(runs), min_games_(min_games), keep_pruned_(keep_pruned), remove_files_(remove_files) {
    std::uint64_t all = 0;
    for (const Run* r : runs_) all += entries_of(*r);
    spans_ = equal_spans(std::size_t(std::max<std::uint64_t>(1, all / std::max<std::uint64_t>(1, entries))));
    per_slice_ = all / spans_.size() + 1;
  }
  std::size_t count() const override { return spans_.size(); }
  std::uint64_t per_slice() const override { return per_slice_; }
  bool keeps_pruned() const override { return keep_pruned_; }
  void make(std::size_t i, SliceSections& out) override;

 private:
  void opened();
  const std::vector<const Run*> runs_;
  const std::uint32_t min_games_;
  const bool keep_pruned_;
  const bool remove_files_;
  std::vector<KeySpan> spans_;
  std::uint64_t per_slice_ = 0;  // nodes and edges in a slice, on average
  std::mutex mutex_;
  std::size_t opened_ = 0;  // slices that have opened their runs; guarded by mutex_
};

}  // namespace

SectionSlices::SectionSlices(std::unique_ptr<SliceMaker> maker, unsigned threads)
    : maker_(std::move(maker)), count_(maker_->count()) {
  window_ = threads + 1 + kAhead;  // (the writer's help() one)
  made_.resize(window_);
  ready_.assign(window_, false);
  for (unsigned t = 0; t < threads; ++t) threads_.emplace_back([this] { work(); });
}

SectionSlices::SectionSlices(const std::vector<const Run*>& runs, unsigned threads, std::uint32_t min_games,
                             bool keep_pruned, std::uint64_t entries, bool remove_files)
    : SectionSlices(std::make_unique<RunSlices>(runs, min_games, keep_pruned, entries, remove_files),
                    threads) {}

SectionSlices::~SectionSlices() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

const SliceSections* SectionSlices::get(std::size_t i, bool wait) {
  std::unique_lock lock(mutex_);
  // The writer takes the slices in order, each once made.
  assert(i == released_ && i < count());
  if (wait) changed_.wait(lock, [&] { return bool(ready_[i % window_]); });
  return ready_[i % window_] ? &made_[i % window_] : nullptr;
}

void SectionSlices::release(std::size_t i) {
  {
    std::lock_guard lock(mutex_);
    assert(i == released_ && ready_[i % window_]);
    ready_[i % window_] = false;
    released_ = i + 1;
  }
  changed_.notify_all();
}

// Takes the next slice whose place is free (the writer has released the
// slice window_ before it) until there are none, or until stopped.
void SectionSlices::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || next_ >= count() || has_room(); });
    if (stop_ || next_ >= count()) return;
    make_next(lock);
  }
}

bool SectionSlices::help() {
  std::unique_lock lock(mutex_);
  if (stop_ || next_ >= count() || !has_room()) return false;
  make_next(lock);
  return true;
}

void SectionSlices::make_next(std::unique_lock<std::mutex>& lock) {
  const std::size_t i = next_++;
  SliceSections& out = made_[i % window_];
  lock.unlock();
  make(i, out);
  lock.lock();
  ready_[i % window_] = true;
  changed_.notify_all();
}

// Once the last slice has opened its runs, no merge opens a run file again:
// the files go (remove_files). A file still open goes when the slice that
// reads it closes it, on that slice's thread. Dropping the runs' pages from
// the page cache, there beside the writer, was the last 20 ms of a build at
// full depth on tcec, on the writer's thread after the commit (~Aggregator).
void RunSlices::opened() {
  {
    std::lock_guard lock(mutex_);
    if (++opened_ < count() || !remove_files_) return;
  }
  // (Unlocked: the writer and the other threads go on. A file no slice has
  // open drops its pages here.)
  for (const Run* r : runs_)
    if (!r->path.empty()) ::unlink(r->path.c_str());
}

// The sections of slice i's keys, in key order: the node (when it has one)
// and the edges in move order, each edge sharing the node's fields where it
// can; what has fewer than min_games games in the section of the pruned
// database instead (or nowhere). Each as the entry a group holds.
void SectionSlices::make(std::size_t i, SliceSections& out) {
  out.entries.clear();  // keeping the capacity of the slice this place held before
  out.positions.clear();
  const std::uint64_t per_slice = maker_->per_slice();
  // Room for the slice at once (pages untouched until written): grown by
  // doubling, the first slice of each place copied its entries as they grew
  // and faulted their pages twice (600 of a build's 8,200 page faults at
  // ply 40 in bench/build.sh, 2,200 of 13,200 at full depth).
  const bool first_use = out.positions.capacity() == 0;
  out.entries.reserve(per_slice * kEntryBytes);
  out.positions.reserve(per_slice);
  if (first_use) {
    // The pages about to be written, in one call each (large_pages.h):
    // a slice writes some 11 bytes of entries a node or edge, and a position
    // for every two.
    populate(out.entries.data(), per_slice * 11);
    populate(out.positions.data(), per_slice / 2 * sizeof(SliceSections::Position));
  }
  out.nodes = out.edges = out.collisions = 0;
  out.error.reset();
  maker_->make(i, out);
}

void RunSlices::make(std::size_t i, SliceSections& out) {
  // Most positions are one run's: with every count kept (min_games 1), such
  // a position's entry goes into the book as its run holds it.
  RunMerger merger(runs_, spans_[i], min_games_ <= 1 ? RunMerger::kEntries : RunMerger::kSections);
  out.error = merger.open();
  opened();
  if (out.error) return;
  add_merged(merger, out, min_games_, keep_pruned_);
}

void add_merged(RunMerger& merger, SliceSections& out, std::uint32_t min_games, bool keep_pruned) {
  std::string value, below;
  MergedSection m;
  while (merger.next_section(m)) {
    const Key key = m.key;
    if (!m.entry.empty()) {
      out.entries.append(m.entry);
      out.positions.push_back({key, out.entries.size(), false});
      out.nodes += m.has_node;
      out.edges += m.entry_edges;
      continue;
    }
    const std::vector<EdgeEntry>& edges = m.edges;
    // Most positions of several runs: one game's node and its one edge, written as the group holds them.
    if (m.has_node && edges.size() == 1 && m.node.record.counters.games >= min_games &&
        edges[0].record.counters.games >= min_games &&
        store::append_one_game_inline(out.entries, m.node.record, edges[0].move, edges[0].record)) {
      out.positions.push_back({key, out.entries.size(), false});
      ++out.nodes;
      ++out.edges;
      continue;
    }
    add_position(out, key, m.has_node ? &m.node.record : nullptr, edges, min_games, keep_pruned, value,
                 below);
  }
  out.collisions += merger.collisions();
  out.error = merger.error();
}

void add_position(SliceSections& out, Key key, const store::NodeRecord* node,
                  const std::vector<EdgeEntry>& edges, std::uint32_t min_games, bool keep_pruned,
                  std::string& value, std::string& below) {
  auto add = [&](const std::string& section, bool pruned) {
    store::append_entry(out.entries, section);
    out.positions.push_back({key, out.entries.size(), pruned});
  };
  const store::NodeRecord *kept = nullptr, *below_node = nullptr;
  if (node) {
    if (node->counters.games >= min_games)
      kept = node;
    else if (keep_pruned)
      below_node = node;
  }
  value.clear();
  below.clear();
  store::append_section_node(value, kept);
  store::append_section_node(below, below_node);
  std::size_t kept_edges = 0, below_edges = 0;
  for (const EdgeEntry& edge : edges) {
    if (edge.record.counters.games >= min_games) {
      store::append_section_edge(value, edge.move, edge.record, kept);
      ++kept_edges;
    } else if (keep_pruned) {
      store::append_section_edge(below, edge.move, edge.record, below_node);
      ++below_edges;
    }
  }
  if (kept || kept_edges) add(value, false);
  if (below_node || below_edges) add(below, true);
  out.nodes += kept != nullptr;
  out.edges += kept_edges;
}

}  // namespace gb::builder
