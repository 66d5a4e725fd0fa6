#include "book/explore/book_reader.h"

#include <cerrno>

namespace gb::explore {

using store::BookEdge;
using store::Status;

std::optional<BookReader> BookReader::open(store::Book& book, store::Error* error) {
  auto snapshot = store::BookSnapshot::begin(book, error);
  if (!snapshot) return std::nullopt;
  BookReader reader(book, std::move(*snapshot));
  if (auto s = reader.open_cursors()) {
    if (error) *error = *s;
    return std::nullopt;
  }
  reader.note_snapshot();
  return reader;
}

Status BookReader::open_cursors() {
  parts_.resize(snapshot_.part_count());
  store::Error error;
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    auto sections = store::SectionFinder::open(snapshot_.txn(p), snapshot_.dbs(p).positions, &error);
    if (!sections) return error;
    parts_[p].sections.emplace(std::move(*sections));
    auto learn_cursor = store::Cursor::open(snapshot_.txn(p), snapshot_.dbs(p).learn, &error);
    if (!learn_cursor) return error;
    parts_[p].learn_cursor.emplace(std::move(*learn_cursor));
  }
  return std::nullopt;
}

void BookReader::note_snapshot() {
  std::uint64_t learned = 0;
  learning_ = snapshot_.entries(&store::Databases::learn, learned) || learned > 0;
  bucket_params_ = store::bucket_params(snapshot_.global_txn(), snapshot_.global_dbs().meta);
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    store::ReadTxn& txn = snapshot_.txn(p);
    parts_[p].evals = store::open_evals(txn, false, nullptr);
    parts_[p].values = store::open_values(txn, false, nullptr);
    parts_[p].buckets = bucket_params_ ? txn.open_db(store::kBucketsDb, 0, nullptr) : std::nullopt;
  }
}

Status BookReader::buckets(Key key, std::vector<store::BucketEntry>& out) {
  out.clear();
  const std::size_t p = snapshot_.part_of(key);
  if (!parts_[p].buckets) {
    if (!bucket_params_) return store::Error{EINVAL, book_->path() + " was built without buckets"};
    return std::nullopt;  // a book with buckets that has none yet (no game counted)
  }
  store::Error error;
  bool damaged = false;
  if (!store::read_buckets(snapshot_.txn(p), *parts_[p].buckets, key, out, &damaged, &error)) {
    if (damaged)
      return store::Error{EIO, "damaged book: the buckets of key " + std::to_string(key) + " do not decode"};
    if (error.code && error.code != MDB_NOTFOUND) return error;
  }
  return std::nullopt;
}

std::optional<store::Evaluation> BookReader::evaluation(Key key) {
  const std::size_t p = snapshot_.part_of(key);
  return parts_[p].evals ? store::get_evaluation(snapshot_.txn(p), *parts_[p].evals, key) : std::nullopt;
}

std::optional<store::BackedUpValue> BookReader::value(Key key) {
  const std::size_t p = snapshot_.part_of(key);
  return parts_[p].values ? store::get_value(snapshot_.txn(p), *parts_[p].values, key) : std::nullopt;
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
  store::Cursor& learn_cursor = *parts_[snapshot_.part_of(key)].learn_cursor;
  for (auto item = learn_cursor.seek(prefix.view(), &error); item && i < out.size();
       item = learn_cursor.next(&error)) {
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
  return parts_[snapshot_.part_of(key)].sections->find(key, error);
}

store::LearnRecord BookReader::node_learning(Key key) {
  store::LearnRecord r;
  if (auto v = snapshot_.learning(key, 0)) (void)store::from_bytes(*v, r);
  return r;
}

Status BookReader::refresh() {
  for (Part& p : parts_) p.sections.reset(), p.learn_cursor.reset();
  snapshot_.reset();
  if (auto s = snapshot_.renew()) return s;
  if (auto s = open_cursors()) return s;
  note_snapshot();
  return std::nullopt;
}

}  // namespace gb::explore
