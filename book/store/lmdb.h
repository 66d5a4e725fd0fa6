// LMDB behind move-only RAII types: the one place in graphbook that calls
// the C API. Env owns an environment, ReadTxn/WriteTxn a transaction (a write
// transaction that was not committed aborts in its destructor), Cursor a cursor.
// Every fallible call returns an Error value naming the LMDB code; "not found"
// is not an error: get() returns an empty optional.
//
// Lifetimes follow LMDB: a std::string_view returned by get() or a cursor
// points into the map and is valid until the next update in the same
// transaction or the end of the transaction.
#pragma once

#include <lmdb.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gb::store {

struct Error {
  int code = 0;                 // an LMDB or errno code; 0 means success
  std::string context;          // what we were doing ("open database positions")
  std::string message() const;  // "open database positions: MDB_MAP_FULL: ..."
  bool map_full() const { return code == MDB_MAP_FULL; }
};

// Either success (no Error) or an Error: `if (auto e = call()) return *e;`.
using Status = std::optional<Error>;

inline MDB_val to_val(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }
inline std::string_view to_view(const MDB_val& v) { return {static_cast<const char*>(v.mv_data), v.mv_size}; }

class Env {
 public:
  Env() = default;
  Env(Env&& o) noexcept : env_(o.env_) { o.env_ = nullptr; }
  Env& operator=(Env&& o) noexcept;
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;
  ~Env();

  // Opens (creates when create is true) the single-file environment at path
  // (MDB_NOSUBDIR; LMDB adds "path-lock"). map_size is the initial map size
  // in bytes; max_dbs the number of named databases. A read-only open whose
  // lock file cannot be created or written (a folder the user cannot write
  // to) opens without it (MDB_NOLOCK): without_lock() then says so.
  [[nodiscard]] static std::optional<Env> open(const std::string& path, bool read_only, std::size_t map_size,
                                               unsigned max_dbs, Error* error);

  MDB_env* get() const { return env_; }
  // True when opened without the lock file: writers do not see this reader.
  bool without_lock() const;
  std::size_t map_size() const;
  // Grows the map; no transaction of this process may be open.
  [[nodiscard]] Status set_map_size(std::size_t bytes);
  // Adopts a size another process set (after MDB_MAP_RESIZED).
  [[nodiscard]] Status adopt_map_size();
  // MDB_NOSYNC on or off: commits without an fsync (a file that is synced by
  // sync() before anything relies on it).
  [[nodiscard]] Status set_no_sync(bool on);
  // Flushes the data file to disk (mdb_env_sync with force).
  [[nodiscard]] Status sync();
  // The data file's descriptor, -1 when it has none.
  int fd() const;
  // Unmaps from this process the pages of the map it has read (they stay in
  // the page cache; the next read maps them again). LMDB reads every page
  // through its read-only shared map, so a writer that appends a large file
  // in many transactions would otherwise keep each page it once read
  // resident and counted in its RSS. No write transaction may be open.
  void release_mapped_pages() const;
  // Starts writing the data file's dirty pages to disk without waiting
  // (sync_file_range), so that a later sync() has only the rest to wait for.
  void start_writeback() const;

 private:
  MDB_env* env_ = nullptr;
};

class Txn {
 public:
  Txn(Txn&& o) noexcept : txn_(o.txn_) { o.txn_ = nullptr; }
  Txn& operator=(Txn&&) = delete;
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;

  MDB_txn* get() const { return txn_; }
  // The value stored under key, or nullopt when absent. The view is valid
  // until the next update in this transaction or its end.
  [[nodiscard]] std::optional<std::string_view> get(MDB_dbi dbi, std::string_view key,
                                                    Error* error = nullptr) const;
  // Opens a named database (create only in a write transaction).
  [[nodiscard]] std::optional<MDB_dbi> open_db(const char* name, unsigned flags, Error* error) const;
  [[nodiscard]] Status stat(MDB_dbi dbi, MDB_stat& out) const;
  // The names of the environment's named databases (the keys of its main
  // database); nullopt on an error, never a partial list.
  [[nodiscard]] std::optional<std::vector<std::string>> database_names(Error* error) const;

