#include "builder/book_writer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
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

// Runs the k-way merge of the runs on a second thread, a few chunks ahead of
// the LMDB writes on the calling thread (the merge was a third of the
// commit's CPU at full depth, and the parse threads are idle by then). Nodes
// come first, then edges, as RunMerger gives them; the consumer may stop
// early (an LMDB error): the destructor stops the producer.
class MergeAhead {
 public:
  explicit MergeAhead(RunMerger& merger) : merger_(merger), thread_([this] { produce(); }) {}
  ~MergeAhead() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  MergeAhead(const MergeAhead&) = delete;
  MergeAhead& operator=(const MergeAhead&) = delete;

  bool next_node(NodeEntry& out) { return next(nodes_, out); }
  bool next_edge(EdgeEntry& out) { return next(edges_, out); }

 private:
  static constexpr std::size_t kChunk = 1024;  // entries per hand-over
  static constexpr std::size_t kDepth = 4;     // chunks the producer may be ahead

  template <class T>
  struct Channel {
    std::deque<std::vector<T>> ready;  // guarded by mutex_
    bool done = false;                 // guarded by mutex_
    std::vector<T> current;            // the consumer's
    std::size_t at = 0;
  };

  template <class T>
  bool next(Channel<T>& ch, T& out) {
    if (ch.at == ch.current.size()) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !ch.ready.empty() || ch.done; });
      if (ch.ready.empty()) return false;
      ch.current = std::move(ch.ready.front());
      ch.ready.pop_front();
      ch.at = 0;
      lock.unlock();
      changed_.notify_all();
    }
    out = ch.current[ch.at++];
    return true;
  }

  // Hands one chunk over; false when the consumer has gone.
  template <class T>
  bool push(Channel<T>& ch, std::vector<T>& chunk) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return ch.ready.size() < kDepth || stop_; });
    if (stop_) return false;
    if (!chunk.empty()) ch.ready.push_back(std::move(chunk));
    chunk.clear();
    chunk.reserve(kChunk);
    lock.unlock();
    changed_.notify_all();
    return true;
  }

  template <class T>
  void close(Channel<T>& ch) {
    {
      std::lock_guard lock(mutex_);
      ch.done = true;
    }
    changed_.notify_all();
  }

  template <class T, class Next>
  bool produce(Channel<T>& ch, Next next) {
    std::vector<T> chunk;
    chunk.reserve(kChunk);
    T e;
    while (next(e)) {
      chunk.push_back(e);
      if (chunk.size() == kChunk && !push(ch, chunk)) return false;
    }
    if (!push(ch, chunk)) return false;
    close(ch);
    return true;
  }

  void produce() {
    produce(nodes_, [this](NodeEntry& e) { return merger_.next_node(e); }) &&
        produce(edges_, [this](EdgeEntry& e) { return merger_.next_edge(e); });
  }

  RunMerger& merger_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stop_ = false;
  Channel<NodeEntry> nodes_;
  Channel<EdgeEntry> edges_;
  std::thread thread_;  // last: starts after the channels exist
};

