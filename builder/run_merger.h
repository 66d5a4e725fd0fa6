// Merges the sorted runs of every Aggregator into one stream of nodes in key
// order and one stream of edges in (key, move) order, summing the counters of
// equal keys. Two nodes with one key and different position hashes are a
// collision: the one of the earliest run is kept (the position the input
// reached first, as one run keeps it), the other counted and dropped.
//
// Each merged edge gets, in record.polyglot_rank, its rank of first play
// among the merged edges of its key: the runs are in the order of the input
// (those of one key range, of one Aggregator, are), so an edge first played
// in an earlier run came first, and within a run its rank there says
// (aggregator.h, Run). This is the order Polyglot make-book keeps between
// entries of equal weight (docs/FORMAT.md, "Polyglot export").
//
// open() may be called again to replay the streams from the start (a commit
// that hit MDB_MAP_FULL is redone from scratch). After open(), the node
// stream and the edge stream share nothing: one thread may take the nodes
// while another takes the edges.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "builder/aggregator.h"
#include "builder/run_file.h"

namespace gb::builder {

// The nodes (T = NodeEntry) or edges (EdgeEntry) of one run in order,
// expanded: from the slots of an in-memory run or decoded from its file.
template <class T>
class RunStream {
 public:
  // index: the run's place among the merged runs; span: the keys it yields.
  RunStream(const Run& run, std::size_t index, KeySpan span = {}) : run_(run), index_(index), span_(span) {}
  [[nodiscard]] BuildStatus open();
  const T* peek() const { return has_ ? &head_ : nullptr; }
  void advance();  // the stream ends past the span
  bool failed() const { return file_.failed(); }
  std::size_t index() const { return index_; }

 private:
  void advance_in_run();
  const Run& run_;
  std::size_t index_;
  KeySpan span_;
  RunFileReader file_;
  std::size_t at_ = 0;  // in-memory runs: the next slot
  T head_;
  bool has_ = false;
  // In-memory runs of edges: the ranks of the slots [group_begin_, group_end_) of one key.
  std::size_t group_begin_ = 0, group_end_ = 0;
  std::vector<std::uint8_t> ranks_;
};

// A stream in a merge's heap, with the key (and move) of its head and the
// stream's place among the merged runs.
template <class T>
struct HeapItem {
  Key key = 0;
  std::uint16_t move = 0;
  std::uint32_t index = 0;
  RunStream<T>* stream = nullptr;
  static HeapItem of(RunStream<T>* s) {
    const T& head = *s->peek();
    const auto index = std::uint32_t(s->index());
    if constexpr (std::is_same_v<T, EdgeEntry>)
      return {head.key, head.move, index, s};
    else
      return {head.key, 0, index, s};
  }
  // node_order and edge_order of the heads (a node's move is 0); equal
  // heads by their runs' order, so that the earliest run's comes first: the
  // node a collision keeps is the one the input reached first, however the
  // games fell into runs.
  bool operator<(const HeapItem& o) const {
    if (key != o.key || move != o.move) return key_move_order(key, move, o.key, o.move);
    return index < o.index;
  }
  bool same_head(const HeapItem& o) const { return key == o.key && move == o.move; }
};

class RunMerger {
 public:
  // span: the keys merged (a slice of the key space; all by default).
  explicit RunMerger(std::vector<const Run*> runs, KeySpan span = {}) : runs_(std::move(runs)), span_(span) {}
  const std::vector<const Run*>& runs() const { return runs_; }
  // Opens every run (again); an error names the run file that cannot be read.
  [[nodiscard]] BuildStatus open();
  // The next merged node/edge; false at the end (or when a run file is
  // damaged: then error() says which).
  bool next_node(NodeEntry& out);
  bool next_edge(EdgeEntry& out);
  // Or the two at once, a key at a time: the next key, its node (has_node:
  // a run holds one) and its edges in move order, merged and ranked as
  // next_node and next_edge give them; false at the end (or when a run file
  // is damaged: then error() says which). A merge takes its keys this way
  // or by the two streams, not both. One heap of runs by their next key,
  // where the two streams keep two heaps of heads and copy each edge through
  // a group: most keys of a slice are in one run, and their node and edges
  // come straight from it (the merge was most of a slice's work:
  // section_slices.h).
  bool next_section(Key& key, bool& has_node, NodeEntry& node, std::vector<EdgeEntry>& edges);
  std::uint64_t collisions() const { return collisions_; }  // of the nodes taken
  // Once both streams ended: a BuildError::book naming the run file that
  // could not be read to its end, if one could not.
  BuildStatus error() const;

 private:
  template <class T>
  bool check(bool more, const std::vector<std::unique_ptr<RunStream<T>>>& streams, BuildStatus& error);
  // The next merged edge, and the order of its first play: the earliest run
  // that holds it and its rank there.
  bool merge_edge(EdgeEntry& out, std::uint64_t& first);
  std::vector<const Run*> runs_;
  KeySpan span_;
  std::vector<std::unique_ptr<RunStream<NodeEntry>>> nodes_;
  std::vector<std::unique_ptr<RunStream<EdgeEntry>>> edges_;
  std::vector<HeapItem<NodeEntry>> node_heap_;  // streams with a head, as a min-heap
  std::vector<HeapItem<EdgeEntry>> edge_heap_;
  std::uint64_t collisions_ = 0;
  BuildStatus node_error_, edge_error_;  // the first damaged run file of each stream
  // The merged edges of one key, their first plays, the next to hand out;
  // and the first edge of the next key, merged ahead.
  std::vector<EdgeEntry> group_;
  std::vector<std::uint64_t> group_first_;
  std::vector<std::uint32_t> group_order_;
  std::size_t group_at_ = 0;
  // next_section's: the runs with a head, by their next key (then their
  // place), as a min-heap; the first plays of the edges of the key being
  // merged, and the scratch of a merge of two runs' edges.
  struct SectionHead {
    Key key = 0;
    std::uint32_t run = 0;
    bool operator>(const SectionHead& o) const { return key != o.key ? key > o.key : run > o.run; }
  };
  std::vector<SectionHead> section_heap_;
  std::vector<std::uint64_t> section_first_, merged_first_;
  std::vector<EdgeEntry> merged_;
  bool section_head(std::uint32_t run, SectionHead& out) const;
  EdgeEntry ahead_;
  std::uint64_t ahead_first_ = 0;
  bool has_ahead_ = false;
};

}  // namespace gb::builder
