#include "book/explore/book_reader.h"

#include <cerrno>

namespace gb::explore {

using store::BookEdge;
using store::Status;

std::optional<BookReader> BookReader::open(store::Book& book, store::Error* error) {
  auto txn = store::ReadTxn::begin(book.env(), error);
  if (!txn) return std::nullopt;
  auto cursor = store::Cursor::open(*txn, book.dbs().positions, error);
  if (!cursor) return std::nullopt;
  auto learn_cursor = store::Cursor::open(*txn, book.dbs().learn, error);
  if (!learn_cursor) return std::nullopt;
  BookReader reader(book, std::move(*txn), std::move(*cursor), std::move(*learn_cursor));
  reader.note_snapshot();
  return reader;
}

void BookReader::note_snapshot() {
  MDB_stat st;
  learning_ = txn_.stat(book_->dbs().learn, st) || st.ms_entries > 0;
  evals_ = store::open_evals(txn_, false, nullptr);
  values_ = store::open_values(txn_, false, nullptr);
  bucket_params_ = store::bucket_params(txn_, book_->dbs().meta);
  buckets_ = bucket_params_ ? txn_.open_db(store::kBucketsDb, 0, nullptr) : std::nullopt;
}

Status BookReader::buckets(Key key, std::vector<store::BucketEntry>& out) {
  out.clear();
  if (!buckets_) {
    if (!bucket_params_) return store::Error{EINVAL, book_->path() + " was built without buckets"};
    return std::nullopt;  // a book with buckets that has none yet (no game counted)
  }
  store::Error error;
  bool damaged = false;
  if (!store::read_buckets(txn_, *buckets_, key, out, &damaged, &error)) {
    if (damaged)
      return store::Error{EIO, "damaged book: the buckets of key " + std::to_string(key) + " do not decode"};
    if (error.code && error.code != MDB_NOTFOUND) return error;
  }
  return std::nullopt;
}

std::optional<store::Evaluation> BookReader::evaluation(Key key) {
  return evals_ ? store::get_evaluation(txn_, *evals_, key) : std::nullopt;
}

std::optional<store::BackedUpValue> BookReader::value(Key key) {
  return values_ ? store::get_value(txn_, *values_, key) : std::nullopt;
}

Status BookReader::edges(Key key, std::vector<BookEdge>& out, bool with_learning) {
  out.clear();
  store::Error error;
  auto v = section(key, &error);
  if (error.code) return error;
  if (!v) return std::nullopt;
  store::append_edges(*v, out);
  if (with_learning && learning_ && !out.empty()) return attach_learning(key, out);
  return std::nullopt;
}

store::Status BookReader::attach_learning(Key key, std::vector<BookEdge>& out) {
  store::Error error;
  store::NodeKey prefix(key);
  std::size_t i = 0;  // both ranges are in move order: one merge pass
  for (auto item = learn_cursor_->seek(prefix.view(), &error); item && i < out.size();
       item = learn_cursor_->next(&error)) {
    if (item->key.substr(0, 8) != prefix.view()) break;
    if (item->key.size() != 10) continue;
    std::uint16_t move = store::get_be16(item->key.data() + 8);
    while (i < out.size() && out[i].move.raw() < move) ++i;
    if (i < out.size() && out[i].move.raw() == move) (void)store::from_bytes(item->value, out[i].learning);
  }
  if (error.code) return error;
  return std::nullopt;
}

std::optional<store::NodeRecord> BookReader::node(Key key, store::Error* error) {
  auto v = section(key, error);
  if (!v) return std::nullopt;
  return store::SectionReader(*v).node();
}

std::optional<std::string_view> BookReader::section(Key key, store::Error* error) {
  store::NodeKey k(key);
  auto item = cursor_->seek(k.view(), error);
  if (!item || item->key != k.view()) return std::nullopt;
  return item->value;
}

store::LearnRecord BookReader::node_learning(Key key) {
  store::LearnRecord r;
  if (auto v = txn_.get(book_->dbs().learn, store::EdgeKey(key, 0).view())) (void)store::from_bytes(*v, r);
  return r;
}

Status BookReader::refresh() {
  cursor_.reset();
  learn_cursor_.reset();
  txn_.reset();
  if (auto s = txn_.renew()) return s;
  store::Error error;
  auto cursor = store::Cursor::open(txn_, book_->dbs().positions, &error);
  if (!cursor) return error;
  cursor_.emplace(std::move(*cursor));
  auto learn_cursor = store::Cursor::open(txn_, book_->dbs().learn, &error);
  if (!learn_cursor) return error;
  learn_cursor_.emplace(std::move(*learn_cursor));
  note_snapshot();
  return std::nullopt;
}

}  // namespace gb::explore
