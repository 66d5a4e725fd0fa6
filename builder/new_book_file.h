// A book written from scratch beside the file it replaces, then renamed over
// it: the commit of a build into a new book (book_writer.h) and of an
// upgrade (book_upgrade.h). A process killed meanwhile leaves the file as it
// was, and its new file behind, named BOOK.building-PID: the next build or
// upgrade of that book removes it (remove_new_book_orphans), and the
// BOOK.creating-PID a process killed while it made a new book left
// (store::Book::open) or while it built into a placeholder (open_placeholder).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "book/store/book.h"
#include "book/store/fingerprint_blocks.h"
#include "book/store/section_groups.h"

namespace gb::builder {

// Records (keys and values) back to back: a batch ChunkedAppender puts in one go.
struct EncodedRecords {
  std::string bytes;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sizes;  // of each record's key and value
  std::size_t size() const { return sizes.size(); }
  void add(std::string_view key, std::string_view value) {
    bytes.append(key);
    bytes.append(value);
    sizes.emplace_back(std::uint32_t(key.size()), std::uint32_t(value.size()));
  }
  void clear() {  // keeping the capacity
    bytes.clear();
    sizes.clear();
  }
};

// Appends records in key order to the databases of a book written from
// scratch (each database in its own key order, the databases in any order),
// put kBatchRecords (or kBatchBytes) at a time (of one database), in write
// transactions of about kChunkBytes of keys and values, so that LMDB
// never holds more dirty pages than that (it keeps a transaction's pages in
// memory until the commit). The chunks of the open transaction are kept until
// it commits: on MDB_MAP_FULL the map is doubled and they are written again.
class ChunkedAppender {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t(1) << 20;
  // Each transaction reads the last pages of the trees it appends to through
  // LMDB's map, and the kernel maps their neighbours too: without a release
  // now and then, a full-depth build of tcec kept 40 MB of the new book
  // resident (half its peak).
  static constexpr std::size_t kReleaseBytes = 8 * kChunkBytes;
  static constexpr std::size_t kBatchRecords = 1024;
  // A batch is put at this many bytes of keys and values too. The groups of
  // sections a build appends take some 1 KB each, and 1,024 of them (a batch
  // above malloc's mapping threshold) were a new mapping grown by doubling,
  // its pages faulted on the writer, the critical path of the commit:
  // batches of 128 KB come from malloc's heap and are reused there.
  static constexpr std::size_t kBatchBytes = std::size_t(128) << 10;

  explicit ChunkedAppender(store::Book& book) : book_(book) {}
  ~ChunkedAppender() { cursors_.clear(); }  // before the transaction aborts
  ChunkedAppender(const ChunkedAppender&) = delete;
  ChunkedAppender& operator=(const ChunkedAppender&) = delete;

  // Appends a record (in the key order of dbi, after all it holds) to dbi;
  // the transaction commits once it holds kChunkBytes. Errors: LMDB's (the
  // map grows by itself). put_flags: MDB_APPEND, or 0 for a database of
  // sorted duplicates (records in order, put one by one).
  [[nodiscard]] store::Status add(MDB_dbi dbi, std::string_view key, std::string_view value,
                                  unsigned put_flags = MDB_APPEND) {
    Pending& batch = batch_for(dbi, put_flags);
    batch.records.add(key, value);
    const bool full = batch.records.size() == kBatchRecords || batch.records.bytes.size() >= kBatchBytes;
    return full ? flush(batch) : std::nullopt;
  }
  // Sections appended to a database of sections (dbi: positions, pruned)
  // a group at a time (store/section_groups.h); the groups' finish() comes
  // before this appender's.
  store::GroupAppender groups(MDB_dbi dbi) {
    return store::GroupAppender(
        [this, dbi](std::string_view k, std::string_view v) { return add(dbi, k, v); });
  }
  // The same for game fingerprints in order, in blocks (fingerprint_blocks.h).
  store::FingerprintAppender fingerprints(MDB_dbi dbi) {
    return store::FingerprintAppender(
        [this, dbi](std::string_view k, std::string_view v) { return add(dbi, k, v); });
  }
  // Puts and commits the records not yet committed.
  [[nodiscard]] store::Status finish();

