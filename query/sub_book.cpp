#include "query/sub_book.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <vector>

#include "book/explore/bucket_view.h"
#include "book/store/book_snapshot.h"
#include "builder/new_book_file.h"

namespace gb::query {

std::optional<SubBookReport> write_sub_book(store::Book& book, const std::unordered_set<Key>& nodes,
                                            const std::string& out_path, QueryError* error,
                                            const store::BucketFilter* filter) {
  std::vector<Key> keys(nodes.begin(), nodes.end());
  std::sort(keys.begin(), keys.end());  // LMDB's order: the keys are big-endian
  store::Error e;
  auto snapshot = store::BookSnapshot::begin(book, &e);
  if (!snapshot) return *error = QueryError::book(book.path() + ": " + e.message()), std::nullopt;
  std::vector<store::Cursor> learn;  // a part each
  std::vector<std::optional<MDB_dbi>> buckets;
  for (std::size_t p = 0; p < snapshot->part_count(); ++p) {
    auto cursor = store::Cursor::open(snapshot->txn(p), snapshot->dbs(p).learn, &e);
    if (!cursor) return *error = QueryError::book(book.path() + ": " + e.message()), std::nullopt;
    learn.push_back(std::move(*cursor));
    if (filter) buckets.push_back(snapshot->txn(p).open_db(store::kBucketsDb, 0, nullptr));
  }
  std::string params = book.build_params();
  store::BookStats source_stats = book.stats();
  std::optional<store::BucketParams> bucket_params;
  if (filter) {
    bucket_params = store::bucket_params(snapshot->global_txn(), book.dbs().meta);
    assert(bucket_params);  // the caller refused a filter the book cannot answer
  }
  std::vector<store::BucketEntry> entries;
  std::string filtered;

  SubBookReport report;
  store::Status status =
      builder::replace_book_file(out_path, store::Book::kDefaultMapSize, [&](store::Book& to) {
        builder::ChunkedAppender appender(to);
        store::BookStats stats;
        stats.builds = 1;
        std::string value;
        std::vector<std::pair<std::string, std::string>> learned;  // keys in order, after the positions
        std::vector<std::uint16_t> kept;  // the moves of the node being copied, and 0
        store::GroupAppender positions = appender.groups(to.dbs().positions);
        for (Key k : keys) {
          const std::size_t part = snapshot->part_of(k);
          auto section = snapshot->section(k, &e);
          if (e.code) return store::Status(e);
          if (!section) continue;
          if (filter) {
            // The section as the filter shows it; none when no selected game reached the position.
            entries.clear();
            bool damaged = false;
            if (buckets[part] &&
                !store::read_buckets(snapshot->txn(part), *buckets[part], k, entries, &damaged, &e)) {
              if (damaged)
                return store::Status(store::Error{
                    EIO, "damaged book: the buckets of key " + std::to_string(k) + " do not decode"});
              if (e.code && e.code != MDB_NOTFOUND) return store::Status(e);
              e = {};
            }
            if (!explore::filter_section(*section, entries, *filter, bucket_params->by_month, filtered))
              continue;
            section = filtered;
          }
          store::SectionReader reader(*section);
          std::optional<store::NodeRecord> node = reader.node();
          value.clear();
          store::append_section_node(value, node ? &*node : nullptr);
          if (node) {
            ++report.nodes;
            stats.games = std::max<std::uint64_t>(stats.games, node->counters.games);
          }
          std::uint16_t move;
          store::EdgeRecord r;
          kept.assign(1, 0);  // the node's own learning (move 0), then the moves kept
          while (reader.next(move, r))
            if (!(r.flags & store::kEdgeKeyOnly) && nodes.contains(r.child_key)) {
              store::append_section_edge(value, move, r, node ? &*node : nullptr);
              kept.push_back(move);
              ++report.edges;
            }
          if (auto s = positions.add(k, value)) return s;
          store::NodeKey prefix(k);
          for (auto item = learn[part].seek(prefix.view(), &e);
               item && item->key.substr(0, 8) == prefix.view(); item = learn[part].next(&e))
            if (item->key.size() == 10 &&
                std::find(kept.begin(), kept.end(), store::get_be16(item->key.data() + 8)) != kept.end())
              learned.emplace_back(std::string(item->key), std::string(item->value));
          if (e.code) return store::Status(e);
        }
        if (auto s = positions.finish()) return s;
        for (const auto& [key, v] : learned)
          if (auto s = appender.add(to.dbs().learn, key, v)) return s;
        if (auto s = appender.finish()) return s;
        stats.collisions = source_stats.collisions;
        return to.write([&](store::WriteTxn& w) -> store::Status {
          if (auto s = to.put_stats(w, stats)) return s;
          return params.empty() ? std::nullopt : to.put_build_params(w, params);
        });
      });
  if (status) return *error = QueryError::output(out_path + ": " + status->message()), std::nullopt;
  return report;
}

}  // namespace gb::query
