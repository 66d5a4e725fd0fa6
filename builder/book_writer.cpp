#include "builder/book_writer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "builder/orphan_files.h"

namespace gb::builder {

using store::as_bytes;
using store::EdgeKey;
using store::NodeKey;
using store::Status;

namespace {

// Runs the k-way merges of the runs on two more threads, one for the nodes
// and one for the edges (RunMerger's two streams share nothing), a few chunks
// ahead of the LMDB writes on the calling thread: the merge was the critical
// path of the commit, the writer waiting on it, and the parse threads are
// idle by then. The chunks are what fill_nodes and fill_edges make (NodeChunk,
// EdgeChunk: the entries themselves, or their records encoded for an append);
// a fill returns false once the merger has nothing more. The consumer may stop
// early (an LMDB error): the destructor stops the producers.
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

  // What next_either found.
  enum class Ready { Nodes, Edges, Neither, End };
  // The next chunk of whichever stream has one first (into nodes or edges);
  // Neither (only when wait is false) if no chunk is ready yet; End when both
  // streams have ended.
  Ready next_either(NodeChunk& nodes, EdgeChunk& edges, bool wait) {
    std::unique_lock lock(mutex_);
    auto ended = [&] { return nodes_.ready.empty() && nodes_.done && edges_.ready.empty() && edges_.done; };
    auto ready = [&] { return !nodes_.ready.empty() || !edges_.ready.empty() || ended(); };
    if (wait)
      changed_.wait(lock, ready);
    else if (!ready())
      return Ready::Neither;
    if (ended()) return Ready::End;
    Ready got = !nodes_.ready.empty() ? Ready::Nodes : Ready::Edges;
    if (got == Ready::Nodes)
      take(nodes_, nodes);
    else
      take(edges_, edges);
    lock.unlock();
    changed_.notify_all();
    return got;
  }

 private:
  static constexpr std::size_t kDepth = 4;  // chunks a producer may be ahead

  template <class Chunk>
  struct Channel {
    std::deque<Chunk> ready;  // guarded by mutex_
    bool done = false;        // guarded by mutex_
  };

