#include "book/store/book_snapshot.h"

#include <cassert>

namespace gb::store {

std::optional<BookSnapshot> BookSnapshot::begin(Book& book, Error* error) {
  std::vector<ReadTxn> txns;
  txns.reserve(book.part_count());
  for (std::size_t i = 0; i < book.part_count(); ++i) {
    auto txn = ReadTxn::begin(book.part(i).env, error);
    if (!txn) return std::nullopt;
    txns.push_back(std::move(*txn));
  }
  assert(!txns.empty());
  return BookSnapshot(book, std::move(txns));
}

std::optional<std::string_view> BookSnapshot::section(Key key, Error* error) {
  const std::size_t p = part_of(key);
  if (!finders_[p]) {
    auto finder = SectionFinder::open(txns_[p], dbs(p).positions, error);
    if (!finder) return std::nullopt;
    finders_[p].emplace(std::move(*finder));
  }
  return finders_[p]->find(key, error);
}

std::optional<std::string_view> BookSnapshot::learning(Key key, std::uint16_t move, Error* error) {
  const std::size_t p = part_of(key);
  return txns_[p].get(dbs(p).learn, EdgeKey(key, move).view(), error);
}

Status BookSnapshot::entries(MDB_dbi Databases::*db, std::uint64_t& out) {
  out = 0;
  for (std::size_t p = 0; p < txns_.size(); ++p) {
    MDB_stat st;
    if (auto s = txns_[p].stat(dbs(p).*db, st)) return s;
    out += st.ms_entries;
  }
  return std::nullopt;
}

Status BookSnapshot::count_positions(std::uint64_t& out) {
  out = 0;
  for (std::size_t p = 0; p < txns_.size(); ++p) {
    std::uint64_t n;
    if (auto s = count_sections(txns_[p], dbs(p).positions, n)) return s;
    out += n;
  }
  return std::nullopt;
}

Status BookSnapshot::each_section(const std::function<bool(Key, std::string_view)>& visit) {
  bool stopped = false;
  for (std::size_t p = 0; p < txns_.size() && !stopped; ++p)
    if (auto s = store::each_section(txns_[p], dbs(p).positions, [&](Key key, std::string_view section) {
          return !(stopped = !visit(key, section));
        }))
      return s;
  return std::nullopt;
}

void BookSnapshot::reset() {
  for (auto& f : finders_) f.reset();  // their cursors belong to the transactions
  for (ReadTxn& t : txns_) t.reset();
}

Status BookSnapshot::renew() {
  for (ReadTxn& t : txns_)
    if (auto s = t.renew()) return s;
  return std::nullopt;
}

}  // namespace gb::store
