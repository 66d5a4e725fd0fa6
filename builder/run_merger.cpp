#include "builder/run_merger.h"

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
  nodes_.clear();
  edges_.clear();
  collisions_ = 0;
  for (const Run* r : runs_) {
    bool memory = r->path.empty();
    long edge_offset = long(r->node_count * sizeof(NodeEntry));
    nodes_.push_back(std::make_unique<RunStream<NodeEntry>>(memory ? &r->nodes : nullptr, r->path, 0, r->node_count));
    edges_.push_back(
        std::make_unique<RunStream<EdgeEntry>>(memory ? &r->edges : nullptr, r->path, edge_offset, r->edge_count));
    if (!nodes_.back()->open(error) || !edges_.back()->open(error)) return false;
  }
  return true;
}

bool RunMerger::next_node(NodeEntry& out) {
  RunStream<NodeEntry>* best = nullptr;
  for (auto& s : nodes_)
    if (s->peek() && (!best || s->peek()->key < best->peek()->key)) best = s.get();
  if (!best) return false;
  out = *best->peek();
  best->advance();
  for (auto& s : nodes_) {
    while (s->peek() && s->peek()->key == out.key) {
      if (s->peek()->record.position_hash == out.record.position_hash)
        out.record.merge(s->peek()->record);
      else
        ++collisions_;
      s->advance();
    }
  }
  return true;
}

bool RunMerger::next_edge(EdgeEntry& out) {
  auto less = [](const EdgeEntry& a, const EdgeEntry& b) { return a.key != b.key ? a.key < b.key : a.move < b.move; };
  RunStream<EdgeEntry>* best = nullptr;
  for (auto& s : edges_)
    if (s->peek() && (!best || less(*s->peek(), *best->peek()))) best = s.get();
  if (!best) return false;
  out = *best->peek();
  best->advance();
  for (auto& s : edges_) {
    while (s->peek() && s->peek()->key == out.key && s->peek()->move == out.move) {
      out.record.merge(s->peek()->record);
      s->advance();
    }
  }
  return true;
}

}  // namespace gb::builder
