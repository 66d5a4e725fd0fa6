// Repeated lookups in one book without a transaction per call: the prober's
// hot path (`graphbook probe`, `tree`, the benchmark). One read snapshot
// (store::BookSnapshot: a transaction per part of a sharded book) and two
// cursors per part (positions, learning counters) are kept open; refresh()
// drops the snapshot and takes a new one (call it between batches, so that a
// long-lived reader neither misses later writes nor keeps old pages alive).
//
// Not thread-safe: one BookReader per thread. The Book must outlive it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "book/store/book.h"
#include "book/store/book_snapshot.h"
#include "book/store/buckets.h"
#include "book/store/evaluation.h"

namespace gb::explore {

class BookReader {
 public:
  [[nodiscard]] static std::optional<BookReader> open(store::Book& book, store::Error* error);

  // The edges of the position with this key, in move order, into out (cleared
  // first; the caller keeps it to reuse its memory). Learning counters are
  // filled when with_learning. An empty out means the position has no moves.
  [[nodiscard]] store::Status edges(Key key, std::vector<store::BookEdge>& out, bool with_learning = true);
  // The node's record (totals of every game that reached the position).
  [[nodiscard]] std::optional<store::NodeRecord> node(Key key, store::Error* error = nullptr);
  // The learning counters of the node itself (move 0), zero when none.
  store::LearnRecord node_learning(Key key);
  // The engine evaluation (`graphbook analyse`) and the backed-up value
  // (`graphbook values`) of the position; nullopt when the book holds none
  // (a book made before them has neither database).
  [[nodiscard]] std::optional<store::Evaluation> evaluation(Key key);
  [[nodiscard]] std::optional<store::BackedUpValue> value(Key key);

  // The book's bucket settings, nullopt when it has no buckets
  // (book/store/buckets.h); the buckets of the position with this key (out
  // cleared first, empty when none): an error when the book has none or
  // its value is damaged.
  const std::optional<store::BucketParams>& bucket_params() const { return bucket_params_; }
  [[nodiscard]] store::Status buckets(Key key, std::vector<store::BucketEntry>& out);

  [[nodiscard]] store::Status refresh();

 private:
  // Per part of the book: its cursors and the handles of its optional databases.
  struct Part {
    std::optional<store::SectionFinder> sections;  // of the positions; closed and reopened by refresh()
    std::optional<store::Cursor> learn_cursor;     // over the learning counters, likewise
    std::optional<MDB_dbi> evals, values, buckets;
  };
  BookReader(store::Book& book, store::BookSnapshot snapshot)
      : book_(&book), snapshot_(std::move(snapshot)) {}
  // Opens the cursors of every part in the current snapshot.
  [[nodiscard]] store::Status open_cursors();
  // The section of key in this snapshot (valid until the next call or
  // refresh()); nullopt when absent (or on an error, reported through error).
  std::optional<std::string_view> section(Key key, store::Error* error);
  // Fills the learning of out's edges from one range of the learn database
  // (its keys are the position key then the move).
  [[nodiscard]] store::Status attach_learning(Key key, std::vector<store::BookEdge>& out);
  // What this snapshot holds besides the positions: learning_, whether the
  // learn database is not empty, and the handles of the evals and values
  // databases where the book has them (looked up once per snapshot: a handle
  // first opened in a read transaction is closed when refresh() resets it).
  void note_snapshot();
  store::Book* book_;
  bool learning_ = true;
  std::optional<store::BucketParams> bucket_params_;
  store::BookSnapshot snapshot_;
  std::vector<Part> parts_;
};

}  // namespace gb::explore
