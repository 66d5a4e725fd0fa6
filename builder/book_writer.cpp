#include "builder/book_writer.h"

#include <algorithm>

namespace gb::builder {

using store::as_bytes;
using store::EdgeKey;
using store::NodeKey;
using store::Status;

namespace {

// Merges the node stream into the book; returns the keys of positions whose
// node collided with a different stored position.
Status write_nodes(store::Book& book, store::WriteTxn& txn, RunMerger& merger, bool append, std::uint32_t min_games,
                   CommitResult& result) {
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

Status write_edges(store::Book& book, store::WriteTxn& txn, RunMerger& merger, bool append, std::uint32_t min_games,
                   CommitResult& result) {
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
    if (auto s = write_nodes(book, txn, merger, append, input.min_games, result)) return s;
    if (auto s = write_edges(book, txn, merger, append, input.min_games, result)) return s;
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
