#include "query/book_section.h"

#include <cassert>
#include <cerrno>

#include "book/explore/bucket_view.h"

namespace gb::query {

std::optional<BookSections> BookSections::open(store::Book& book, store::Error* error) {
  auto snapshot = store::BookSnapshot::begin(book, error);
  if (!snapshot) return std::nullopt;
  BookSections s(book, std::move(*snapshot));
  std::uint64_t learned = 0;
  s.has_learning_ = s.snapshot_.entries(&store::Databases::learn, learned) || learned > 0;
  s.bucket_params_ = store::bucket_params(s.snapshot_.global_txn(), book.dbs().meta);
  return s;
}

store::Status BookSections::index_all() {
  std::uint64_t positions = 0;
  if (auto s = snapshot_.count_positions(positions)) return s;
  KeyTable<Entry> table(positions);
  if (auto s = snapshot_.each_section([&](Key key, std::string_view section) {
        bool inserted;
        Entry& entry = table.find_or_insert(key, inserted);
        entry.section = section;
        entry.present = true;
        return true;
      }))
    return s;
  table_ = std::move(table);
  indexed_ = true;
  return std::nullopt;
}

std::uint64_t BookSections::position_count() {
  std::uint64_t positions = 0;
  if (auto s = snapshot_.count_positions(positions)) {
    if (!error_.code) error_ = *s;
    return 0;
  }
  return positions;
}

bool BookSections::first_visit(Key key, std::optional<std::string_view>& section, std::uint32_t*& visit) {
  bool inserted;
  Entry& entry = table_.find_or_insert(key, inserted);
  visit = &entry.visit;
  if (entry.visited) return false;
  entry.visited = true;
  if (!indexed_ && !entry.filtered)
    if (auto v = section_from_book(key)) entry.section = *v, entry.present = true;
  see_through_filter(key, entry);
  section = entry.present ? std::optional<std::string_view>(entry.section) : std::nullopt;
  return true;
}

std::optional<std::string_view> BookSections::section(Key key) {
  if (filter_) {
    bool inserted;
    Entry& entry = table_.find_or_insert(key, inserted);
    if (inserted && !indexed_)
      if (auto v = section_from_book(key)) entry.section = *v, entry.present = true;
    see_through_filter(key, entry);
    return entry.present ? std::optional<std::string_view>(entry.section) : std::nullopt;
  }
  if (indexed_) {
    const Entry* entry = table_.find(key);
    return entry && entry->present ? std::optional<std::string_view>(entry->section) : std::nullopt;
  }
  return section_from_book(key);
}

std::optional<std::string_view> BookSections::section_from_book(Key key) {
  store::Error e;
  auto v = snapshot_.section(key, &e);
  if (e.code && !error_.code) error_ = e;
  return v;
}

void BookSections::set_filter(const store::BucketFilter& filter) {
  assert(bucket_params_);
  filter_ = filter;
  // None when the book has buckets but no game was counted yet: every position then has none selected.
  buckets_.clear();
  for (std::size_t p = 0; p < snapshot_.part_count(); ++p) {
    store::Error e;
    buckets_.push_back(snapshot_.txn(p).open_db(store::kBucketsDb, 0, &e));
  }
}

void BookSections::see_through_filter(Key key, Entry& entry) {
  if (entry.filtered) return;
  entry.filtered = true;
  if (!filter_ || !entry.present) return;
  entry.present = false;
  found_.clear();
  if (const std::size_t p = snapshot_.part_of(key); buckets_[p]) {
    store::Error e;
    bool damaged = false;
    if (!store::read_buckets(snapshot_.txn(p), *buckets_[p], key, found_, &damaged, &e)) {
      if (damaged && !error_.code)
        error_ =
            store::Error{EIO, "damaged book: the buckets of key " + std::to_string(key) + " do not decode"};
      else if (e.code && e.code != MDB_NOTFOUND && !error_.code)
        error_ = e;
      return;
    }
  }
  std::string out;
  if (!explore::filter_section(entry.section, found_, *filter_, bucket_params_->by_month, out)) return;
  entry.section = filtered_.emplace_back(std::move(out));
  entry.present = true;
}

std::optional<cql::BookCounts::Learned> BookSections::learned(Key key, Move move) {
  if (!has_learning_) return std::nullopt;
  auto v = snapshot_.learning(key, move.raw());
  store::LearnRecord r;
  if (!v || !store::from_bytes(*v, r)) return std::nullopt;
  return cql::BookCounts::Learned{r.wins, r.draws, r.losses};
}

cql::BookCounts book_counts(const store::Counters& c) {
  cql::BookCounts out;
  out.games = c.games;
  out.white = c.white_wins;
  out.draws = c.draws;
  out.black = c.black_wins;
  if (c.rated_games > 0) out.average_elo = c.average_elo();
  return out;
}

}  // namespace gb::query
