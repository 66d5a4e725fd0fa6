#include "query/book_section.h"

#include <cassert>
#include <cerrno>

#include "book/explore/bucket_view.h"

namespace gb::query {

std::optional<BookSections> BookSections::open(store::Book& book, store::Error* error) {
  auto txn = store::ReadTxn::begin(book.env(), error);
  if (!txn) return std::nullopt;
  BookSections s(book, std::move(*txn));
  MDB_stat st;
  s.has_learning_ = s.txn_.stat(book.dbs().learn, st) || st.ms_entries > 0;
  s.bucket_params_ = store::bucket_params(s.txn_, book.dbs().meta);
  return s;
}

store::Status BookSections::index_all() {
  store::Error e;
  MDB_stat st;
  if (auto s = txn_.stat(book_->dbs().positions, st)) return s;
  auto cursor = store::Cursor::open(txn_, book_->dbs().positions, &e);
  if (!cursor) return e;
  KeyTable<Entry> table(st.ms_entries);
  for (auto item = cursor->first(&e); item; item = cursor->next(&e)) {
    if (item->key.size() != 8) continue;
    bool inserted;
    Entry& entry = table.find_or_insert(store::get_be64(item->key.data()), inserted);
    entry.section = item->value;
    entry.present = true;
  }
  if (e.code) return e;
  table_ = std::move(table);
  indexed_ = true;
  return std::nullopt;
}

std::uint64_t BookSections::position_count() {
  MDB_stat st;
  if (auto s = txn_.stat(book_->dbs().positions, st)) {
    if (!error_.code) error_ = *s;
    return 0;
  }
  return st.ms_entries;
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
  auto v = txn_.get(book_->dbs().positions, store::NodeKey(key).view(), &e);
  if (e.code && !error_.code) error_ = e;
  return v;
}

void BookSections::set_filter(const store::BucketFilter& filter) {
  assert(bucket_params_);
  filter_ = filter;
  store::Error e;
  // None when the book has buckets but no game was counted yet: every position then has none selected.
  buckets_ = txn_.open_db(store::kBucketsDb, 0, &e);
}

void BookSections::see_through_filter(Key key, Entry& entry) {
  if (entry.filtered) return;
  entry.filtered = true;
  if (!filter_ || !entry.present) return;
  entry.present = false;
  found_.clear();
  if (buckets_) {
    store::Error e;
    bool damaged = false;
    if (!store::read_buckets(txn_, *buckets_, key, found_, &damaged, &e)) {
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
  auto v = txn_.get(book_->dbs().learn, store::EdgeKey(key, move.raw()).view());
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
