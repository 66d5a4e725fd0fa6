#include "book/store/lmdb.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "book/store/fault_guard.h"

namespace gb::store {

namespace {

Error make_error(int code, std::string context) { return Error{code, std::move(context)}; }

void set(Error* out, int code, const char* context) {
  if (out) *out = make_error(code, context);
}

// What the data file of env tells of a commit's failed write: LMDB reports a
// write that came up short as EIO and the reason (the process's file size
// limit, a full file system) is lost with it. " (...)", or "" when the file
// tells nothing.
std::string short_write_reason(MDB_env* env) {
  mdb_filehandle_t fd = -1;
  struct stat st;
  if (mdb_env_get_fd(env, &fd) != 0 || fd < 0 || ::fstat(fd, &st) != 0) return {};
  struct rlimit limit;
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      std::uint64_t(st.st_size) >= std::uint64_t(limit.rlim_cur))
    return " (a write came up short: the book's file reached this process's file size limit, " +
           std::to_string(limit.rlim_cur) + " bytes)";
  struct statvfs fs;
  if (::fstatvfs(fd, &fs) != 0) return {};
  return " (a write came up short; the file system holding the book has " +
         std::to_string(std::uint64_t(fs.f_bavail) * fs.f_frsize) + " bytes free)";
}

// Where the map of env's data file starts and its size; {nullptr, 0} when
// not found. LMDB keeps the address to itself (MDB_envinfo has it only for
// MDB_FIXEDMAP): find the mapping of the file in /proc/self/maps.
std::pair<const void*, std::size_t> find_map(MDB_env* env) {
  mdb_filehandle_t fd = -1;
  struct stat st;
  if (mdb_env_get_fd(env, &fd) != 0 || fd < 0 || ::fstat(fd, &st) != 0) return {nullptr, 0};
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return {nullptr, 0};
  std::pair<const void*, std::size_t> found{nullptr, 0};
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long start, end, inode;
    unsigned major, minor;
    if (std::sscanf(line, "%lx-%lx %*s %*x %x:%x %lu", &start, &end, &major, &minor, &inode) == 5 &&
        inode == st.st_ino && makedev(major, minor) == st.st_dev)
      found = {reinterpret_cast<const void*>(start), end - start};
  }
  std::fclose(maps);
  return found;
}

// Watches the map of env for faults (store/fault_guard.h); again after it moves.
void guard(MDB_env* env, const void* old_map = nullptr) {
  const char* path = nullptr;
  if (old_map) unguard_map(old_map);
  auto [map, size] = find_map(env);
  if (map && mdb_env_get_path(env, &path) == 0) guard_map(map, size, path ? path : "the book");
}

// LMDB asserts what it assumes of its pages (Debian builds it with its
// assertions) and aborts when one fails: on a page damaged past what the
// cheap checks see, the reader ends as a fault in the map does.
void on_assert(MDB_env* env, const char* what) {
  const char* path = nullptr;
  if (mdb_env_get_path(env, &path) != 0 || !path) path = "the book";
  exit_damaged(path, what);
}

void close(MDB_env* env) {
  unguard_map(find_map(env).first);
  mdb_env_close(env);
}

}  // namespace

std::string Error::message() const {
  // LMDB's names for a page it found damaged while reading.
  const bool damaged = code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND;
  return context + ": " + mdb_strerror(code) +
         (damaged ? " (a damaged book: graphbook check names the damage)" : "");
}

Env& Env::operator=(Env&& o) noexcept {
  if (this != &o) {
    if (env_) close(env_);
    env_ = o.env_;
    o.env_ = nullptr;
  }
  return *this;
}

Env::~Env() {
  if (env_) close(env_);
}

std::optional<Env> Env::open(const std::string& path, bool read_only, std::size_t map_size, unsigned max_dbs,
                             Error* error) {
  Env env;
  int rc = mdb_env_create(&env.env_);
  if (rc) return set(error, rc, "create LMDB environment"), std::nullopt;
  if ((rc = mdb_env_set_maxdbs(env.env_, max_dbs)) || (rc = mdb_env_set_maxreaders(env.env_, 254)))
    return set(error, rc, "configure LMDB environment"), std::nullopt;
  if (!read_only && (rc = mdb_env_set_mapsize(env.env_, map_size)))
    return set(error, rc, "set LMDB map size"), std::nullopt;
  unsigned flags = MDB_NOSUBDIR | MDB_NOTLS | (read_only ? MDB_RDONLY : 0u);
  rc = mdb_env_open(env.env_, path.c_str(), flags, 0644);
  if (read_only && (rc == EACCES || rc == EROFS || rc == EPERM)) {
    // The lock file cannot be made or opened for writing (a folder or file
    // system the user cannot write to): read without it. A reader without
    // the lock is not seen by writers, so a concurrent writer may reuse the
    // pages it reads (docs/FORMAT.md, "Read-only books").
    mdb_env_close(env.env_);
    env.env_ = nullptr;
    if ((rc = mdb_env_create(&env.env_))) return set(error, rc, "create LMDB environment"), std::nullopt;
    if ((rc = mdb_env_set_maxdbs(env.env_, max_dbs)))
      return set(error, rc, "configure LMDB environment"), std::nullopt;
    rc = mdb_env_open(env.env_, path.c_str(), flags | MDB_NOLOCK, 0644);
  }
  if (rc) return set(error, rc, ("open " + path).c_str()), std::nullopt;
  guard(env.env_);
  (void)mdb_env_set_assert(env.env_, on_assert);
  return env;
}

