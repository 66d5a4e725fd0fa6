#include "builder/run_merger.h"

#include <algorithm>
#include <cassert>
#include <functional>

namespace gb::builder {

namespace {

// Where a run keeps its nodes or its edges.
template <class T>
struct RunPart;
template <>
struct RunPart<NodeEntry> {
  static const std::vector<NodeEntry>& entries(const Run& r) { return r.nodes; }
  static bool holds(const Slot& s) { return s.move == 0; }  // of an in-memory run's slots
  static NodeEntry expand(const Run& r, const Slot& s) { return r.memory.node(s); }
  static std::uint64_t file_offset(const Run&) { return 0; }
  static std::uint64_t count(const Run& r) { return r.node_count; }
  static const std::vector<RunMark>& marks(const Run& r) { return r.node_marks; }
  static Key last_key(const Run& r) { return r.last_node_key; }
  static bool skip_below(RunFileReader& file, Key first) { return file.skip_nodes_below(first); }
  static bool before(const NodeEntry& a, const NodeEntry& b) { return node_order(a, b); }
};
template <>
struct RunPart<EdgeEntry> {
  static const std::vector<EdgeEntry>& entries(const Run& r) { return r.edges; }
  static bool holds(const Slot& s) { return s.move != 0; }
  static EdgeEntry expand(const Run& r, const Slot& s) { return r.memory.edge(s); }
  static std::uint64_t file_offset(const Run& r) { return r.edge_offset; }
  static std::uint64_t count(const Run& r) { return r.edge_count; }
  static const std::vector<RunMark>& marks(const Run& r) { return r.edge_marks; }
  static Key last_key(const Run& r) { return r.last_edge_key; }
  static bool skip_below(RunFileReader& file, Key first) { return file.skip_edges_below(first); }
  static bool before(const EdgeEntry& a, const EdgeEntry& b) { return edge_order(a, b); }
};

}  // namespace

template <class T>
void RunStream<T>::advance() {
  advance_in_run();
  if (has_ && head_.key > span_.last) has_ = false;  // past the span: the stream ends
}

template <class T>
bool RunStream<T>::read_section() {
  RunFileReader::SectionRecord r;
  if (!file_.next(r)) return false;
  if (!decode_entry(r.entry, section_)) return !(damaged_ = true);
  section_key_ = r.key;
  section_at_ = 0;
  return true;
}

template <class T>
void RunStream<T>::advance_in_run() {
  using Part = RunPart<T>;
  if (run_.sections) {
    // A run of sections, read as records: each position decoded, for its
    // node or for its edges.
    if constexpr (std::is_same_v<T, NodeEntry>) {
      for (has_ = false; !has_;) {
        if (!read_section()) return;
        has_ = section_.node.has_value();
        if (has_) head_ = {section_key_, *section_.node};
      }
    } else {
      has_ = false;
      while (section_at_ == section_.edges.size())
        if (!read_section()) return;
      const auto& [move, record] = section_.edges[section_at_++];
      head_ = {section_key_, move, record};
      has_ = true;
    }
  } else if (!run_.path.empty()) {
    has_ = file_.next(head_);
  } else if (const auto& entries = Part::entries(run_); !entries.empty()) {
    has_ = at_ < entries.size();
    if (has_) head_ = entries[at_++];
    // A run is sorted and holds each key (and move) once: the merge relies on it.
    assert(!has_ || at_ < 2 || Part::before(entries[at_ - 2], head_));
  } else {
    // The slots hold nodes and edges, by key then move: the stream passes over the other kind.
    const SlotArray& slots = run_.memory.slots;
    while (at_ < slots.size() && !Part::holds(slots[at_])) ++at_;
    has_ = at_ < slots.size();
    if (!has_) return;
    // A run is sorted and holds each key and move once: the merge relies on it.
    assert(at_ == 0 ||
           key_move_order(slots[at_ - 1].key, slots[at_ - 1].move, slots[at_].key, slots[at_].move));
    head_ = Part::expand(run_, slots[at_]);
    if constexpr (std::is_same_v<T, EdgeEntry>) {
      // A spill file holds the ranks edge_ranks gave (Aggregator::spill); here
      // they are made a key at a time, for the edges after its node.
      if (at_ >= group_end_) {
        group_begin_ = at_;
        group_end_ = key_end(slots.data(), at_, slots.size());
        ranks_.resize(group_end_ - group_begin_);
        edge_ranks(run_.memory, &slots[group_begin_], slots.data() + group_end_, ranks_.data());
      }
      head_.record.polyglot_rank = ranks_[at_ - group_begin_];
    }
    ++at_;
  }
}

// Starts at the span's first key: in a spill file at its last mark below
// that key, passing over the records up to it; in memory at the key itself.
template <class T>
BuildStatus RunStream<T>::open() {
  using Part = RunPart<T>;
  at_ = 0;
  group_begin_ = group_end_ = 0;
  has_ = false;
  section_ = {};
  section_at_ = 0;
  damaged_ = false;
  const Key first = span_.first;
  if (run_.sections) {
    bool reading;  // (not when damaged: the merge reports it)
    if (auto e = file_.open_sections(run_, span_, reading); e || !reading) return e;
  } else if (!run_.path.empty()) {
    const auto start =
        start_mark(Part::marks(run_), Part::last_key(run_), span_, {0, Part::file_offset(run_), 0});
    if (!start) return std::nullopt;
    if (auto e = file_.open(run_.path, start->offset, Part::count(run_) - start->ordinal)) return e;
    if (first > 0 && !Part::skip_below(file_, first)) return std::nullopt;  // damaged: the merge reports it
  } else if (const auto& entries = Part::entries(run_); !entries.empty()) {
    at_ = std::size_t(
        std::partition_point(entries.begin(), entries.end(), [&](const T& e) { return e.key < first; }) -
        entries.begin());
  } else {
    const SlotArray& slots = run_.memory.slots;
    at_ = std::size_t(
        std::partition_point(slots.begin(), slots.end(), [&](const Slot& s) { return s.key < first; }) -
        slots.begin());
    group_begin_ = group_end_ = at_;
  }
  advance();
  return std::nullopt;
}

template class RunStream<NodeEntry>;
template class RunStream<EdgeEntry>;

namespace {

// A k-way merge step over streams: pops the smallest head and every equal
// head, in the order of their runs (HeapItem), handing each stream to
// take(stream, first) (first: the one popped first) before it advances. The
// streams form a binary min-heap on their heads (exhausted streams are
// dropped), so a step costs O(log k), not O(k): the final merge of a build
// reads dozens of runs. The heap holds each head's key and move (and run)
// beside its stream, so that sifting compares what is in the heap's own
// cache lines instead of following a pointer to each stream.
template <class T, class Take>
bool merge_step(std::vector<HeapItem<T>>& heap, Take take) {
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
  take(*first.stream, true);
  pop_advance();
  while (!heap.empty() && heap.front().same_head(first)) {
    take(*heap.front().stream, false);
    pop_advance();
  }
  return true;
}

// Gives each of the edges of one key (in move order) its rank of first play
// among them: first[i] is edges[i]'s first play, its run's place then its
// rank there; ties, which only ranks capped at 255 make, go by move. order:
// scratch.
void rank_by_first_play(std::vector<EdgeEntry>& edges, const std::vector<std::uint64_t>& first,
                        std::vector<std::uint32_t>& order) {
  if (edges.size() == 1) {  // most keys
    edges[0].record.polyglot_rank = 0;
    return;
  }
  order.resize(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) order[i] = std::uint32_t(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return first[a] < first[b]; });
  for (std::size_t r = 0; r < order.size(); ++r)
    edges[order[r]].record.polyglot_rank = std::uint8_t(std::min<std::size_t>(r, 255));
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
  node_error_.reset();
  edge_error_.reset();
  group_.clear();
  group_at_ = 0;
  has_ahead_ = false;
  pending_.reset();
  const std::size_t n = runs_.size();
  sources_.assign(n, Source::Streams);
  files_.clear();
  files_.resize(n);
  file_heads_.assign(n, {});
  file_has_.assign(n, false);
  slot_at_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Run* r = runs_[i];
    nodes_.push_back(std::make_unique<RunStream<NodeEntry>>(*r, i, span_));
    edges_.push_back(std::make_unique<RunStream<EdgeEntry>>(*r, i, span_));
    if (mode_ != kStreams && r->sections) {
      sources_[i] = Source::File;
      files_[i] = std::make_unique<RunFileReader>();
      bool reading;  // (not when damaged: reported at the end)
      if (auto e = files_[i]->open_sections(*r, span_, reading)) return e;
      if (reading) advance_file(std::uint32_t(i));
    } else if (mode_ != kStreams && r->path.empty() && r->nodes.empty() && r->edges.empty()) {
      sources_[i] = Source::Slots;
      const SlotArray& slots = r->memory.slots;
      slot_at_[i] = std::size_t(std::partition_point(slots.begin(), slots.end(),
                                                     [&](const Slot& s) { return s.key < span_.first; }) -
                                slots.begin());
    } else {
      if (auto e = nodes_.back()->open()) return e;
      if (auto e = edges_.back()->open()) return e;
    }
  }
  make_heap_of(nodes_, node_heap_);
  make_heap_of(edges_, edge_heap_);
  section_heap_.clear();
  for (std::uint32_t i = 0; i < n; ++i)
    if (SectionHead h; section_head(i, h)) section_heap_.push_back(h);
  std::make_heap(section_heap_.begin(), section_heap_.end(), std::greater<>());
  return std::nullopt;
}

