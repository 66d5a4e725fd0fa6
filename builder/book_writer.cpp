#include "builder/book_writer.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

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
  static constexpr std::size_t kChunk = 4096;  // entries per hand-over
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

}  // namespace

Status commit_build(store::Book& book, RunMerger& merger, CommitInput& input, CommitResult& result) {
  std::sort(input.fingerprints.begin(), input.fingerprints.end());
  return book.write([&](store::WriteTxn& txn) -> Status {
    result = CommitResult{};
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
    result.collisions += merger.collisions();

    unsigned fp_flags = games_stat.ms_entries == 0 ? MDB_APPEND : 0;
    for (const Fingerprint& fp : input.fingerprints) {
      char key[16];
      store::put_be64(key, fp[0]);
      store::put_be64(key + 8, fp[1]);
      if (auto s = txn.put(book.dbs().games, std::string_view(key, 16), {}, fp_flags)) return s;
    }
    if (input.more_writes)
      if (auto s = input.more_writes(txn)) return s;
    for (const store::SourceInfo& src : input.sources)
      if (auto s = book.add_source(txn, src)) return s;
    store::BookStats stats = book.stats(txn);
    stats.games += input.added.games;
    stats.duplicates += input.added.duplicates;
    stats.skipped += input.added.skipped;
    stats.collisions += input.added.collisions + result.collisions;
    stats.builds += 1;
    if (auto s = book.put_stats(txn, stats)) return s;
    return book.put_build_params(txn, input.params_json);
  });
}

}  // namespace gb::builder
