#include "builder/book_writer.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "book/store/buckets.h"
#include "book/store/fingerprint_blocks.h"
#include "book/store/section_groups.h"
#include "builder/new_book_file.h"
#include "builder/section_slices.h"

namespace gb::builder {

using store::as_bytes;
using store::NodeKey;
using store::Status;

namespace {

// Runs the k-way merges of the runs on two more threads, one for the nodes
// and one for the edges (RunMerger's two streams share nothing), up to kDepth
// chunks ahead of the LMDB writes on the calling thread, for a commit into a
// book that holds records (a new book's is made in slices: section_slices.h):
// the merge was the critical path of the commit, the writer waiting on it, and
// the parse threads are idle by then. The chunks are what fill_nodes and
// fill_edges make (NodeChunk, EdgeChunk); a fill returns false once the merger
// has nothing more. The consumer may stop early (an LMDB error): the
// destructor stops the producers.
template <class NodeChunk, class EdgeChunk>
class MergeAhead {
 public:
  template <class FillNodes, class FillEdges>
  MergeAhead(FillNodes fill_nodes, FillEdges fill_edges)
      : node_thread_([this, fill_nodes]() mutable { produce(nodes_, fill_nodes); }),
        edge_thread_([this, fill_edges]() mutable { produce(edges_, fill_edges); }) {}
  ~MergeAhead() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    node_thread_.join();
    edge_thread_.join();
  }
  MergeAhead(const MergeAhead&) = delete;
  MergeAhead& operator=(const MergeAhead&) = delete;

  // The next chunk of one stream; false at its end.
  bool next_nodes(NodeChunk& out) { return next(nodes_, out); }
  bool next_edges(EdgeChunk& out) { return next(edges_, out); }

 private:
  // Chunks a producer may be ahead. A thread that waits sleeps, and on a
  // virtual machine a sleeping thread can take as long to wake as the writer
  // takes for a chunk: with 4 the three threads of a commit on two cores kept
  // stopping each other, with 32 they do not (bench/build.sh's tcec case at
  // full depth times the commit; bench/compare.sh compares two binaries). A
  // chunk of 1024 entries is some 70 KB: 5 MB at most for both streams.
  static constexpr std::size_t kDepth = 32;

  template <class Chunk>
  struct Channel {
    std::deque<Chunk> ready;   // guarded by mutex_
    std::vector<Chunk> spare;  // the consumer's used chunks, for the producer to refill; guarded by mutex_
    bool done = false;         // guarded by mutex_
  };

  // Hands over the next ready chunk, and keeps the one out held for reuse.
  // A chunk freed by the writer went back to the arena of the merge thread
  // that made it, and malloc gave the pages back (madvise) and the merge
  // thread took them again (page faults); a madvise of a multi-threaded
  // process also stops the other cores to flush their TLBs. Reused, the
  // chunks are allocated once, and there are no more of them than before:
  // at most kDepth ready, one being filled and one being read.
  template <class Chunk>
  static void take(Channel<Chunk>& ch, Chunk& out) {
    if (out.capacity()) ch.spare.push_back(std::move(out));
    out = std::move(ch.ready.front());
    ch.ready.pop_front();
  }

  template <class Chunk>
  bool next(Channel<Chunk>& ch, Chunk& out) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !ch.ready.empty() || ch.done; });
    if (ch.ready.empty()) return false;
    take(ch, out);
    lock.unlock();
    changed_.notify_all();
    return true;
  }

  // Hands the chunks over as fill makes them, until the end or until the
  // consumer has gone.
  template <class Chunk, class Fill>
  void produce(Channel<Chunk>& ch, Fill& fill) {
    for (bool more = true; more;) {
      Chunk chunk;
      {
        std::lock_guard lock(mutex_);
        if (!ch.spare.empty()) {
          chunk = std::move(ch.spare.back());
          ch.spare.pop_back();
        }
      }
      chunk.clear();  // keeping its capacity
      more = fill(chunk);
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return ch.ready.size() < kDepth || stop_; });
      if (stop_) return;
      if (chunk.size()) ch.ready.push_back(std::move(chunk));
      ch.done = !more;
      lock.unlock();
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool stop_ = false;
  Channel<NodeChunk> nodes_;
  Channel<EdgeChunk> edges_;
  std::thread node_thread_, edge_thread_;  // last: they start after the channels exist
};

constexpr std::size_t kEntriesPerChunk = 1024;

