// The book as `graphbook query` reads it: one read snapshot for the whole
// traversal (a transaction per part of a sharded book), a position's section by key, and the learning
// counters. Not thread-safe; the Book must outlive it.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/cql/book_view.h"
#include "book/store/book.h"
#include "book/store/book_snapshot.h"
#include "book/store/buckets.h"
#include "query/key_table.h"

namespace gb::query {

class BookSections {
 public:
  [[nodiscard]] static std::optional<BookSections> open(store::Book& book, store::Error* error);

  // Reads the key of every section once, in key order (a cursor's
  // sequential pass), so that section() is a lookup in memory rather than a
  // B-tree descent: worth it for a traversal of most of the book.
  [[nodiscard]] store::Status index_all();
  // The number of positions (sections) in the book, from LMDB's count
  // without reading them; 0 with the error kept for error() when it fails.
  std::uint64_t position_count();
  // The section of key (valid until the transaction ends with this object);
  // nullopt when the position is not in the book. A storage error is kept
  // for error().
  std::optional<std::string_view> section(Key key);
  // The traversal's visit of key: false when key was visited before, else
  // true and its section in section (one lookup for both). Either way visit
  // is the traversal's number for the key (the caller sets it on the first
  // visit); valid until the next call.
  bool first_visit(Key key, std::optional<std::string_view>& section, std::uint32_t*& visit);
  // The learning counters of the edge key + move (Move() for the node
  // itself), nullopt when the book learned nothing there.
  std::optional<cql::BookCounts::Learned> learned(Key key, Move move);

  // The book's bucket settings, nullopt when it has no buckets.
  const std::optional<store::BucketParams>& bucket_params() const { return bucket_params_; }
  // From now on every section is the book's seen through the filter
  // (explore::filter_section): the selected games' counts, the moves none of
  // them played left out, and no section for a position none of them
  // reached. A filtered section is made once per key, kept in memory for the
  // rest of the walk. The book must have buckets (store::filter_refusal).
  void set_filter(const store::BucketFilter& filter);

  const store::Error& error() const { return error_; }

 private:
  BookSections(store::Book& book, store::BookSnapshot snapshot)
      : book_(&book), snapshot_(std::move(snapshot)) {}
  std::optional<std::string_view> section_from_book(Key key);  // a get in the transaction
  struct Entry;
  // With a filter, replaces the entry's section by the filtered one, once.
  void see_through_filter(Key key, Entry& entry);
  store::Book* book_;
  store::BookSnapshot snapshot_;
  bool has_learning_ = false;  // the learn database is not empty: worth a lookup
  struct Entry {
    std::string_view section;
    bool present = false;  // the book has a section under the key
    bool visited = false;
    bool filtered = false;  // the section is the filter's (or there is no filter)
    std::uint32_t visit = 0;
  };
  KeyTable<Entry> table_;  // visited keys, and every section after index_all()
  bool indexed_ = false;
  store::Error error_;
  std::optional<store::BucketParams> bucket_params_;
  std::optional<store::BucketFilter> filter_;
  std::vector<std::optional<MDB_dbi>> buckets_;  // each part's buckets database, when filtering
  std::vector<store::BucketEntry> found_;        // the buckets of the key being filtered
  std::deque<std::string> filtered_;             // the filtered sections (stable addresses)
};

// A node's or an edge's source counters as the CQL book filters read them.
cql::BookCounts book_counts(const store::Counters& c);

}  // namespace gb::query
