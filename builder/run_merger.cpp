#include "builder/run_merger.h"

#include <algorithm>
#include <cassert>

namespace gb::builder {

namespace {

// Where a run keeps its nodes or its edges.
template <class T>
struct RunPart;
template <>
struct RunPart<NodeEntry> {
  static const std::vector<NodeEntry>& entries(const Run& r) { return r.nodes; }
  static const std::vector<Slot>& slots(const Run& r) { return r.memory.nodes; }
  static NodeEntry expand(const Run& r, const Slot& s) { return r.memory.node(s); }
  static std::uint64_t file_offset(const Run&) { return 0; }
  static std::uint64_t count(const Run& r) { return r.node_count; }
  static bool before(const NodeEntry& a, const NodeEntry& b) { return node_order(a, b); }
};
template <>
struct RunPart<EdgeEntry> {
  static const std::vector<EdgeEntry>& entries(const Run& r) { return r.edges; }
  static const std::vector<Slot>& slots(const Run& r) { return r.memory.edges; }
  static EdgeEntry expand(const Run& r, const Slot& s) { return r.memory.edge(s); }
  static std::uint64_t file_offset(const Run& r) { return r.edge_offset; }
  static std::uint64_t count(const Run& r) { return r.edge_count; }
  static bool before(const EdgeEntry& a, const EdgeEntry& b) { return edge_order(a, b); }
};

}  // namespace

template <class T>
void RunStream<T>::advance() {
  using Part = RunPart<T>;
  if (!run_.path.empty()) {
    has_ = file_.next(head_);
  } else if (const auto& entries = Part::entries(run_); !entries.empty()) {
    has_ = at_ < entries.size();
    if (has_) head_ = entries[at_++];
    // A run is sorted and holds each key (and move) once: the merge relies on it.
    assert(!has_ || at_ < 2 || Part::before(entries[at_ - 2], head_));
  } else {
    const auto& slots = Part::slots(run_);
    has_ = at_ < slots.size();
    if (has_) head_ = Part::expand(run_, slots[at_++]);
    assert(!has_ || at_ < 2 || Part::before(Part::expand(run_, slots[at_ - 2]), head_));
  }
}

template <class T>
BuildStatus RunStream<T>::open() {
  at_ = 0;
  has_ = false;
  if (!run_.path.empty())
    if (auto e = file_.open(run_.path, RunPart<T>::file_offset(run_), RunPart<T>::count(run_))) return e;
  advance();
  return std::nullopt;
}

template class RunStream<NodeEntry>;
template class RunStream<EdgeEntry>;

namespace {

// A k-way merge step over streams: pops the smallest head and folds in every
// equal head. The streams form a binary min-heap on their heads (exhausted
// streams are dropped), so a step costs O(log k), not O(k): the final merge of
// a build reads dozens of runs. The heap holds each head's key and move
// beside its stream, so that sifting compares what is in the heap's own
// cache lines instead of following a pointer to each stream.
template <class T, class Fold>
bool merge_step(std::vector<HeapItem<T>>& heap, T& out, Fold fold) {
  if (heap.empty()) return false;
  // Advances the top stream and sifts it down in place: one pass of about
  // log k levels, where pop_heap + push_heap took two (the merge is the
  // critical path of the commit).
  auto pop_advance = [&] {
    HeapItem<T> top = heap.front();
    top.stream->advance();
    if (top.stream->peek()) {
      top = HeapItem<T>::of(top.stream);
    } else {
      top = heap.back();
      heap.pop_back();
      if (heap.empty()) return;
    }
    std::size_t n = heap.size(), i = 0;
    for (std::size_t child; (child = 2 * i + 1) < n; i = child) {
      if (child + 1 < n && heap[child + 1] < heap[child]) ++child;
      if (!(heap[child] < top)) break;
      heap[i] = heap[child];
    }
    heap[i] = top;
  };
  const HeapItem<T> first = heap.front();
  out = *first.stream->peek();
  pop_advance();
  while (!heap.empty() && heap.front().same_head(first)) {
    fold(out, *heap.front().stream->peek());
    pop_advance();
  }
  return true;
}

template <class T>
void make_heap_of(std::vector<std::unique_ptr<RunStream<T>>>& streams, std::vector<HeapItem<T>>& heap) {
  heap.clear();
  for (auto& s : streams)
    if (s->peek()) heap.push_back(HeapItem<T>::of(s.get()));
  std::make_heap(heap.begin(), heap.end(), [](const HeapItem<T>& a, const HeapItem<T>& b) { return b < a; });
}

}  // namespace

BuildStatus RunMerger::open() {
  nodes_.clear();
  edges_.clear();
  collisions_ = 0;
  node_error_.clear();
  edge_error_.clear();
  for (const Run* r : runs_) {
    nodes_.push_back(std::make_unique<RunStream<NodeEntry>>(*r));
    edges_.push_back(std::make_unique<RunStream<EdgeEntry>>(*r));
    if (auto e = nodes_.back()->open()) return e;
    if (auto e = edges_.back()->open()) return e;
  }
  make_heap_of(nodes_, node_heap_);
  make_heap_of(edges_, edge_heap_);
  return std::nullopt;
}

// At the end of a stream: a run file that ended early is an error, not an end.
template <class T>
bool RunMerger::check(bool more, const std::vector<std::unique_ptr<RunStream<T>>>& streams,
                      std::string& error) {
  if (more || !error.empty()) return more;
  for (std::size_t i = 0; i < runs_.size(); ++i)
    if (streams[i]->failed()) error = "the aggregation run " + runs_[i]->path + " is damaged";
  return false;
}

bool RunMerger::next_node(NodeEntry& out) {
  return check(merge_step(node_heap_, out,
                          [this](NodeEntry& acc, const NodeEntry& e) {
                            if (e.record.position_hash == acc.record.position_hash)
                              acc.record.merge(e.record);
                            else
                              ++collisions_;
                          }),
               nodes_, node_error_);
}

bool RunMerger::next_edge(EdgeEntry& out) {
  return check(
      merge_step(edge_heap_, out, [](EdgeEntry& acc, const EdgeEntry& e) { acc.record.merge(e.record); }),
      edges_, edge_error_);
}

}  // namespace gb::builder