// The heads of a merge's two streams, a chunk at a time: the nodes and edges
// of one key after the other, as sections are made of them.
template <class NodeChunk, class EdgeChunk>
class SectionZip {
 public:
  explicit SectionZip(MergeAhead<NodeChunk, EdgeChunk>& ahead) : ahead_(ahead) {}

  // Refills the streams' heads; false at the end of both.
  bool next_key(Key& key) {
    refill<true>(nodes_, node_at_, nodes_done_);
    refill<false>(edges_, edge_at_, edges_done_);
    bool n = node_at_ < nodes_.size(), e = edge_at_ < edges_.size();
    if (!n && !e) return false;
    key = !e   ? nodes_.key(node_at_)
          : !n ? edges_.key(edge_at_)
               : std::min(nodes_.key(node_at_), edges_.key(edge_at_));
    return true;
  }
  // The node of key, if the stream's head is one (taken).
  template <class F>
  void take_node(Key key, F&& f) {
    if (node_at_ < nodes_.size() && nodes_.key(node_at_) == key) f(nodes_, node_at_++);
  }
  // Every edge of key (taken, in move order); may refill the edge stream.
  template <class F>
  void take_edges(Key key, F&& f) {
    for (;;) {
      while (edge_at_ < edges_.size() && edges_.key(edge_at_) == key) f(edges_, edge_at_++);
      if (edge_at_ < edges_.size() || edges_done_) return;
      refill<false>(edges_, edge_at_, edges_done_);
    }
  }

 private:
  template <bool Nodes, class Chunk>
  void refill(Chunk& chunk, std::size_t& at, bool& done) {
    while (at == chunk.size() && !done) {
      at = 0;
      bool got;
      if constexpr (Nodes)
        got = ahead_.next_nodes(chunk);
      else
        got = ahead_.next_edges(chunk);
      if (!got) {
        chunk = Chunk{};
        done = true;
      }
    }
  }

  MergeAhead<NodeChunk, EdgeChunk>& ahead_;
  NodeChunk nodes_;
  EdgeChunk edges_;
  std::size_t node_at_ = 0, edge_at_ = 0;
  bool nodes_done_ = false, edges_done_ = false;
};

// Merged entries, a chunk of one stream, for the ordered merge into a book.
template <class Entry>
struct EntryChunk {
  std::vector<Entry> entries;
  std::size_t size() const { return entries.size(); }
  std::size_t capacity() const { return entries.capacity(); }
  void clear() { entries.clear(); }
  Key key(std::size_t i) const { return entries[i].key; }
};
using EntriesAhead = MergeAhead<EntryChunk<NodeEntry>, EntryChunk<EdgeEntry>>;

// Fills chunk with up to kEntriesPerChunk entries from next; false at the end.
template <class Entry, class Next>
bool fill_entries(EntryChunk<Entry>& chunk, Next next) {
  chunk.entries.reserve(kEntriesPerChunk);
  Entry e;
  while (chunk.size() < kEntriesPerChunk)
    if (!next(e))
      return false;
    else
      chunk.entries.push_back(e);
  return true;
}

// One database of sections as merge_sections writes it: appended to in
// groups when it was empty (then no section is read), else read and written
// back a group at a time (keys come in order).
struct SectionDb {
  SectionDb(store::WriteTxn& txn, MDB_dbi dbi, bool empty)
      : append(empty),
        appender([this, &txn, dbi](std::string_view k, std::string_view v) -> Status {
          if (!cursor) {  // one: no set-up per put
            store::Error e;
            auto c = store::Cursor::open(txn, dbi, &e);
            if (!c) return e;
            cursor.emplace(std::move(*c));
          }
          return cursor->put(k, v, MDB_APPEND);
        }),
        updater(txn, dbi) {}
  SectionDb(const SectionDb&) = delete;  // the appender holds this
  bool append;
  std::optional<store::Cursor> cursor;  // of the appends
  store::GroupAppender appender;
  store::SectionUpdater updater;
  bool held = false;  // the key's section was read from it (a write may then delete it)
  [[nodiscard]] Status finish() { return append ? appender.finish() : updater.flush(); }
};

// The section of key in db into section (empty when absent); an error when damaged.
Status read_section(store::Book& book, SectionDb& db, Key key, store::Section& section) {
  section = {};
  db.held = false;
  if (db.append) return std::nullopt;
  store::Error error;
  auto v = db.updater.get(key, &error);
  if (!v && error.code) return error;
  if (v && !store::from_bytes(*v, section))
    return store::Error{EIO,
                        "the section of key " + std::to_string(key) + " in " + book.path() + " is damaged"};
  db.held = v.has_value();
  return std::nullopt;
}

