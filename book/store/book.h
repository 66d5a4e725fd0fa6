// A graphbook book: one LMDB file holding the position graph (docs/FORMAT.md).
//
//   auto book = Book::open("games.book", OpenMode::ReadOnly, &error);
//   for (const BookEdge& e : book->find_all(pos.key())) ...
//
// Reads open a short read transaction per call, so a Book may be shared by
// threads for reading; writes go through write(), which owns the map-growth
// rule: on MDB_MAP_FULL the transaction is aborted, the map doubled and the
// whole batch run again, so a batch must be safe to repeat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "book/chess/position.h"
#include "book/store/lmdb.h"
#include "book/store/records.h"

namespace gb::store {

enum class OpenMode { ReadOnly, ReadWrite, Create /* ReadWrite, creating the file when absent */ };

struct BookError {
  // Damaged: the cheap checks every open makes (store/page_check.h) failed.
  enum class Code { NotFound, NotABook, WrongVersion, Damaged, Storage };
  Code code;
  std::string message;  // names the file
};

// Totals kept in the meta database, updated by each build in its transaction.
struct BookStats {
  std::uint64_t games = 0;       // games whose moves are in the counters
  std::uint64_t duplicates = 0;  // games skipped because their fingerprint was known
  std::uint64_t skipped = 0;     // bad games skipped
  std::uint64_t collisions = 0;  // Polyglot key collisions detected (positions not merged)
  std::uint64_t builds = 0;
  std::uint64_t imported_entries = 0;  // Polyglot entries added by import
};

// One recorded input of a build or import. Records are numbered from 1 in
// the order they were added, and keep their number for good: a retracted
// input keeps its record (retracted_at), so that the numbers the buckets and
// the stored games use never change.
struct SourceInfo {
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t content_hash = 0;  // XXH3-64 of the file's bytes
  std::uint64_t games_added = 0;
  std::int64_t added_at = 0;  // Unix seconds
  std::string params;         // the build parameters, JSON text
  // build --source NAME: the source the input belongs to, which several
  // inputs may share; empty: the input is a source of its own, named by name.
  std::string label;
  // The number of the source in the bucket ids (buckets.h): the record's own
  // number, or that of the first record of its label. 0: the record's own
  // (a book before labels).
  std::uint32_t bucket_source = 0;
  int first_date = 0, last_date = 0;  // yyyymmdd of the counted games' dates; 0: none dated (or not recorded)
  std::uint64_t duplicates = 0;       // games of the input skipped as duplicates
  std::int64_t retracted_at = 0;      // Unix seconds of `graphbook retract`; 0: in the book

  // The name `retract` and `info` know the source by.
  const std::string& source_name() const { return label.empty() ? name : label; }
};

// A move of a position as a prober sees it.
struct BookEdge {
  Move move;                    // gb::Move; castling as king takes own rook
  std::uint16_t polyglot_move;  // the same move in Polyglot's encoding
  EdgeRecord record;            // child key, source counters, Polyglot counts, flags
  LearnRecord learning;         // zero when never learned
};

// The meta records that make a file a graphbook book of a format version.
inline constexpr std::string_view kFormatKey = "format", kFormatName = "graphbook", kVersionKey = "version";
// The format version the meta database names (0 when it names none);
// nullopt when it does not say graphbook.
[[nodiscard]] std::optional<std::uint32_t> format_version(const Txn& txn, MDB_dbi meta);

// Appends the edges of a section (a value of the positions database) to out,
// in move order, without learning.
void append_edges(std::string_view section, std::vector<BookEdge>& out);

// The named databases of a book.
struct Databases {
  MDB_dbi meta, positions, learn, games, sources, collisions;
};

class Book {
 public:
  static constexpr std::size_t kDefaultMapSize = std::size_t(1) << 30;
  // A new book is made as BOOK.creating-PID beside its path, then linked into place.
  static constexpr std::string_view kCreatingSuffix = ".creating-";

  // Opens a book after the cheap checks of its file (store/page_check.h): an
  // empty file (read-only), a file that is not LMDB, or one whose meta pages,
  // size or main database are damaged is refused before LMDB maps it, with a
  // message naming the file. A read-only book in a folder the user cannot
  // write to opens without LMDB's lock file (Env::without_lock). A failed
  // open removes the lock file it made. OpenMode::Create makes a new book
  // beside path and links it into place, so the path never names a file that
  // is not yet a book.
  [[nodiscard]] static std::optional<Book> open(const std::string& path, OpenMode mode, BookError* error,
                                                std::size_t initial_map_size = kDefaultMapSize);

  // The node stored under key, nullopt when absent.
  [[nodiscard]] std::optional<NodeRecord> node(Key key, Error* error = nullptr);
  // Every edge of the position with this key, in move order (one section).
  [[nodiscard]] std::vector<BookEdge> find_all(Key key, Error* error = nullptr);
  // The learning counters of an edge (move) or of the node (Move()).
  [[nodiscard]] std::optional<LearnRecord> learning(Key key, Move move, Error* error = nullptr);

  [[nodiscard]] BookStats stats(Error* error = nullptr);
  [[nodiscard]] std::vector<SourceInfo> sources(Error* error = nullptr);
  [[nodiscard]] std::string build_params(Error* error = nullptr);  // JSON text of the last build

  // Runs batch in one write transaction and commits it; on MDB_MAP_FULL aborts,
  // doubles the map and runs batch again. No other transaction of this
  // process may be open meanwhile.
  [[nodiscard]] Status write(const std::function<Status(WriteTxn&)>& batch);
  [[nodiscard]] Status update_learning(Key key, Move move, const LearnRecord& record);

  // Helpers for batches (inside write()).
  [[nodiscard]] Status put_stats(WriteTxn& txn, const BookStats& stats);
  [[nodiscard]] Status add_source(WriteTxn& txn, const SourceInfo& source);
  // Rewrites the record of the source numbered number (from 1, the order of sources()).
  [[nodiscard]] Status put_source(WriteTxn& txn, std::uint32_t number, const SourceInfo& source);
  [[nodiscard]] Status put_build_params(WriteTxn& txn, const std::string& json);
  [[nodiscard]] BookStats stats(const Txn& txn, Error* error = nullptr);

  // True when no database but meta holds a record: the book holds nothing
  // that a build writing a new file in its place could lose (learning,
  // fingerprints, sources, stored games, pending games). nullopt on an error.
  [[nodiscard]] std::optional<bool> holds_only_meta(const Txn& txn, Error* error);
  // True while the file at path() is the one this Book has open (a build into
  // a fresh book renames a new file over it).
  [[nodiscard]] bool still_at_path() const;

  Env& env() { return env_; }
  const Databases& dbs() const { return dbs_; }
  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }

 private:
  [[nodiscard]] static bool create_beside(const std::string& path, BookError* error,
                                          std::size_t initial_map_size);
  [[nodiscard]] static std::optional<Book> open_checked(const std::string& path, OpenMode mode,
                                                        BookError* error, std::size_t initial_map_size);
  Book(Env env, Databases dbs, std::string path, bool read_only)
      : env_(std::move(env)), dbs_(dbs), path_(std::move(path)), read_only_(read_only) {}
  Env env_;
  Databases dbs_{};
  std::string path_;
  bool read_only_ = false;
};

}  // namespace gb::store