  template <class Chunk>
  static void take(Channel<Chunk>& ch, Chunk& out) {
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

// Fills chunk with up to kEntriesPerChunk entries from next; false at the end.
template <class Entry, class Next>
bool fill_entries(std::vector<Entry>& chunk, Next next) {
  chunk.reserve(kEntriesPerChunk);
  Entry e;
  while (chunk.size() < kEntriesPerChunk)
    if (!next(e))
      return false;
    else
      chunk.push_back(e);
  return true;
}

// The merged entries themselves, for the ordered merge into a book.
using EntriesAhead = MergeAhead<std::vector<NodeEntry>, std::vector<EdgeEntry>>;

// Merges the node stream into the book. A node whose stored position has
// another position hash is a collision: counted, its key recorded, not merged.
Status write_nodes(store::Book& book, store::WriteTxn& txn, EntriesAhead& merger, bool append,
                   std::uint32_t min_games, CommitResult& result) {
  std::vector<NodeEntry> chunk;
  store::Error error;
  auto cursor = store::Cursor::open(txn, book.dbs().nodes, &error);  // one cursor: no set-up per put
  if (!cursor) return error;
  while (merger.next_nodes(chunk))
    for (NodeEntry& e : chunk) {
      NodeKey key(e.key);
      if (append) {
        if (e.record.counters.games < min_games) continue;
        if (auto s = cursor->put(key.view(), as_bytes(e.record), MDB_APPEND)) return s;
        ++result.nodes_written;
        continue;
      }
      store::NodeRecord stored;
      if (auto v = txn.get(book.dbs().nodes, key.view()); v && store::from_bytes(*v, stored)) {
        if (stored.position_hash != e.record.position_hash && stored.position_hash != 0) {
          ++result.collisions;
          std::uint64_t h = e.record.position_hash;
          if (auto s = txn.put(book.dbs().collisions, key.view(), as_bytes(h))) return s;
          continue;
        }
        if (stored.position_hash == 0) stored.position_hash = e.record.position_hash;  // an imported node
        stored.merge(e.record);
        e.record = stored;
      } else if (e.record.counters.games < min_games) {
        continue;
      }
      if (auto s = txn.put(book.dbs().nodes, key.view(), as_bytes(e.record))) return s;
      ++result.nodes_written;
    }
  return std::nullopt;
}

Status write_edges(store::Book& book, store::WriteTxn& txn, EntriesAhead& merger, bool append,
                   std::uint32_t min_games, CommitResult& result) {
  std::vector<EdgeEntry> chunk;
  store::Error error;
  auto cursor = store::Cursor::open(txn, book.dbs().edges, &error);
  if (!cursor) return error;
  while (merger.next_edges(chunk))
    for (EdgeEntry& e : chunk) {
      EdgeKey key(e.key, e.move);
      if (append) {
        if (e.record.counters.games < min_games) continue;
        if (auto s = cursor->put(key.view(), as_bytes(e.record), MDB_APPEND)) return s;
        ++result.edges_written;
        continue;
      }
      store::EdgeRecord stored;
      if (auto v = txn.get(book.dbs().edges, key.view()); v && store::from_bytes(*v, stored)) {
        stored.merge(e.record);
        e.record = stored;
      } else if (e.record.counters.games < min_games) {
        continue;
      }
      if (auto s = txn.put(book.dbs().edges, key.view(), as_bytes(e.record))) return s;
      ++result.edges_written;
    }
  return std::nullopt;
}

// Records encoded for an append, keys and values back to back: what the
// merge threads hand to the writer of a new book, so that the writer only
// appends (encoding the records was a quarter of its time).
struct EncodedRecords {
  std::string bytes;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sizes;  // of each record's key and value
  std::size_t size() const { return sizes.size(); }
  void add(std::string_view key, std::string_view value) {
    bytes.append(key);
    bytes.append(value);
    sizes.emplace_back(std::uint32_t(key.size()), std::uint32_t(value.size()));
  }
};

// Fills chunk with the records of up to kEntriesPerChunk entries from next
// that have at least min_games games; false at the end.
template <class Entry, class Next, class KeyOf>
bool fill_records(EncodedRecords& chunk, Next next, KeyOf key_of, std::uint32_t min_games) {
  chunk.bytes.reserve(kEntriesPerChunk * 32);
  chunk.sizes.reserve(kEntriesPerChunk);
  Entry e;
  while (chunk.size() < kEntriesPerChunk) {
    if (!next(e)) return false;
    if (e.record.counters.games >= min_games) chunk.add(key_of(e).view(), as_bytes(e.record));
  }
  return true;
}

// Appends records in key order to the databases of a book written from
// scratch (each database in its own key order, the databases in any order),
// in write transactions of about kChunkBytes of keys and values, so that LMDB
// never holds more dirty pages than that (it keeps a transaction's pages in
// memory until the commit). The chunks of the open transaction are kept until
// it commits: on MDB_MAP_FULL the map is doubled and they are written again.
class ChunkedAppender {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t(1) << 20;
  // Each transaction reads the last pages of the trees it appends to through
  // LMDB's map, and the kernel maps their neighbours too: without a release
  // now and then, a full-depth build of tcec kept 40 MB of the new book
  // resident (half its peak).
  static constexpr std::size_t kReleaseBytes = 8 * kChunkBytes;

  explicit ChunkedAppender(store::Book& book) : book_(book) {}
  ~ChunkedAppender() { cursors_.clear(); }  // before the transaction aborts

  [[nodiscard]] Status append(MDB_dbi dbi, EncodedRecords&& records) {
    if (!txn_)
      if (auto s = begin()) return s;
    pending_bytes_ += records.bytes.size();
    pending_.emplace_back(dbi, std::move(records));
    Status s = put(dbi, pending_.back().second);
    if (s && s->map_full()) s = redo();
    if (s) return s;
    return pending_bytes_ >= kChunkBytes ? commit() : std::nullopt;
  }

  // Commits the records not yet committed.
  [[nodiscard]] Status finish() { return txn_ ? commit() : std::nullopt; }

 private:
  Status begin() {
    store::Error e;
    auto txn = store::WriteTxn::begin(book_.env(), &e);
    if (!txn) return e;
    txn_.emplace(std::move(*txn));
    return std::nullopt;
  }

  // The transaction's cursor on dbi (one per database: no set-up per put).
  store::Cursor* cursor(MDB_dbi dbi, Status& status) {
    for (auto& [d, c] : cursors_)
      if (d == dbi) return &c;
    store::Error e;
    auto c = store::Cursor::open(*txn_, dbi, &e);
    if (!c) {
      status = e;
      return nullptr;
    }
    return &cursors_.emplace_back(dbi, std::move(*c)).second;
  }

  Status put(MDB_dbi dbi, const EncodedRecords& records) {
    Status status;
    store::Cursor* c = cursor(dbi, status);
    if (!c) return status;
    std::string_view bytes = records.bytes;
    std::size_t at = 0;
    for (auto [k, v] : records.sizes) {
      if (auto s = c->put(bytes.substr(at, k), bytes.substr(at + k, v), MDB_APPEND)) return s;
      at += k + v;
    }
    return std::nullopt;
  }

  Status commit() {
    for (;;) {
      cursors_.clear();
      Status s = txn_->commit();
      txn_.reset();
      if (!s) break;
      if (!s->map_full()) return s;
      if (auto r = redo()) return r;
    }
    committed_bytes_ += pending_bytes_;
    pending_.clear();
    pending_bytes_ = 0;
    if (committed_bytes_ >= kReleaseBytes) {
      book_.env().release_mapped_pages();  // what the transactions read (a new book is read only here)
      book_.env().start_writeback();       // the final sync then waits for the last pages only
      committed_bytes_ = 0;
    }
    return std::nullopt;
  }

  // Aborts the transaction, doubles the map and writes the pending records again.
  Status redo() {
    for (;;) {
      cursors_.clear();
      txn_.reset();
      if (auto s = book_.env().set_map_size(book_.env().map_size() * 2)) return s;
      if (auto s = begin()) return s;
      Status s;
      for (const auto& [dbi, records] : pending_)
        if ((s = put(dbi, records))) break;
      if (!s || !s->map_full()) return s;
    }
  }

  store::Book& book_;
  std::optional<store::WriteTxn> txn_;
  std::vector<std::pair<MDB_dbi, store::Cursor>> cursors_;   // of txn_
  std::vector<std::pair<MDB_dbi, EncodedRecords>> pending_;  // written since the last commit
  std::size_t pending_bytes_ = 0;
  std::size_t committed_bytes_ = 0;  // since the last release_mapped_pages() and start_writeback()
};

// A build writes a fresh book into "BOOK.building-PID" beside it.
constexpr std::string_view kBuildingSuffix = ".building-";

// The file the book's path names (a symbolic link is followed: the new
// book replaces the file, not the link).
std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : path;
}

Status sync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return store::Error{errno, "open directory " + dir};
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return store::Error{err, "sync directory " + dir};
  return std::nullopt;
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
  return book.put_build_params(txn, input.params_json);
}

// Writes the merged streams, the fingerprints and the totals into to, a new
// book: nodes, edges and fingerprints in chunked transactions, the rest in a
// last one. from_txn reads the meta records of the book being replaced.
Status write_fresh(store::Book& from, const store::Txn& from_txn, store::Book& to, RunMerger& merger,
                   CommitInput& input, CommitResult& result) {
  ChunkedAppender appender(to);
  {
    const std::uint32_t min_games = input.min_games;
    MergeAhead<EncodedRecords, EncodedRecords> ahead(
        [&](EncodedRecords& chunk) {
          return fill_records<NodeEntry>(
              chunk, [&](NodeEntry& e) { return merger.next_node(e); },
              [](const NodeEntry& e) { return NodeKey(e.key); }, min_games);
        },
        [&](EncodedRecords& chunk) {
          return fill_records<EdgeEntry>(
              chunk, [&](EdgeEntry& e) { return merger.next_edge(e); },
              [](const EdgeEntry& e) { return EdgeKey(e.key, e.move); }, min_games);
        });
    // Nodes and edges as the two merges make them, and the fingerprints
    // (already in order) while neither has a chunk ready.
    std::size_t run = 0, at = 0;  // the next fingerprint: input.fingerprints[run][at]
    auto fingerprints_left = [&] { return run < input.fingerprints.size(); };
    auto fingerprints = [&] {
      EncodedRecords chunk;
      while (chunk.size() < kEntriesPerChunk && fingerprints_left()) {
        chunk.add(FingerprintKey(input.fingerprints[run][at]).view(), {});
        if (++at == input.fingerprints[run].size()) {
          input.fingerprints[run] = {};  // written: give its memory back
          ++run;
          at = 0;
        }
      }
      return appender.append(to.dbs().games, std::move(chunk));
    };
    EncodedRecords nodes, edges;
    for (;;) {
      using Ready = decltype(ahead)::Ready;
      Ready got = ahead.next_either(nodes, edges, !fingerprints_left());
      if (got == Ready::End) break;
      Status s;
      if (got == Ready::Nodes) {
        result.nodes_written += nodes.size();
        s = appender.append(to.dbs().nodes, std::move(nodes));
      } else if (got == Ready::Edges) {
        result.edges_written += edges.size();
        s = appender.append(to.dbs().edges, std::move(edges));
      } else {
        s = fingerprints();
      }
      if (s) return s;
    }
    while (fingerprints_left())
      if (auto s = fingerprints()) return s;
    if (auto s = appender.finish()) return s;
  }  // the merge threads have ended: the collision count is final
  if (!merger.error().empty()) return store::Error{EIO, merger.error()};
  result.collisions += merger.collisions();

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

// The commit into a book that holds nothing but meta: the new book is written
// beside it as BOOK.building-PID in transactions of bounded size (without
// fsync), synced, and renamed over the book: the rename is the commit. The
// caller holds the book's write transaction (its writer lock) meanwhile, so
// that another build's commit waits and then finds the file replaced.
Status commit_fresh(store::Book& book, const store::Txn& book_txn, RunMerger& merger, CommitInput& input,
                    CommitResult& result) {
  result = CommitResult{};
  result.appended = result.renamed = true;
  std::string error;
  if (!merger.open(&error)) return store::Error{EIO, error};
  const std::string target = real_path(book.path());
  const std::string temp = target + std::string(kBuildingSuffix) + std::to_string(::getpid());
  ::unlink(temp.c_str());
  ::unlink((temp + "-lock").c_str());
  Status status = [&]() -> Status {
    store::BookError be;
    auto to = store::Book::open(temp, store::OpenMode::Create, &be, book.env().map_size());
    if (!to) return store::Error{EIO, be.message};
    if (auto s = to->env().set_no_sync(true)) return s;
    if (auto s = write_fresh(book, book_txn, *to, merger, input, result)) return s;
    if (auto s = to->env().sync()) return s;
    return std::nullopt;
  }();  // the new book is closed
  ::unlink((temp + "-lock").c_str());
  if (!status && ::rename(temp.c_str(), target.c_str()) != 0) status = store::Error{errno, "rename " + temp};
  if (status) {
    ::unlink(temp.c_str());
    return status;
  }
  // The book's lock file holds the old file's transaction id: a process that
  // opens the new file must start a new one.
  ::unlink((target + "-lock").c_str());
  return sync_dir(dir_of(target));
}

}  // namespace

Status commit_build(store::Book& book, RunMerger& merger, CommitInput& input, CommitResult& result) {
  const std::string target = real_path(book.path());
  remove_orphans(dir_of(target), name_of(target) + std::string(kBuildingSuffix));  // of killed builds
  const store::Error replaced{ESTALE, book.path() +
                                          ": another build replaced the book while this one ran; nothing "
                                          "was written, run the build again"};
  {
    store::Error e;
    auto txn = store::WriteTxn::begin(book.env(), &e);  // the writer lock, held until the rename
    if (!txn) return e;
    if (!book.still_at_path()) return replaced;
    auto fresh = book.holds_only_meta(*txn, &e);
    if (!fresh) return e;
    if (*fresh) return commit_fresh(book, *txn, merger, input, result);
  }
  return book.write([&](store::WriteTxn& txn) -> Status {
    result = CommitResult{};
    if (!book.still_at_path()) return replaced;
    std::string error;
    if (!merger.open(&error)) return store::Error{EIO, error};
    MDB_stat nodes_stat, edges_stat, games_stat;
    if (auto s = txn.stat(book.dbs().nodes, nodes_stat)) return s;
    if (auto s = txn.stat(book.dbs().edges, edges_stat)) return s;
    if (auto s = txn.stat(book.dbs().games, games_stat)) return s;
    bool append = nodes_stat.ms_entries == 0 && edges_stat.ms_entries == 0;
    result.appended = append;
    {
      EntriesAhead ahead(
          [&](std::vector<NodeEntry>& chunk) {
            return fill_entries(chunk, [&](NodeEntry& e) { return merger.next_node(e); });
          },
          [&](std::vector<EdgeEntry>& chunk) {
            return fill_entries(chunk, [&](EdgeEntry& e) { return merger.next_edge(e); });
          });
      if (auto s = write_nodes(book, txn, ahead, append, input.min_games, result)) return s;
      if (auto s = write_edges(book, txn, ahead, append, input.min_games, result)) return s;
    }  // the merge threads have ended: the collision count is final
    if (!merger.error().empty()) return store::Error{EIO, merger.error()};
    result.collisions += merger.collisions();

    unsigned fp_flags = games_stat.ms_entries == 0 ? MDB_APPEND : 0;
    for (const auto& run : input.fingerprints)
      for (const Fingerprint& fp : run)
        if (auto s = txn.put(book.dbs().games, FingerprintKey(fp).view(), {}, fp_flags)) return s;
    return write_totals(book, txn, book.stats(txn), input, result);
  });
}

}  // namespace gb::builder