bool Env::without_lock() const {
  unsigned flags = 0;
  return env_ && mdb_env_get_flags(env_, &flags) == 0 && (flags & MDB_NOLOCK);
}

std::size_t Env::map_size() const {
  MDB_envinfo info;
  mdb_env_info(env_, &info);
  return info.me_mapsize;
}

Status Env::set_map_size(std::size_t bytes) {
  const void* before = find_map(env_).first;
  int rc = mdb_env_set_mapsize(env_, bytes);
  guard(env_, before);  // the map may have moved
  if (rc) return make_error(rc, "grow LMDB map");
  return std::nullopt;
}

Status Env::adopt_map_size() { return set_map_size(0); }

Status Env::set_no_sync(bool on) {
  if (int rc = mdb_env_set_flags(env_, MDB_NOSYNC, on ? 1 : 0)) return make_error(rc, "set MDB_NOSYNC");
  return std::nullopt;
}

Status Env::sync() {
  if (int rc = mdb_env_sync(env_, 1)) return make_error(rc, "sync LMDB environment");
  return std::nullopt;
}

int Env::fd() const {
  mdb_filehandle_t fd = -1;
  return mdb_env_get_fd(env_, &fd) == 0 ? fd : -1;
}

void Env::start_writeback() const {
  if (int fd = this->fd(); fd >= 0)
    ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);  // a hint: sync() still waits
}

void Env::release_mapped_pages() const {
  if (auto [map, size] = find_map(env_); map)
    ::madvise(const_cast<void*>(map), size, MADV_DONTNEED);  // a hint: failure costs memory only
}

std::optional<std::string_view> Txn::get(MDB_dbi dbi, std::string_view key, Error* error) const {
  MDB_val k = to_val(key), v;
  int rc = mdb_get(txn_, dbi, &k, &v);
  if (rc == MDB_NOTFOUND) return std::nullopt;
  if (rc) return set(error, rc, "read"), std::nullopt;
  return to_view(v);
}

std::optional<MDB_dbi> Txn::open_db(const char* name, unsigned flags, Error* error) const {
  MDB_dbi dbi;
  int rc = mdb_dbi_open(txn_, name, flags, &dbi);
  if (rc) return set(error, rc, (std::string("open database ") + name).c_str()), std::nullopt;
  return dbi;
}

Status Txn::stat(MDB_dbi dbi, MDB_stat& out) const {
  if (int rc = mdb_stat(txn_, dbi, &out)) return make_error(rc, "database statistics");
  return std::nullopt;
}

std::optional<std::vector<std::string>> Txn::database_names(Error* error) const {
  MDB_dbi main_dbi;
  if (int rc = mdb_dbi_open(txn_, nullptr, 0, &main_dbi))
    return set(error, rc, "open main database"), std::nullopt;
  auto cursor = Cursor::open(*this, main_dbi, error);
  if (!cursor) return std::nullopt;
  std::vector<std::string> names;
  Error walk;  // an error ends the walk like the last name does: tell them apart
  for (auto item = cursor->first(&walk); item; item = cursor->next(&walk)) names.emplace_back(item->key);
  if (walk.code) {
    if (error) *error = walk;
    return std::nullopt;
  }
  return names;
}

ReadTxn::~ReadTxn() {
  if (txn_) mdb_txn_abort(txn_);
}

std::optional<ReadTxn> ReadTxn::begin(Env& env, Error* error) {
  MDB_txn* t = nullptr;
  int rc = mdb_txn_begin(env.get(), nullptr, MDB_RDONLY, &t);
  if (rc == MDB_MAP_RESIZED) {
    if (auto e = env.adopt_map_size()) return error ? (*error = *e, std::nullopt) : std::nullopt;
    rc = mdb_txn_begin(env.get(), nullptr, MDB_RDONLY, &t);
  }
  if (rc) return set(error, rc, "begin read transaction"), std::nullopt;
  return ReadTxn(t);
}

void ReadTxn::reset() { mdb_txn_reset(txn_); }

Status ReadTxn::commit() {
  int rc = mdb_txn_commit(txn_);
  txn_ = nullptr;
  if (rc) return make_error(rc, "end read transaction");
  return std::nullopt;
}

Status ReadTxn::renew() {
  if (int rc = mdb_txn_renew(txn_)) return make_error(rc, "renew read transaction");
  return std::nullopt;
}