// Writes section under key (deletes it when it holds nothing).
Status write_section(SectionDb& db, Key key, const store::Section& section, std::string& value) {
  if (!section.node && section.edges.empty()) return db.held ? db.updater.erase(key) : std::nullopt;
  store::to_bytes(section, value);
  return db.append ? db.appender.add(key, value) : db.updater.put(key, value);
}

// The pruned database of the book, into dbi: the one it has, or a new one
// when min_games prunes; none when it has none and nothing is pruned.
Status open_pruned(store::WriteTxn& txn, std::uint32_t min_games, std::optional<MDB_dbi>& dbi) {
  store::Error e;
  dbi = txn.open_db(kPrunedDb, min_games > 1 ? MDB_CREATE : 0, &e);
  if (!dbi && e.code != MDB_NOTFOUND) return e;
  return std::nullopt;
}

// Merges the merged runs into the sections of a book, in key order: each
// section the runs touch is read, added to and written again (appended when
// the book has no sections). A node whose stored position has another
// position hash is a collision: counted, its key recorded, not merged.
//
// The counts a build leaves out for having fewer than min_games games are
// kept in the pruned database (kPrunedDb) when it is given, so that a later
// build adds to them: a node or edge whose total reaches min_games moves to
// the book, and a book built in steps holds what one build of all its games
// would. Without it (min_games 1, or an import's 0) nothing is pruned. An
// entry is in one of the two, never both; a pruned one a write meets is
// taken back into the book once it has min_games games.
//
// An edge keeps its rank of first play (polyglot_rank) among the edges of
// its key in both databases; the edges new to the key come after them, in
// the order of the ranks the merge gave them: as if the inputs of every
// build into the book had been one input (docs/FORMAT.md).
Status merge_sections(store::Book& book, store::WriteTxn& txn, EntriesAhead& ahead, bool append,
                      std::optional<MDB_dbi> pruned_dbi, std::uint32_t min_games, CommitResult& result) {
  SectionDb kept(txn, book.dbs().positions, append);
  std::optional<SectionDb> pruned;
  if (pruned_dbi) {
    MDB_stat st;
    if (auto s = txn.stat(*pruned_dbi, st)) return s;
    pruned.emplace(txn, *pruned_dbi, st.ms_entries == 0);
  }
  SectionZip zip(ahead);
  store::Section section, below;  // the key's section in the book and in the pruned database
  std::string value;
  std::vector<std::pair<std::uint8_t, std::uint16_t>> fresh;  // edges new to the key: merged rank, move
  for (Key key; zip.next_key(key);) {
    NodeKey nk(key);
    if (auto s = read_section(book, kept, key, section)) return s;
    below = {};
    if (pruned)
      if (auto s = read_section(book, *pruned, key, below)) return s;
    bool changed = false, below_changed = false;
    Status put_status;
    zip.take_node(key, [&](const EntryChunk<NodeEntry>& c, std::size_t i) {
      const store::NodeRecord& n = c.entries[i].record;
      std::optional<store::NodeRecord>& stored = section.node ? section.node : below.node;
      if (stored && stored->position_hash != n.position_hash && stored->position_hash != 0) {
        ++result.collisions;
        std::uint64_t h = n.position_hash;
        put_status = txn.put(book.dbs().collisions, nk.view(), as_bytes(h));
        return;
      }
      if (stored) {
        if (stored->position_hash == 0) stored->position_hash = n.position_hash;  // an imported node
        stored->merge(n);
      } else {
        stored = n;
      }
      if (!section.node) {
        below_changed = true;
        if (below.node->counters.games < min_games) return;
        section.node = below.node;  // reached min_games: into the book
        below.node.reset();
      }
      changed = true;
      ++result.nodes_written;
    });
    if (put_status) return put_status;
    int last_rank = -1;  // of the key's edges in the book
    for (const auto* in : {&section, &below})
      for (const auto& [move, edge] : in->edges) last_rank = std::max(last_rank, int(edge.polyglot_rank));
    fresh.clear();
    zip.take_edges(key, [&](const EntryChunk<EdgeEntry>& c, std::size_t i) {
      const EdgeEntry& e = c.entries[i];
      auto find = [&](store::Section& in) {
        auto at = std::lower_bound(in.edges.begin(), in.edges.end(), e.move,
                                   [](const auto& x, std::uint16_t m) { return x.first < m; });
        return std::pair(at, at != in.edges.end() && at->first == e.move);
      };
      store::EdgeRecord record = e.record;
      bool known = false;
      if (auto [at, found] = find(below); found) {  // its counts so far, and its rank
        record.merge(at->second);
        record.polyglot_rank = at->second.polyglot_rank;
        below.edges.erase(at);
        below_changed = known = true;
      }
      auto [at, found] = find(section);
      if (!found && !known) fresh.emplace_back(record.polyglot_rank, e.move);
      if (found) {
        at->second.merge(record);
      } else if (record.counters.games >= min_games) {
        section.edges.insert(at, {e.move, record});
      } else {
        below.edges.insert(find(below).first, {e.move, record});
        below_changed = true;
        return;
      }
      changed = true;
      ++result.edges_written;
    });
    // The new edges' ranks, after the book's (by move where the merged ranks tie).
    std::stable_sort(fresh.begin(), fresh.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t r = 0; r < fresh.size(); ++r) {
      const auto rank = std::uint8_t(std::min<std::size_t>(std::size_t(last_rank + 1) + r, 255));
      for (auto* in : {&section, &below}) {
        auto at = std::lower_bound(in->edges.begin(), in->edges.end(), fresh[r].second,
                                   [](const auto& x, std::uint16_t m) { return x.first < m; });
        if (at != in->edges.end() && at->first == fresh[r].second) at->second.polyglot_rank = rank;
      }
    }
    if (changed)
      if (auto s = write_section(kept, key, section, value)) return s;
    if (pruned && below_changed)
      if (auto s = write_section(*pruned, key, below, value)) return s;
  }
  if (auto s = kept.finish()) return s;
  return pruned ? pruned->finish() : std::nullopt;
}

