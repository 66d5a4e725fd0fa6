#include "builder/run_merger.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gb::builder {

namespace {
constexpr std::size_t kBufferRecords = 8192;
}

template <class T>
RunStream<T>::RunStream(const std::vector<T>* memory, std::string path, long offset, std::uint64_t count)
    : memory_(memory), path_(std::move(path)), offset_(offset), count_(count) {}

template <class T>
RunStream<T>::~RunStream() {
  if (file_) std::fclose(file_);
}

template <class T>
bool RunStream<T>::open(std::string* error) {
  if (memory_) {
    window_ = memory_->data();
    filled_ = memory_->size();
    at_ = 0;
    return true;
  }
  file_ = std::fopen(path_.c_str(), "rb");
  if (!file_ || std::fseek(file_, offset_, SEEK_SET) != 0) {
    if (error) *error = "cannot read the aggregation run " + path_ + ": " + std::strerror(errno);
    return false;
  }
  buffer_.resize(kBufferRecords);
  refill();
  return true;
}

template <class T>
void RunStream<T>::refill() {
  std::size_t want = std::size_t(std::min<std::uint64_t>(kBufferRecords, count_ - read_));
  filled_ = want ? std::fread(buffer_.data(), sizeof(T), want, file_) : 0;
  read_ += filled_;
  window_ = buffer_.data();
  at_ = 0;
}

template <class T>
void RunStream<T>::advance() {
  if (++at_ == filled_ && !memory_) refill();
}

template class RunStream<NodeEntry>;
template class RunStream<EdgeEntry>;

bool RunMerger::open(std::string* error) {
  heaps_ready_ = false;
  nodes_.clear();
  edges_.clear();
  collisions_ = 0;
  for (const Run* r : runs_) {
    bool memory = r->path.empty();
    long edge_offset = long(r->node_count * sizeof(NodeEntry));
    nodes_.push_back(
        std::make_unique<RunStream<NodeEntry>>(memory ? &r->nodes : nullptr, r->path, 0, r->node_count));
    edges_.push_back(std::make_unique<RunStream<EdgeEntry>>(memory ? &r->edges : nullptr, r->path,
                                                            edge_offset, r->edge_count));
    if (!nodes_.back()->open(error) || !edges_.back()->open(error)) return false;
  }
  return true;
}

namespace {

// A k-way merge step over streams: pops the smallest head and folds in every
// equal head. The streams form a binary min-heap on their heads (exhausted
// streams are dropped), so a step costs O(log k), not O(k): the final merge of
// a build reads dozens of runs.
template <class T, class Less, class Same, class Fold>
bool merge_step(std::vector<RunStream<T>*>& heap, T& out, Less less, Same same, Fold fold) {
  if (heap.empty()) return false;
  // Advances the top stream and sifts it down in place: one pass of about
  // log k levels, where pop_heap + push_heap took two (the merge is the
  // critical path of the commit).
  auto pop_advance = [&] {
    RunStream<T>* top = heap.front();
    top->advance();
    if (!top->peek()) {
      top = heap.back();
      heap.pop_back();
      if (heap.empty()) return;
    }
    const T& head = *top->peek();
    std::size_t n = heap.size(), i = 0;
    for (std::size_t child; (child = 2 * i + 1) < n; i = child) {
      if (child + 1 < n && less(*heap[child + 1]->peek(), *heap[child]->peek())) ++child;
      if (!less(*heap[child]->peek(), head)) break;
      heap[i] = heap[child];
    }
    heap[i] = top;
  };
  out = *heap.front()->peek();
  pop_advance();
  while (!heap.empty() && same(*heap.front()->peek(), out)) {
    fold(out, *heap.front()->peek());
    pop_advance();
  }
  return true;
}

template <class T, class Less>
void make_heap_of(std::vector<std::unique_ptr<RunStream<T>>>& streams, std::vector<RunStream<T>*>& heap,
                  Less less) {
  heap.clear();
  for (auto& s : streams)
    if (s->peek()) heap.push_back(s.get());
  std::make_heap(heap.begin(), heap.end(),
                 [&](RunStream<T>* a, RunStream<T>* b) { return less(*b->peek(), *a->peek()); });
}

bool node_less(const NodeEntry& a, const NodeEntry& b) { return a.key < b.key; }
bool edge_less(const EdgeEntry& a, const EdgeEntry& b) {
  return a.key != b.key ? a.key < b.key : a.move < b.move;
}

}  // namespace

bool RunMerger::next_node(NodeEntry& out) {
  if (!heaps_ready_) {
    make_heap_of(nodes_, node_heap_, node_less);
    make_heap_of(edges_, edge_heap_, edge_less);
    heaps_ready_ = true;
  }
  return merge_step(
      node_heap_, out, node_less, [](const NodeEntry& a, const NodeEntry& b) { return a.key == b.key; },
      [this](NodeEntry& acc, const NodeEntry& e) {
        if (e.record.position_hash == acc.record.position_hash)
          acc.record.merge(e.record);
        else
          ++collisions_;
      });
}

bool RunMerger::next_edge(EdgeEntry& out) {
  if (!heaps_ready_) {
    make_heap_of(nodes_, node_heap_, node_less);
    make_heap_of(edges_, edge_heap_, edge_less);
    heaps_ready_ = true;
  }
  return merge_step(
      edge_heap_, out, edge_less,
      [](const EdgeEntry& a, const EdgeEntry& b) { return a.key == b.key && a.move == b.move; },
      [](EdgeEntry& acc, const EdgeEntry& e) { acc.record.merge(e.record); });
}

}  // namespace gb::builder