void RunMerger::advance_file(std::uint32_t run) {
  file_has_[run] = files_[run]->next(file_heads_[run]) && file_heads_[run].key <= span_.last;
}

// The next key of a run: that of its node or its edge, whichever comes first.
bool RunMerger::section_head(std::uint32_t run, SectionHead& out) const {
  switch (sources_[run]) {
    case Source::File:
      if (!file_has_[run]) return false;
      out = {file_heads_[run].key, run};
      return true;
    case Source::Slots: {
      const SlotArray& slots = runs_[run]->memory.slots;
      const std::size_t at = slot_at_[run];
      if (at == slots.size() || slots[at].key > span_.last) return false;
      out = {slots[at].key, run};
      return true;
    }
    case Source::Streams: break;
  }
  const NodeEntry* n = nodes_[run]->peek();
  const EdgeEntry* e = edges_[run]->peek();
  if (!n && !e) return false;
  out = {!e ? n->key : !n ? e->key : std::min(n->key, e->key), run};
  return true;
}

void RunMerger::push_head(std::uint32_t run) {
  if (SectionHead h; section_head(run, h)) {
    section_heap_.push_back(h);
    std::push_heap(section_heap_.begin(), section_heap_.end(), std::greater<>());
  }
}

// At the end of a stream: a run file that ended early is an error, not an end.
template <class T>
bool RunMerger::check(bool more, const std::vector<std::unique_ptr<RunStream<T>>>& streams,
                      BuildStatus& error) {
  if (more || error) return more;
  for (std::size_t i = 0; i < runs_.size(); ++i)
    if (streams[i]->failed())
      error = BuildError::book("the aggregation run " + runs_[i]->path + " is damaged");
  return false;
}