// Adds the build's buckets to the buckets database of a book that holds
// records, in key order: each key's bucket section is read, added to and
// written again.
// Hands write(key, entries) each key of the build's buckets in key order,
// from the first (a commit redone after the map grew starts again).
template <class Write>
Status write_buckets(BucketMerger& buckets, CommitResult& result, Write write) {
  buckets.restart();
  std::vector<store::BucketEntry> entries;
  for (Key key; buckets.next(key, entries);) {
    if (auto s = write(key, entries)) return s;
    ++result.bucket_keys_written;
  }
  if (auto err = buckets.error()) return store::Error{EIO, err->message};
  return std::nullopt;
}

Status merge_buckets_into(store::WriteTxn& txn, BucketMerger& buckets, CommitResult& result) {
  store::Error e;
  auto dbi = txn.open_db(store::kBucketsDb, MDB_CREATE, &e);
  if (!dbi) return e;
  std::vector<store::BucketEntry> stored;
  std::string value;
  return write_buckets(buckets, result, [&](Key key, const std::vector<store::BucketEntry>& added) -> Status {
    bool damaged = false;
    if (!store::read_buckets(txn, *dbi, key, stored, &damaged, &e) && (damaged || e.code))
      return damaged ? store::Error{EIO, "the buckets of key " + std::to_string(key) + " are damaged"} : e;
    store::merge_buckets(stored, added);
    store::encode_buckets(stored, value);
    return txn.put(*dbi, NodeKey(key).view(), value);
  });
}

// Appends the build's buckets to the buckets database of a new book.
Status append_buckets(MDB_dbi dbi, ChunkedAppender& appender, BucketMerger& buckets, CommitResult& result) {
  std::string value;
  return write_buckets(buckets, result, [&](Key key, const std::vector<store::BucketEntry>& entries) {
    store::encode_buckets(entries, value);
    return appender.add(dbi, NodeKey(key).view(), value);
  });
}

// The last writes of a commit, in its last transaction: the game index, the
// sources, the totals (stats before the build plus what it added) and the
// build parameters.
Status write_totals(store::Book& book, store::WriteTxn& txn, store::BookStats stats, const CommitInput& input,
                    const CommitResult& result) {
  if (input.more_writes)
    if (auto s = input.more_writes(txn)) return s;
  for (const store::SourceInfo& src : input.sources)
    if (auto s = book.add_source(txn, src)) return s;
  stats.games += input.added.games;
  stats.duplicates += input.added.duplicates;
  stats.skipped += input.added.skipped;
  stats.collisions += input.added.collisions + result.collisions;
  stats.builds += 1;
  if (auto s = book.put_stats(txn, stats)) return s;
  if (!input.buckets_json.empty())
    if (auto s = txn.put(book.dbs().meta, store::kBucketsMetaKey, input.buckets_json)) return s;
  return input.params_json.empty() ? std::nullopt : book.put_build_params(txn, input.params_json);
}

