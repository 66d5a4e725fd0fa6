// Merges the sorted runs of every Aggregator into one stream of nodes in key
// order and one stream of edges in (key, move) order, summing the counters of
// equal keys. Two nodes with one key and different position hashes are a
// collision: the first is kept, the other counted and dropped.
//
// open() may be called again to replay the streams from the start (a commit
// that hit MDB_MAP_FULL is redone from scratch).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "builder/aggregator.h"

namespace gb::builder {

template <class T>
class RunStream {
 public:
  RunStream(const std::vector<T>* memory, std::string path, long offset, std::uint64_t count);
  ~RunStream();
  RunStream(const RunStream&) = delete;
  RunStream& operator=(const RunStream&) = delete;
  bool open(std::string* error);
  const T* peek() const { return at_ < filled_ ? &window_[at_] : nullptr; }
  void advance();

 private:
  void refill();
  const std::vector<T>* memory_;
  std::string path_;
  long offset_;
  std::uint64_t count_, read_ = 0;
  std::FILE* file_ = nullptr;
  std::vector<T> buffer_;
  const T* window_ = nullptr;
  std::size_t at_ = 0, filled_ = 0;
};

class RunMerger {
 public:
  explicit RunMerger(std::vector<const Run*> runs) : runs_(std::move(runs)) {}
  [[nodiscard]] bool open(std::string* error);
  // The next merged node/edge; false at the end.
  bool next_node(NodeEntry& out);
  bool next_edge(EdgeEntry& out);
  std::uint64_t collisions() const { return collisions_; }

 private:
  std::vector<const Run*> runs_;
  std::vector<std::unique_ptr<RunStream<NodeEntry>>> nodes_;
  std::vector<std::unique_ptr<RunStream<EdgeEntry>>> edges_;
  std::vector<RunStream<NodeEntry>*> node_heap_;  // streams with a head, as a min-heap
  std::vector<RunStream<EdgeEntry>*> edge_heap_;
  bool heaps_ready_ = false;
  std::uint64_t collisions_ = 0;
};

}  // namespace gb::builder