Status check_lock_file(MDB_env* env, MDB_txn* txn, bool writer) {
  // mdb_env_info reads the newest meta page from the map, not the lock file.
  MDB_envinfo info;
  if (mdb_env_info(env, &info) != 0) return std::nullopt;
  const std::size_t id = mdb_txn_id(txn), last = info.me_last_txnid;
  if (writer ? id == last + 1 : id == last || id + 1 == last) return std::nullopt;
  const char* path = nullptr;
  if (mdb_env_get_path(env, &path) != 0 || !path) path = "the book";
  return make_error(ESTALE,
                    std::string(path) +
                        ": its lock file belongs to the file this one replaced, which a program still "
                        "has open" +
                        (writer ? "; nothing was written" : "") +
                        ": close the programs using the book and run again");
}

WriteTxn::~WriteTxn() { abort(); }

std::optional<WriteTxn> WriteTxn::begin(Env& env, Error* error) {
  MDB_txn* t = nullptr;
  int rc = mdb_txn_begin(env.get(), nullptr, 0, &t);
  if (rc == MDB_MAP_RESIZED) {
    if (auto e = env.adopt_map_size()) return error ? (*error = *e, std::nullopt) : std::nullopt;
    rc = mdb_txn_begin(env.get(), nullptr, 0, &t);
  }
  if (rc) return set(error, rc, "begin write transaction"), std::nullopt;
  // Under the lock file of another file this transaction would write a
  // commit that every later reader passes over, or find the book empty and
  // write it anew, both reported as done.
  if (auto stale = check_lock_file(env.get(), t, true)) {
    mdb_txn_abort(t);
    if (error) *error = std::move(*stale);
    return std::nullopt;
  }
  return WriteTxn(t);
}

Status WriteTxn::put(MDB_dbi dbi, std::string_view key, std::string_view value, unsigned flags) {
  MDB_val k = to_val(key), v = to_val(value);
  if (int rc = mdb_put(txn_, dbi, &k, &v, flags)) return make_error(rc, "write");
  return std::nullopt;
}

Status WriteTxn::del(MDB_dbi dbi, std::string_view key) {
  MDB_val k = to_val(key);
  int rc = mdb_del(txn_, dbi, &k, nullptr);
  if (rc && rc != MDB_NOTFOUND) return make_error(rc, "delete");
  return std::nullopt;
}

Status WriteTxn::del(MDB_dbi dbi, std::string_view key, std::string_view value) {
  MDB_val k = to_val(key), v = to_val(value);
  int rc = mdb_del(txn_, dbi, &k, &v);
  if (rc && rc != MDB_NOTFOUND) return make_error(rc, "delete");
  return std::nullopt;
}

Status WriteTxn::drop(MDB_dbi dbi) {
  if (int rc = mdb_drop(txn_, dbi, 0)) return make_error(rc, "empty database");
  return std::nullopt;
}

Status WriteTxn::commit() {
  MDB_env* env = mdb_txn_env(txn_);
  int rc = mdb_txn_commit(txn_);
  txn_ = nullptr;
  if (rc) return make_error(rc, rc == EIO ? "commit" + short_write_reason(env) : "commit");
  return std::nullopt;
}

void WriteTxn::abort() {
  if (txn_) mdb_txn_abort(txn_);
  txn_ = nullptr;
}

Cursor::~Cursor() {
  if (cursor_) mdb_cursor_close(cursor_);
}

std::optional<Cursor> Cursor::open(const Txn& txn, MDB_dbi dbi, Error* error) {
  MDB_cursor* c = nullptr;
  if (int rc = mdb_cursor_open(txn.get(), dbi, &c)) return set(error, rc, "open cursor"), std::nullopt;
  return Cursor(c);
}

std::optional<Cursor::Item> Cursor::op(MDB_val* key, MDB_cursor_op o, Error* error) {
  MDB_val k = key ? *key : MDB_val{0, nullptr}, v;
  int rc = mdb_cursor_get(cursor_, &k, &v, o);
  if (rc == MDB_NOTFOUND) return std::nullopt;
  if (rc) return set(error, rc, "cursor"), std::nullopt;
  return Item{to_view(k), to_view(v)};
}

std::optional<Cursor::Item> Cursor::first(Error* error) { return op(nullptr, MDB_FIRST, error); }
std::optional<Cursor::Item> Cursor::next(Error* error) { return op(nullptr, MDB_NEXT, error); }
std::optional<Cursor::Item> Cursor::prev(Error* error) { return op(nullptr, MDB_PREV, error); }
std::optional<Cursor::Item> Cursor::last(Error* error) { return op(nullptr, MDB_LAST, error); }
std::optional<Cursor::Item> Cursor::seek(std::string_view key, Error* error) {
  MDB_val k = to_val(key);
  return op(&k, MDB_SET_RANGE, error);
}

Status Cursor::put(std::string_view key, std::string_view value, unsigned flags) {
  MDB_val k = to_val(key), v = to_val(value);
  if (int rc = mdb_cursor_put(cursor_, &k, &v, flags)) return make_error(rc, "write");
  return std::nullopt;
}

}  // namespace gb::store