// Writes the sections of slices, the fingerprints and the totals into to, a
// new book: nodes, edges and fingerprints in chunked transactions, the rest
// in a last one. from_txn reads the meta records of the book being replaced.
Status write_fresh(store::Book& from, const store::Txn& from_txn, store::Book& to, SectionSlices& slices,
                   CommitInput& input, CommitResult& result) {
  // The counts below min_games go to the pruned database (merge_sections),
  // the buckets to theirs: both made in one transaction before the appends.
  std::optional<MDB_dbi> pruned_dbi, buckets_dbi;
  if (slices.keeps_pruned() || input.buckets)
    if (auto s = to.write([&](store::WriteTxn& txn) -> Status {
          store::Error e;
          if (slices.keeps_pruned() && !(pruned_dbi = txn.open_db(kPrunedDb, MDB_CREATE, &e))) return e;
          if (input.buckets && !(buckets_dbi = txn.open_db(store::kBucketsDb, MDB_CREATE, &e))) return e;
          return std::nullopt;
        }))
      return s;
  ChunkedAppender appender(to);
  {
    // The sections, merged and encoded in slices on the commit's threads
    // (section_slices.h), grouped and appended here in key order, and the
    // fingerprints (already in order) while the next slice is not yet made.
    result.slices = slices.count();
    std::size_t run = 0, at = 0;  // the next fingerprint: input.fingerprints[run][at]
    auto fingerprints_left = [&] {
      while (run < input.fingerprints.size() && at == input.fingerprints[run].size()) {
        input.fingerprints[run] = {};  // written: give its memory back
        ++run;
        at = 0;
      }
      return run < input.fingerprints.size();
    };
    store::FingerprintAppender blocks = appender.fingerprints(to.dbs().games);
    auto fingerprints = [&]() -> Status {
      for (std::size_t n = 0; n < kEntriesPerChunk && fingerprints_left(); ++n)
        if (auto s = blocks.add(input.fingerprints[run][at++])) return s;
      return std::nullopt;
    };
    store::GroupAppender positions = appender.groups(to.dbs().positions);
    std::optional<store::GroupAppender> pruned;
    if (pruned_dbi) pruned.emplace(appender.groups(*pruned_dbi));
    for (std::size_t i = 0; i < slices.count(); ++i) {
      // While slice i is not made: the fingerprints, which only this thread
      // writes, then the next slices, which any thread makes.
      const SliceSections* slice;
      while (!(slice = slices.get(i, false))) {
        if (fingerprints_left()) {
          if (auto s = fingerprints()) return s;
        } else if (!slices.help()) {
          slice = slices.get(i, true);  // being made on another thread
          break;
        }
      }
      if (slice->error) return store::Error{EIO, slice->error->message};
      for (std::size_t p = 0; p < slice->positions.size(); ++p) {
        const auto& position = slice->positions[p];
        if (auto s = (position.pruned ? *pruned : positions).add_entry(position.key, slice->entry(p)))
          return s;
      }
      result.nodes_written += slice->nodes;
      result.edges_written += slice->edges;
      result.collisions += slice->collisions;
      slices.release(i);
    }
    if (auto s = positions.finish()) return s;
    if (pruned)
      if (auto s = pruned->finish()) return s;
    while (fingerprints_left())
      if (auto s = fingerprints()) return s;
    if (auto s = blocks.finish()) return s;
    // The buckets after the sections: the slices' threads are done, so the
    // bucket files are read by this thread alone.
    if (input.buckets)
      if (auto s = append_buckets(*buckets_dbi, appender, *input.buckets, result)) return s;
    if (auto s = appender.finish()) return s;
  }

  return to.write([&](store::WriteTxn& txn) -> Status {
    store::Error error;
    auto meta = store::Cursor::open(from_txn, from.dbs().meta, &error);  // stats and all
    if (!meta) return error;
    for (auto item = meta->first(&error); item; item = meta->next(&error))
      if (auto s = txn.put(to.dbs().meta, item->key, item->value)) return s;
    if (error.code) return error;
    return write_totals(to, txn, from.stats(from_txn), input, result);
  });
}