 protected:
  explicit Txn(MDB_txn* txn) : txn_(txn) {}
  ~Txn() = default;
  MDB_txn* txn_ = nullptr;
};

class ReadTxn : public Txn {
 public:
  ReadTxn(ReadTxn&&) noexcept = default;
  ~ReadTxn();
  // Begins a read transaction; adopts a map size grown by another process.
  [[nodiscard]] static std::optional<ReadTxn> begin(Env& env, Error* error);
  // Releases the snapshot but keeps the reader slot (mdb_txn_reset), and
  // takes a fresh snapshot (mdb_txn_renew).
  void reset();
  [[nodiscard]] Status renew();
  // Ends the transaction keeping the database handles it opened (LMDB closes
  // handles opened in a transaction that is aborted).
  [[nodiscard]] Status commit();

 private:
  explicit ReadTxn(MDB_txn* t) : Txn(t) {}
};

// Whether txn's id, which LMDB takes from the lock file beside the
// environment, agrees with the file's newest meta page; an Error (ESTALE,
// naming the file) when not. The lock file of another file (a file renamed
// over this path while a program held the old one open) does not agree: a
// transaction under its id writes a commit that later readers pass over, or
// reads an older state of the file. A writer's id is one past the last
// commit; a reader's the last commit, or the one before while a commit is
// between its meta page and the lock file. (A reader that began before two
// more commits is told no as well: Book::open asks again.)
[[nodiscard]] Status check_lock_file(MDB_env* env, MDB_txn* txn, bool writer);

class WriteTxn : public Txn {
 public:
  WriteTxn(WriteTxn&&) noexcept = default;
  ~WriteTxn();  // aborts unless committed
  [[nodiscard]] static std::optional<WriteTxn> begin(Env& env, Error* error);

  // flags: MDB_APPEND, MDB_NOOVERWRITE, ... MDB_MAP_FULL comes back as an
  // Error with map_full() true; the transaction is then dead: abort and redo.
  [[nodiscard]] Status put(MDB_dbi dbi, std::string_view key, std::string_view value, unsigned flags = 0);
  // Deleting an absent key is not an error.
  [[nodiscard]] Status del(MDB_dbi dbi, std::string_view key);
  // Deletes one value of a key of a database of sorted duplicates.
  [[nodiscard]] Status del(MDB_dbi dbi, std::string_view key, std::string_view value);
  [[nodiscard]] Status drop(MDB_dbi dbi);  // empties the database
  [[nodiscard]] Status commit();
  void abort();

 private:
  explicit WriteTxn(MDB_txn* t) : Txn(t) {}
};

// A cursor over one database; valid while its transaction lives. One opened in
// a write transaction must be destroyed before the commit or abort: LMDB frees
// such cursors when the transaction ends, and closing one after is a double free.
class Cursor {
 public:
  Cursor(Cursor&& o) noexcept : cursor_(o.cursor_) { o.cursor_ = nullptr; }
  Cursor& operator=(Cursor&&) = delete;
  Cursor(const Cursor&) = delete;
  ~Cursor();
  [[nodiscard]] static std::optional<Cursor> open(const Txn& txn, MDB_dbi dbi, Error* error);

  struct Item {
    std::string_view key;
    std::string_view value;
  };
  // Positioning: nullopt at the end (or on an error, reported through error).
  [[nodiscard]] std::optional<Item> first(Error* error = nullptr);
  [[nodiscard]] std::optional<Item> next(Error* error = nullptr);
  [[nodiscard]] std::optional<Item> prev(Error* error = nullptr);
  [[nodiscard]] std::optional<Item> last(Error* error = nullptr);
  // The first item whose key is >= key.
  [[nodiscard]] std::optional<Item> seek(std::string_view key, Error* error = nullptr);
  [[nodiscard]] Status put(std::string_view key, std::string_view value, unsigned flags);

 private:
  explicit Cursor(MDB_cursor* c) : cursor_(c) {}
  std::optional<Item> op(MDB_val* key, MDB_cursor_op op, Error* error);
  MDB_cursor* cursor_ = nullptr;
};

}  // namespace gb::store
