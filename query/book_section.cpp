#include "query/book_section.h"

namespace gb::query {

std::optional<BookSections> BookSections::open(store::Book& book, store::Error* error) {
  auto txn = store::ReadTxn::begin(book.env(), error);
  if (!txn) return std::nullopt;
  BookSections s(book, std::move(*txn));
  MDB_stat st;
  s.has_learning_ = s.txn_.stat(book.dbs().learn, st) || st.ms_entries > 0;
  return s;
}

std::optional<std::string_view> BookSections::section(Key key) {
  store::Error e;
  auto v = txn_.get(book_->dbs().positions, store::NodeKey(key).view(), &e);
  if (e.code && !error_.code) error_ = e;
  return v;
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