// The commit into a book that holds nothing but meta: a new book written
// beside it and renamed over it (new_book_file.h). The caller holds the
// book's write transaction (its writer lock) meanwhile, so that another
// build's commit waits and then finds the file replaced.
Status commit_fresh(store::Book& book, const store::Txn& book_txn, RunMerger& merger, CommitInput& input,
                    CommitResult& result) {
  result = CommitResult{};
  result.appended = result.renamed = true;
  // The new file is made first (unsynced: no wait for the disk), then the
  // slices: their threads make their first pages resident as they start, and
  // the maps of a file made meanwhile waited for the process's map lock
  // longer than the first slice took (docs/SCALE.md, "Fresh memory").
  const bool link = !input.link_at.empty();
  return replace_book_file(
      link ? input.link_at : book.path(), book.env().map_size(),
      [&](store::Book& to) {
        // The counts below min_games go to the pruned database (write_fresh makes it).
        // The writer makes slices too (SectionSlices::help): a thread fewer.
        const unsigned makers = std::max(1u, input.threads) - 1;
        std::optional<SectionSlices> slices;
        if (input.slices)
          slices.emplace(input.slices(), makers);
        else
          slices.emplace(merger.runs(), makers, input.min_games, input.min_games > 1,
                         slice_entries(merger.runs()), input.remove_run_files);
        return write_fresh(book, book_txn, to, *slices, input, result);
      },
      link ? Placing::Link : Placing::Rename);
}

}  // namespace

Status commit_build(store::Book& book, RunMerger& merger, CommitInput& input, CommitResult& result) {
  const std::string& path = input.link_at.empty() ? book.path() : input.link_at;
  remove_new_book_orphans(path);  // of killed builds
  const store::Error replaced{ESTALE, path +
                                          ": another build replaced the book while this one ran; nothing "
                                          "was written, run the build again"};
  {
    store::Error e;
    auto txn = store::WriteTxn::begin(book.env(), &e);  // the writer lock, held until the rename
    if (!txn) return e;
    if (!book.still_at_path()) return replaced;
    auto fresh = book.holds_only_meta(*txn, &e);
    if (!fresh) return e;
    if (*fresh) {
      Status s = commit_fresh(book, *txn, merger, input, result);
      if (s && s->code == EEXIST && !input.link_at.empty())  // (of the link: Placing::Link)
        return store::Error{ESTALE, path +
                                        ": another build made the book while this one ran; nothing was "
                                        "written, run the build again"};
      return s;
    }
    assert(input.link_at.empty());  // a placeholder holds nothing but meta: it is this build's alone
    if (input.slices)
      return store::Error{ESTALE,
                          book.path() +
                              ": another process wrote into the book while this build ran; nothing was "
                              "written, run the build again"};
  }
  return book.write([&](store::WriteTxn& txn) -> Status {
    result = CommitResult{};
    if (!book.still_at_path()) return replaced;
    if (auto e = merger.open()) return store::Error{EIO, e->message};
    MDB_stat positions_stat;
    if (auto s = txn.stat(book.dbs().positions, positions_stat)) return s;
    bool append = positions_stat.ms_entries == 0;
    result.appended = append;
    {
      EntriesAhead ahead(
          [&](EntryChunk<NodeEntry>& chunk) {
            return fill_entries(chunk, [&](NodeEntry& e) { return merger.next_node(e); });
          },
          [&](EntryChunk<EdgeEntry>& chunk) {
            return fill_entries(chunk, [&](EdgeEntry& e) { return merger.next_edge(e); });
          });
      std::optional<MDB_dbi> pruned_dbi;
      if (auto s = open_pruned(txn, input.min_games, pruned_dbi)) return s;
      if (auto s = merge_sections(book, txn, ahead, append, pruned_dbi, input.min_games, result)) return s;
    }  // the merge threads have ended: the collision count is final
    if (auto e = merger.error()) return store::Error{EIO, e->message};
    result.collisions += merger.collisions();

    if (input.buckets)
      if (auto s = merge_buckets_into(txn, *input.buckets, result)) return s;
    for (const auto& run : input.fingerprints)  // (the runs in order: all of them ascending)
      if (auto s = store::insert_fingerprints(txn, book.dbs().games, run)) return s;
    return write_totals(book, txn, book.stats(txn), input, result);
  });
}

}  // namespace gb::builder