 private:
  struct Pending {
    MDB_dbi dbi = 0;
    EncodedRecords records;
    unsigned flags = 0;
  };
  // The batch of one database (each its own: records of two databases added
  // in turn are still put a batch at a time).
  Pending& batch_for(MDB_dbi dbi, unsigned flags) {
    for (Pending& b : batches_)
      if (b.dbi == dbi && b.flags == flags) return b;
    return batches_.emplace_back(Pending{dbi, {}, flags});
  }
  // Puts the records added to batch since it was last put.
  store::Status flush(Pending& batch);
  store::Status begin();
  // The transaction's cursor on dbi (one per database: no set-up per put).
  store::Cursor* cursor(MDB_dbi dbi, store::Status& status);
  store::Status put(const Pending& p);
  store::Status commit();
  // Aborts the transaction, doubles the map and writes the pending records again.
  store::Status redo();

  store::Book& book_;
  std::optional<store::WriteTxn> txn_;
  std::vector<std::pair<MDB_dbi, store::Cursor>> cursors_;  // of txn_
  std::vector<Pending> batches_;                            // added, not yet put: one per database
  std::vector<Pending> pending_;                            // put since the last commit
  // The records of batches committed, emptied, for the next batches of their
  // database: each batch was a new allocation grown by doubling (copies and
  // page faults on the writer, the commit's critical path), freed at the
  // next commit. There are never more than one transaction's batches, as
  // before. By database: a build's batches of sections take some 1 MB, its
  // batches of fingerprints some 20 KB, and a pool of both handed the small
  // ones to sections, which grew them again by doubling at every batch.
  std::vector<Pending> spare_;
  std::size_t pending_bytes_ = 0;
  std::size_t committed_bytes_ = 0;  // since the last release_mapped_pages() and start_writeback()
};

// How replace_book_file puts the new book at its path.
enum class Placing {
  Rename,  // over the file there: a book opened at the path at the start
  Link,    // where no file was: fails (EEXIST) if one has come meanwhile (open_placeholder)
};

// Writes a new book with write(new book), in a file beside the book at path
// (a symbolic link is followed: the file is replaced, not the link), synced,
// and renamed over it (or linked at the path): that is the commit. The new
// book starts with a map of map_size bytes and without fsync per
// transaction, its first too (store::OpenMode::CreateUnsynced): synced once
// at the end. On any failure the new file is removed and the book is as it
// was.
[[nodiscard]] store::Status replace_book_file(const std::string& path, std::size_t map_size,
                                              const std::function<store::Status(store::Book&)>& write,
                                              Placing placing = Placing::Rename);

// Where nothing is at a book's path, a build opens this instead: a new
// empty book beside the path (BOOK.creating-PID), unsynced, which it reads as
// the book it builds into and never keeps. Its commit writes the new book as
// any (replace_book_file) and links it at the path (Placing::Link): nothing
// is at the path until the book is whole. A new book made at its path at the
// start waited for the disk's sync of its first commit, some milliseconds of
// a small build in which no core had work (docs/SCALE.md). nullopt, with
// error, when it cannot be made.
[[nodiscard]] std::optional<store::Book> open_placeholder(const std::string& path,
                                                          std::size_t initial_map_size,
                                                          store::BookError* error);
// Removes the placeholder of this process (and its lock file).
void remove_placeholder(const std::string& path);

// Removes the new files that killed builds or upgrades of the book at path left.
void remove_new_book_orphans(const std::string& path);
// Removes the new file (and its lock) of this process's build or upgrade of
// the book at path, and its placeholder (interrupt_cleanup.h).
void remove_own_new_book(const std::string& path);

}  // namespace gb::builder
