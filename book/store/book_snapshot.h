// One read snapshot of a whole book, kept open for many reads: a read
// transaction per part (a sharded book's shards are separate LMDB files; a
// finished build's shards do not change, so their snapshots together are one
// state of the book). Readers of positions and learning go to the part of
// the key; a pass over every section visits the parts in key order.
//
//   auto snapshot = BookSnapshot::begin(book, &error);
//   if (auto section = snapshot->section(pos.key(), &error)) ...
//
// Not thread-safe: one per thread. The Book must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "book/store/book.h"
#include "book/store/section_groups.h"

namespace gb::store {

class BookSnapshot {
 public:
  [[nodiscard]] static std::optional<BookSnapshot> begin(Book& book, Error* error);

  std::size_t part_count() const { return txns_.size(); }
  std::size_t part_of(Key key) const { return book_->part_of(key); }
  ReadTxn& txn(std::size_t part) { return txns_[part]; }
  const Databases& dbs(std::size_t part) const { return book_->part(part).dbs; }
  // The part of meta, sources and stored games (book.h).
  ReadTxn& global_txn() { return txns_[book_->global_part()]; }
  const Databases& global_dbs() const { return book_->dbs(); }

  // The section of the position with this key (valid while the snapshot
  // lasts), nullopt when absent or on an error (then error is set).
  [[nodiscard]] std::optional<std::string_view> section(Key key, Error* error = nullptr);
  // The learning record of key + move (0: the node's own), raw; nullopt when none.
  [[nodiscard]] std::optional<std::string_view> learning(Key key, std::uint16_t move, Error* error = nullptr);
  // The entries of one database (learn, games...) over every part; of the
  // positions, count_positions (a database of groups, section_groups.h).
  [[nodiscard]] Status entries(MDB_dbi Databases::*db, std::uint64_t& out);
  // The positions of the book (a pass over every group).
  [[nodiscard]] Status count_positions(std::uint64_t& out);
  // Calls visit(key, section) for every position of the book, in key order,
  // until it returns false.
  [[nodiscard]] Status each_section(const std::function<bool(Key, std::string_view)>& visit);

  // Releases the snapshots (reset) and takes fresh ones (renew).
  void reset();
  [[nodiscard]] Status renew();

 private:
  BookSnapshot(Book& book, std::vector<ReadTxn> txns)
      : book_(&book), txns_(std::move(txns)), finders_(txns_.size()) {}
  Book* book_;
  std::vector<ReadTxn> txns_;  // a part each, in key order
  std::vector<std::optional<SectionFinder>>
      finders_;  // of each part's positions, opened at its first look-up
};

}  // namespace gb::store
