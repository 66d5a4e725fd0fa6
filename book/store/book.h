// A graphbook book: one LMDB file holding the position graph (docs/FORMAT.md),
// or a sharded book (`build --mpi`): a directory of one such file per key
// range, read as one book (book/store/shard_manifest.h).
//
//   auto book = Book::open("games.book", OpenMode::ReadOnly, &error);
//   for (const BookEdge& e : book->find_all(pos.key())) ...
//
// Reads open a short read transaction per call, so a Book may be shared by
// threads for reading (BookSnapshot, book_snapshot.h, keeps one open); writes go through write(), which owns
// the map-growth rule: on MDB_MAP_FULL the transaction is aborted, the map doubled and the whole batch run
// again, so a batch must be safe to repeat.
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

enum class OpenMode {
  ReadOnly,
  ReadWrite,
  Create,  // ReadWrite, creating the file when absent
  // Create, a file whose commits are not synced (MDB_NOSYNC) and that is made
  // at path itself: a scratch book that its writer syncs (Env::sync) and then
  // renames into place, and that a crash before then leaves as an orphan to
  // remove (builder/new_book_file.h). Its first commit then costs no wait for
  // the disk (the sync of a new file's first blocks, some milliseconds).
  CreateUnsynced,
};

struct BookError {
  // Damaged: the cheap checks every open makes (store/page_check.h) failed.
  enum class Code { NotFound, NotABook, WrongVersion, Damaged, Storage };
  Code code;
  std::string message;  // names the file
  // Storage: the lock file beside the book is the one of a file renamed over
  // it, which a program still has open (store/lmdb.h, check_lock_file).
  bool stale_lock = false;
};

// Totals kept in the meta database, updated by each build in its transaction.
struct BookStats {
  std::uint64_t games = 0;       // games whose moves are in the counters
  std::uint64_t duplicates = 0;  // games skipped because their fingerprint was known
  std::uint64_t skipped = 0;     // bad games skipped
  std::uint64_t collisions = 0;  // Polyglot key collisions detected (positions not merged)
  std::uint64_t builds = 0;
  std::uint64_t imported_entries = 0;  // Polyglot entries added by import

  // Adds another part's totals (the shards of a sharded book).
  void add(const BookStats& o) {
    games += o.games;
    duplicates += o.duplicates;
    skipped += o.skipped;
    collisions += o.collisions;
    builds += o.builds;
    imported_entries += o.imported_entries;
  }
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

// One LMDB file of a book: the whole of a book file, or one key range of a
// sharded book.
struct BookPart {
  Env env;
  Databases dbs{};
  std::string path;
  Key first_key = 0, last_key = ~Key(0);  // the keys it holds, inclusive
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
  // is not yet a book (CreateUnsynced makes it at path, for a file no reader
  // looks for). A directory is a sharded book: its manifest is read and
  // each shard opened; it opens read-only (a write is refused, naming merge).
  [[nodiscard]] static std::optional<Book> open(const std::string& path, OpenMode mode, BookError* error,
                                                std::size_t initial_map_size = kDefaultMapSize);

  // The node stored under key, nullopt when absent.
  [[nodiscard]] std::optional<NodeRecord> node(Key key, Error* error = nullptr);
  // Every edge of the position with this key, in move order (one section).
  [[nodiscard]] std::vector<BookEdge> find_all(Key key, Error* error = nullptr);
  // The learning counters of an edge (move) or of the node (Move()).
  [[nodiscard]] std::optional<LearnRecord> learning(Key key, Move move, Error* error = nullptr);

  // The book's totals: of a sharded book, its shards' stats summed (the
  // global shard holds the build's games; each shard its own collisions).
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
  // The stats record of the part txn reads (a book file's own: write()'s batches).
  [[nodiscard]] BookStats stats(const Txn& txn, Error* error = nullptr);

  // True when no database but meta holds a record: the book holds nothing
  // that a build writing a new file in its place could lose (learning,
  // fingerprints, sources, stored games, pending games). nullopt on an error.
  [[nodiscard]] std::optional<bool> holds_only_meta(const Txn& txn, Error* error);
  // True while the file at path() is the one this Book has open (a build into
  // a fresh book renames a new file over it).
  [[nodiscard]] bool still_at_path() const;

  // The parts in key order: one for a book file, a shard each for a sharded
  // book. A reader of positions or learning goes to the part of the key
  // (part_of); meta, sources and stored games are the global part's.
  std::size_t part_count() const { return parts_.size(); }
  BookPart& part(std::size_t i) { return parts_[i]; }
  std::size_t part_of(Key key) const;
  bool sharded() const { return sharded_; }
  std::size_t global_part() const { return global_; }  // the part env() and dbs() are

  // The global part's environment and databases: the whole book for a book
  // file; a reader of a sharded book's positions must go through its parts.
  Env& env() { return parts_[global_].env; }
  const Databases& dbs() const { return parts_[global_].dbs; }
  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }

 private:
  [[nodiscard]] static bool create_beside(const std::string& path, BookError* error,
                                          std::size_t initial_map_size);
  [[nodiscard]] static std::optional<Book> open_checked(const std::string& path, OpenMode mode,
                                                        BookError* error, std::size_t initial_map_size);
  [[nodiscard]] static std::optional<Book> open_sharded(const std::string& dir, OpenMode mode,
                                                        BookError* error);
  Book(Env env, Databases dbs, std::string path, bool read_only) : path_(path), read_only_(read_only) {
    parts_.push_back(BookPart{std::move(env), dbs, std::move(path)});
  }
  Book(std::vector<BookPart> parts, std::size_t global, std::string dir);
  std::vector<BookPart> parts_;  // never empty
  std::size_t global_ = 0;       // the part holding meta, sources and stored games
  std::string path_;
  bool read_only_ = false;
  bool sharded_ = false;
  // A sharded book: the manifest's file when opened (still_at_path).
  std::uint64_t manifest_dev_ = 0, manifest_ino_ = 0;
};

}  // namespace gb::store