// Merges the node stream into the book; returns the keys of positions whose
// node collided with a different stored position.
Status write_nodes(store::Book& book, store::WriteTxn& txn, MergeAhead& merger, bool append,
                   std::uint32_t min_games, CommitResult& result) {
  NodeEntry e;
  store::Error error;
  auto cursor = store::Cursor::open(txn, book.dbs().nodes, &error);  // one cursor: no set-up per put
  if (!cursor) return error;
  while (merger.next_node(e)) {
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

Status write_edges(store::Book& book, store::WriteTxn& txn, MergeAhead& merger, bool append,
                   std::uint32_t min_games, CommitResult& result) {
  EdgeEntry e;
  store::Error error;
  auto cursor = store::Cursor::open(txn, book.dbs().edges, &error);
  if (!cursor) return error;
  while (merger.next_edge(e)) {
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

// Appends records in key order to one database of a book written from
// scratch, in write transactions of about kChunkBytes of keys and values, so
// that LMDB never holds more dirty pages than that (it keeps a transaction's
// pages in memory until the commit). The records of the open transaction are
// kept until it commits: on MDB_MAP_FULL the map is doubled and they are
// written again.
class ChunkedAppender {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t(1) << 20;

  ChunkedAppender(store::Book& book, MDB_dbi dbi) : book_(book), dbi_(dbi) { pending_.reserve(kChunkBytes); }
  ~ChunkedAppender() { cursor_.reset(); }  // before the transaction aborts

  [[nodiscard]] Status put(std::string_view key, std::string_view value) {
    if (!txn_)
      if (auto s = begin()) return s;
    pending_.append(key);
    pending_.append(value);
    sizes_.emplace_back(std::uint32_t(key.size()), std::uint32_t(value.size()));
    Status s = cursor_->put(key, value, MDB_APPEND);
    if (s && s->map_full()) s = redo();
    if (s) return s;
    return pending_.size() >= kChunkBytes ? commit() : std::nullopt;
  }

  // Commits the records not yet committed.
  [[nodiscard]] Status finish() { return txn_ ? commit() : std::nullopt; }

 private:
  Status begin() {
    store::Error e;
    auto txn = store::WriteTxn::begin(book_.env(), &e);
    if (!txn) return e;
    txn_.emplace(std::move(*txn));
    auto cursor = store::Cursor::open(*txn_, dbi_, &e);
    if (!cursor) return e;
    cursor_.emplace(std::move(*cursor));
    return std::nullopt;
  }

  Status commit() {
    for (;;) {
      cursor_.reset();
      Status s = txn_->commit();
      txn_.reset();
      if (!s) break;
      if (!s->map_full()) return s;
      if (auto r = redo()) return r;
    }
    pending_.clear();
    sizes_.clear();
    return std::nullopt;
  }

  // Aborts the transaction, doubles the map and writes the pending records again.
  Status redo() {
    for (;;) {
      cursor_.reset();
      txn_.reset();
      if (auto s = book_.env().set_map_size(book_.env().map_size() * 2)) return s;
      if (auto s = begin()) return s;
      Status s;
      std::size_t at = 0;
      for (auto [k, v] : sizes_) {
        if ((s = cursor_->put(std::string_view(pending_).substr(at, k),
                              std::string_view(pending_).substr(at + k, v), MDB_APPEND)))
          break;
        at += k + v;
      }
      if (!s || !s->map_full()) return s;
    }
  }

  store::Book& book_;
  MDB_dbi dbi_;
  std::optional<store::WriteTxn> txn_;
  std::optional<store::Cursor> cursor_;  // of txn_
  std::string pending_;                  // keys and values written since the last commit
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sizes_;
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
  {
    MergeAhead ahead(merger);
    ChunkedAppender nodes(to, to.dbs().nodes);
    NodeEntry n;
    while (ahead.next_node(n)) {
      if (n.record.counters.games < input.min_games) continue;
      if (auto s = nodes.put(NodeKey(n.key).view(), as_bytes(n.record))) return s;
      ++result.nodes_written;
    }
    if (auto s = nodes.finish()) return s;
    ChunkedAppender edges(to, to.dbs().edges);
    EdgeEntry e;
    while (ahead.next_edge(e)) {
      if (e.record.counters.games < input.min_games) continue;
      if (auto s = edges.put(EdgeKey(e.key, e.move).view(), as_bytes(e.record))) return s;
      ++result.edges_written;
    }
    if (auto s = edges.finish()) return s;
  }  // the merge thread has ended: its collision count is final
  if (!merger.error().empty()) return store::Error{EIO, merger.error()};
  result.collisions += merger.collisions();

  ChunkedAppender games(to, to.dbs().games);
  for (const Fingerprint& fp : input.fingerprints)
    if (auto s = games.put(FingerprintKey(fp).view(), {})) return s;
  if (auto s = games.finish()) return s;

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
  std::sort(input.fingerprints.begin(), input.fingerprints.end());
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
      MergeAhead ahead(merger);
      if (auto s = write_nodes(book, txn, ahead, append, input.min_games, result)) return s;
      if (auto s = write_edges(book, txn, ahead, append, input.min_games, result)) return s;
    }  // the merge thread has ended: its collision count is final
    if (!merger.error().empty()) return store::Error{EIO, merger.error()};
    result.collisions += merger.collisions();

    unsigned fp_flags = games_stat.ms_entries == 0 ? MDB_APPEND : 0;
    for (const Fingerprint& fp : input.fingerprints)
      if (auto s = txn.put(book.dbs().games, FingerprintKey(fp).view(), {}, fp_flags)) return s;
    return write_totals(book, txn, book.stats(txn), input, result);
  });
}

}  // namespace gb::builder