BuildStatus RunMerger::error() const { return node_error_ ? node_error_ : edge_error_; }

bool RunMerger::next_node(NodeEntry& out) {
  return check(merge_step(node_heap_,
                          [&](const RunStream<NodeEntry>& s, bool first) {
                            const NodeEntry& e = *s.peek();
                            if (first)
                              out = e;
                            else if (e.record.position_hash == out.record.position_hash)
                              out.record.merge(e.record);
                            else
                              ++collisions_;
                          }),
               nodes_, node_error_);
}

bool RunMerger::merge_edge(EdgeEntry& out, std::uint64_t& first) {
  return merge_step(edge_heap_, [&](const RunStream<EdgeEntry>& s, bool is_first) {
    const EdgeEntry& e = *s.peek();
    const std::uint64_t played = std::uint64_t(s.index()) << 8 | e.record.polyglot_rank;
    if (is_first) {
      out = e;
      first = played;
    } else {
      out.record.merge(e.record);
      first = std::min(first, played);
    }
  });
}

// The edges of a key are merged together (they come one after the other),
// ranked by their first plays (ties, which only ranks capped at 255 make, by
// move) and handed out in move order.
bool RunMerger::next_edge(EdgeEntry& out) {
  if (group_at_ == group_.size()) {
    group_.clear();
    group_first_.clear();
    group_at_ = 0;
    if (!has_ahead_) has_ahead_ = merge_edge(ahead_, ahead_first_);
    if (!has_ahead_) return check(false, edges_, edge_error_);
    const Key key = ahead_.key;
    while (has_ahead_ && ahead_.key == key) {
      group_.push_back(ahead_);
      group_first_.push_back(ahead_first_);
      has_ahead_ = merge_edge(ahead_, ahead_first_);
    }
    rank_by_first_play(group_, group_first_, group_order_);
  }
  out = group_[group_at_++];
  return true;
}

