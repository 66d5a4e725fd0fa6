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
#include <optional>
#include <string>
#include <string_view>
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
  bool failed() const { return damaged_ || file_.failed(); }
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
  // Runs of sections: reads and decodes the next position; false at the
  // end of the file or of a damaged one (then failed()).
  bool read_section();
  // Runs of sections: the position read (its edges, the next to hand out).
  store::Section section_;
  Key section_key_ = 0;
  std::size_t section_at_ = 0;
  bool damaged_ = false;  // a position that does not decode
};

// A position of a merge by key (RunMerger::next_section): its node and its
// edges in move order, merged and ranked; or, where one run alone holds it
// and the merge hands entries (RunMerger::kEntries), its entry as that run
// holds it (GroupEncoder::entry_of; the node and edges are then not filled).
struct MergedSection {
  Key key = 0;
  bool has_node = false;
  NodeEntry node;
  std::vector<EdgeEntry> edges;
  std::string_view entry;       // valid until the next call
  std::size_t entry_edges = 0;  // the edges of the entry
  std::size_t edge_count() const { return entry.empty() ? edges.size() : entry_edges; }
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
  // How a merge takes its keys: by the two streams (next_node, next_edge) or
  // a key at a time (next_section; either way, but kSections reads a run of
  // sections as its positions, not as two streams of records, and kEntries
  // hands out a position that one run alone holds as its entry there).
  enum Mode { kStreams, kSections, kEntries };
  // span: the keys merged (a slice of the key space; all by default).
  explicit RunMerger(std::vector<const Run*> runs, KeySpan span = {}, Mode mode = kStreams)
      : runs_(std::move(runs)), span_(span), mode_(mode) {}
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
  bool next_section(MergedSection& out);
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
  // How next_section reads run i: as two streams, as the positions of its
  // file of sections, or from its slots (an in-memory run, kSections and kEntries).
  enum class Source : std::uint8_t { Streams, File, Slots };
  // Adds run's node and edges of key (its head) to out, merged with those of the runs before.
  void take_decoded(std::uint32_t run, Key key, MergedSection& out);
  void advance_file(std::uint32_t run);
  void push_head(std::uint32_t run);
  std::vector<const Run*> runs_;
  KeySpan span_;
  Mode mode_;
  std::vector<Source> sources_;
  std::vector<std::unique_ptr<RunFileReader>> files_;  // Source::File: the reader and its position
  std::vector<RunFileReader::SectionRecord> file_heads_;
  std::vector<char> file_has_;            // whether file_heads_[i] holds a position
  std::vector<std::size_t> slot_at_;      // Source::Slots: the next slot
  std::optional<std::uint32_t> pending_;  // the file whose entry was handed out, advanced at the next call
  EntryScratch scratch_;
  std::string entry_;  // a slots' entry handed out
  store::Section decoded_;
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