bool RunMerger::next_section(MergedSection& out) {
  if (pending_) {  // the entry handed out last time is done with
    advance_file(*pending_);
    push_head(*pending_);
    pending_.reset();
  }
  out.has_node = false;
  out.edges.clear();
  out.entry = {};
  out.entry_edges = 0;
  section_first_.clear();
  if (section_heap_.empty()) {
    check(false, nodes_, node_error_);
    check(false, edges_, edge_error_);
    for (std::size_t i = 0; i < runs_.size() && !node_error_; ++i)
      if (files_[i] && files_[i]->failed())
        node_error_ = BuildError::book("the aggregation run " + runs_[i]->path + " is damaged");
    return false;
  }
  const Key key = out.key = section_heap_.front().key;
  std::pop_heap(section_heap_.begin(), section_heap_.end(), std::greater<>());
  const std::uint32_t first = section_heap_.back().run;
  section_heap_.pop_back();
  // A key of one run (most): its entry there, as it is.
  const bool alone = section_heap_.empty() || section_heap_.front().key != key;
  if (alone && mode_ == kEntries && sources_[first] == Source::File) {
    const RunFileReader::SectionRecord& head = file_heads_[first];
    out.entry = head.entry;
    out.has_node = head.has_node;
    out.entry_edges = head.edges;
    pending_ = first;  // (the entry lies in the reader's buffer until it reads on)
    return true;
  }
  if (alone && mode_ == kEntries && sources_[first] == Source::Slots) {
    const Run& run = *runs_[first];
    const SlotArray& slots = run.memory.slots;
    const std::size_t at = slot_at_[first];
    const std::size_t end = key_end(slots.data(), at, slots.size());
    entry_.clear();
    append_entry(run.memory, slots.data() + at, slots.data() + end, scratch_, entry_);
    out.entry = entry_;
    out.has_node = slots[at].move == 0;
    out.entry_edges = end - at - out.has_node;
    slot_at_[first] = end;
    push_head(first);
    return true;
  }
  // The runs that hold the key, in their order: the node of the earliest
  // one is kept (a collision in a later one is counted and dropped), as
  // next_node keeps it; an edge is the earliest run's merged with the later
  // ones', first played where it was first played in the earliest (next_edge).
  take_decoded(first, key, out);
  push_head(first);
  while (!section_heap_.empty() && section_heap_.front().key == key) {
    std::pop_heap(section_heap_.begin(), section_heap_.end(), std::greater<>());
    const std::uint32_t run = section_heap_.back().run;
    section_heap_.pop_back();
    take_decoded(run, key, out);
    push_head(run);
  }
  rank_by_first_play(out.edges, section_first_, group_order_);
  return true;
}

void RunMerger::take_decoded(std::uint32_t run, Key key, MergedSection& out) {
  auto take_node = [&](const store::NodeRecord& n) {
    if (!out.has_node) {
      out.node = {key, n};
      out.has_node = true;
    } else if (n.position_hash == out.node.record.position_hash) {
      out.node.record.merge(n);
    } else {
      ++collisions_;
    }
  };
  std::vector<EdgeEntry>& edges = out.edges;
  const std::size_t before = edges.size();
  const std::uint64_t place = std::uint64_t(run) << 8;
  switch (sources_[run]) {
    case Source::File: {
      if (!decode_entry(file_heads_[run].entry, decoded_)) {
        if (!node_error_)
          node_error_ = BuildError::book("the aggregation run " + runs_[run]->path + " is damaged");
        file_has_[run] = false;  // (the merge ends short: the error says why)
        return;
      }
      if (decoded_.node) take_node(*decoded_.node);
      for (const auto& [move, record] : decoded_.edges) {
        edges.push_back({key, move, record});
        section_first_.push_back(place | record.polyglot_rank);
      }
      advance_file(run);
      break;
    }
    case Source::Slots: {
      const SlotTables& t = runs_[run]->memory;
      const SlotArray& slots = t.slots;
      const std::size_t at = slot_at_[run];
      assert(slots[at].key == key);  // (the run's head)
      const std::size_t end = key_end(slots.data(), at, slots.size());
      if (auto node = expand(t, slots.data() + at, slots.data() + end, scratch_.ranks, edges))
        take_node(node->record);
      for (std::size_t i = before; i < edges.size(); ++i)
        section_first_.push_back(place | edges[i].record.polyglot_rank);
      slot_at_[run] = end;
      break;
    }
    case Source::Streams: {
      RunStream<NodeEntry>& nodes = *nodes_[run];
      if (const NodeEntry* n = nodes.peek(); n && n->key == key) {
        take_node(n->record);
        nodes.advance();
      }
      RunStream<EdgeEntry>& run_edges = *edges_[run];
      for (const EdgeEntry* e; (e = run_edges.peek()) && e->key == key; run_edges.advance()) {
        edges.push_back(*e);
        section_first_.push_back(place | e->record.polyglot_rank);
      }
      break;
    }
  }
  if (before > 0 && edges.size() > before) {
    // The earlier runs' edges [0, before) and this run's, both in move
    // order, into one list in move order, equal moves merged.
    merged_.clear();
    merged_first_.clear();
    std::size_t a = 0, b = before;
    while (a < before || b < edges.size()) {
      if (b == edges.size() || (a < before && edges[a].move < edges[b].move)) {
        merged_.push_back(edges[a]);
        merged_first_.push_back(section_first_[a++]);
      } else if (a == before || edges[b].move < edges[a].move) {
        merged_.push_back(edges[b]);
        merged_first_.push_back(section_first_[b++]);
      } else {
        merged_.push_back(edges[a]);
        merged_.back().record.merge(edges[b].record);
        merged_first_.push_back(std::min(section_first_[a++], section_first_[b++]));
      }
    }
    edges.swap(merged_);
    section_first_.swap(merged_first_);
  }
}

}  // namespace gb::builder
