#include "book/store/book.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "book/store/page_check.h"
#include "book/store/polyglot.h"
#include "book/store/section_groups.h"
#include "book/store/shard_manifest.h"

namespace gb::store {

namespace {

constexpr std::string_view kStatsKey = "stats";
constexpr std::string_view kParamsKey = "build_params";

BookError storage_error(const Error& e) { return {BookError::Code::Storage, e.message()}; }

template <class T>
std::optional<T> fail(BookError* out, BookError e) {
  if (out) *out = std::move(e);
  return std::nullopt;
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// Opens (creating them in a write transaction) the named databases.
std::optional<Databases> open_databases(const Txn& txn, unsigned create, Error* error) {
  Databases d;
  const std::pair<const char*, MDB_dbi*> names[] = {{"meta", &d.meta},       {"positions", &d.positions},
                                                    {"learn", &d.learn},     {"games", &d.games},
                                                    {"sources", &d.sources}, {"collisions", &d.collisions}};
  for (auto [name, dbi] : names) {
    auto h = txn.open_db(name, create, error);
    if (!h) return std::nullopt;
    *dbi = *h;
  }
  return d;
}

}  // namespace

void append_edges(std::string_view section, std::vector<BookEdge>& out) {
  SectionReader reader(section);
  std::uint16_t move;
  BookEdge e{};
  while (reader.next(move, e.record)) {
    e.move = Move(move);
    e.polyglot_move = to_polyglot_move(e.move);
    out.push_back(e);
  }
}

std::optional<std::uint32_t> format_version(const Txn& txn, MDB_dbi meta) {
  auto name = txn.get(meta, kFormatKey);
  if (!name || *name != kFormatName) return std::nullopt;
  std::uint32_t version = 0;
  auto v = txn.get(meta, kVersionKey);
  if (!v || !from_bytes(*v, version)) return 0;
  return version;
}

namespace {

// The refusal the cheap checks give a file that exists, nullopt when LMDB may open it.
std::optional<BookError> refuse_by_cheap_checks(const std::string& path, OpenMode mode) {
  using V = CheapCheck::Verdict;
  const CheapCheck cheap = check_file_cheaply(path);
  switch (cheap.verdict) {
    case V::Sound: return std::nullopt;
    case V::Absent: return BookError{BookError::Code::NotFound, path + ": no such book"};
    case V::Empty:  // a new book may be made in an empty file; there is nothing to read in one
      if (mode != OpenMode::ReadOnly) return std::nullopt;
      return BookError{BookError::Code::NotABook, path + ": not a graphbook book (an empty file, 0 bytes)"};
    case V::NotLmdb:
      return BookError{BookError::Code::NotABook,
                       path + ": not a graphbook book (not an LMDB file: " + cheap.detail + ")"};
    case V::Damaged:
      return BookError{BookError::Code::Damaged, path + ": damaged book: " + cheap.detail +
                                                     " (graphbook check " + path + " lists the damage)"};
    case V::Unreadable:
      return BookError{BookError::Code::Storage, path + ": cannot be read: " + cheap.detail};
  }
  return std::nullopt;
}

// How long an open waits for a stale lock file to go, and how often it looks.
constexpr auto kStaleLockWait = std::chrono::milliseconds(1000);
constexpr auto kStaleLockPoll = std::chrono::milliseconds(10);

}  // namespace

std::optional<Book> Book::open(const std::string& path, OpenMode mode, BookError* error,
                               std::size_t initial_map_size) {
  if (is_sharded_book(path)) return open_sharded(path, mode, error);
  // LMDB makes PATH-lock beside the file on open: a failed open removes the
  // one it made, so that a file that is not a book keeps nothing beside it.
  const std::string lock = path + "-lock";
  const bool had_lock = file_exists(lock);
  BookError failure;
  std::optional<Book> book;
  const bool there =
      mode != OpenMode::Create || file_exists(path) || create_beside(path, &failure, initial_map_size);
  if (there) book = open_checked(path, mode, &failure, initial_map_size);
  // A lock file left from the file a new book was just renamed over is
  // removed by the process that renamed it an instant later
  // (builder/new_book_file.h): the book opens again then (so does a reader
  // that commits passed by: check_lock_file). One that a program keeps open
  // stays, and the open fails.
  for (auto waited = std::chrono::milliseconds(0); !book && failure.stale_lock && waited < kStaleLockWait;
       waited += kStaleLockPoll) {
    std::this_thread::sleep_for(kStaleLockPoll);
    book = open_checked(path, mode, &failure, initial_map_size);
  }
  if (!book) {
    if (!had_lock && failure.code != BookError::Code::Storage && failure.code != BookError::Code::NotFound)
      ::unlink(lock.c_str());
    if (error) *error = std::move(failure);
  }
  return book;
}

// A new book is made whole beside its path, as BOOK.creating-PID, and linked
// into place: a process killed while LMDB lays out the file and writes the
// meta records leaves no file at the book's path that is not yet a book (the
// builder removes the orphans of killed processes, builder/new_book_file.h).
bool Book::create_beside(const std::string& path, BookError* error, std::size_t initial_map_size) {
  const std::string temp = path + std::string(kCreatingSuffix) + std::to_string(::getpid());
  ::unlink(temp.c_str());
  ::unlink((temp + "-lock").c_str());
  bool made = open_checked(temp, OpenMode::Create, error, initial_map_size).has_value();  // closed here
  ::unlink((temp + "-lock").c_str());
  // link() does not replace: a book another process made meanwhile stays, and is opened.
  if (made && ::link(temp.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    if (error) *error = storage_error(Error{errno, "link " + temp + " to " + path});
    made = false;
  }
  ::unlink(temp.c_str());
  return made;
}

std::optional<Book> Book::open_checked(const std::string& path, OpenMode mode, BookError* error,
                                       std::size_t initial_map_size) {
  bool exists = file_exists(path);
  if (!exists && mode != OpenMode::Create && mode != OpenMode::CreateUnsynced)
    return fail<Book>(error, {BookError::Code::NotFound, path + ": no such book"});
  if (exists)
    if (auto refused = refuse_by_cheap_checks(path, mode)) return fail<Book>(error, *refused);
  bool read_only = mode == OpenMode::ReadOnly;
  Error e;
  auto env = Env::open(path, read_only, initial_map_size, 16, &e);
  if (!env) {
    if (e.code == MDB_INVALID || e.code == MDB_VERSION_MISMATCH)
      return fail<Book>(error,
                        {BookError::Code::NotABook, path + ": not a graphbook book (not an LMDB file)"});
    return fail<Book>(error, storage_error(e));
  }
  if (!read_only && env->map_size() < initial_map_size) {
    if (auto s = env->set_map_size(initial_map_size)) return fail<Book>(error, storage_error(*s));
  }
  if (mode == OpenMode::CreateUnsynced)
    if (auto s = env->set_no_sync(true)) return fail<Book>(error, storage_error(*s));

  // A book that is not new must say it is a graphbook book of our version.
  auto check_meta = [&](const Txn& txn, MDB_dbi meta) -> std::optional<BookError> {
    auto named = format_version(txn, meta);
    if (!named)
      return BookError{BookError::Code::NotABook, path + ": not a graphbook book (no graphbook meta record)"};
    const std::uint32_t version = *named;
    if (version != kFormatVersion)
      return BookError{BookError::Code::WrongVersion,
                       path + ": book format version " + std::to_string(version) +
                           ", this graphbook reads version " + std::to_string(kFormatVersion) +
                           (version < kFormatVersion ? " (graphbook upgrade rewrites it)"
                                                     : " (a newer graphbook wrote it)")};
    return std::nullopt;
  };

  if (read_only) {
    auto txn = ReadTxn::begin(*env, &e);
    if (!txn) return fail<Book>(error, storage_error(e));
    if (auto stale = check_lock_file(env->get(), txn->get(), false)) {
      BookError failed{BookError::Code::Storage, stale->context};
      failed.stale_lock = true;
      return fail<Book>(error, std::move(failed));
    }
    auto meta = txn->open_db("meta", 0, &e);
    if (!meta)
      return fail<Book>(error,
                        {BookError::Code::NotABook, path + ": not a graphbook book (no meta database)"});
    if (auto bad = check_meta(*txn, *meta)) return fail<Book>(error, *bad);
    auto dbs = open_databases(*txn, 0, &e);
    if (!dbs)
      return fail<Book>(error, {BookError::Code::NotABook, path + ": not a graphbook book: " + e.message()});
    if (auto s = txn->commit()) return fail<Book>(error, storage_error(*s));
    return Book(std::move(*env), *dbs, path, true);
  }

  auto txn = WriteTxn::begin(*env, &e);
  if (!txn) {
    BookError failed = storage_error(e);
    failed.stale_lock = e.code == ESTALE;
    return fail<Book>(error, std::move(failed));
  }
  // A write on a damaged page can spread the damage: before writing, every
  // page is checked (a few milliseconds per 10 MB), while this transaction
  // keeps other writers from changing the file under the check.
  if (exists) {
    PageReport pages = check_pages(path);
    if (!pages.damage.empty())
      return fail<Book>(
          error, {BookError::Code::Damaged, path + ": damaged book: " + pages.damage.front().message() +
                                                " (graphbook check " + path + " lists the damage)"});
  }
  // A file that already holds databases must be a book; an empty LMDB file becomes one.
  auto names = txn->database_names(&e);  // an error is never taken for an empty file
  if (!names) return fail<Book>(error, storage_error(Error{e.code, "read the main database of " + path}));
  if (!names->empty()) {
    auto meta = txn->open_db("meta", 0, &e);
    if (!meta)
      return fail<Book>(error,
                        {BookError::Code::NotABook, path + ": not a graphbook book (no meta database)"});
    if (auto bad = check_meta(*txn, *meta)) return fail<Book>(error, *bad);
  }
  auto dbs = open_databases(*txn, MDB_CREATE, &e);
  if (!dbs) return fail<Book>(error, storage_error(e));
  if (!txn->get(dbs->meta, kFormatKey)) {
    std::uint32_t version = kFormatVersion;
    if (auto s = txn->put(dbs->meta, kFormatKey, kFormatName)) return fail<Book>(error, storage_error(*s));
    if (auto s = txn->put(dbs->meta, kVersionKey, as_bytes(version)))
      return fail<Book>(error, storage_error(*s));
  }
  if (auto s = txn->commit()) return fail<Book>(error, storage_error(*s));
  return Book(std::move(*env), *dbs, path, false);
}

Book::Book(std::vector<BookPart> parts, std::size_t global, std::string dir)
    : parts_(std::move(parts)), global_(global), path_(std::move(dir)), read_only_(true), sharded_(true) {
  assert(!parts_.empty() && global_ < parts_.size());
}

// A sharded book opens read-only: a write would have to be one transaction
// across its shards' files, which LMDB cannot give.
std::optional<Book> Book::open_sharded(const std::string& dir, OpenMode mode, BookError* error) {
  if (mode != OpenMode::ReadOnly)
    return fail<Book>(error, {BookError::Code::NotABook,
                              dir +
                                  ": a sharded book (graphbook build --mpi) is read-only; graphbook merge "
                                  "ONE.book " +
                                  dir + " makes one book that can be written"});
  auto manifest = read_manifest(dir, error);
  if (!manifest) return std::nullopt;
  struct stat st;
  if (::stat((dir + "/" + kManifestName).c_str(), &st) != 0)
    return fail<Book>(error, storage_error(Error{errno, "stat " + dir + "/" + kManifestName}));
  std::vector<BookPart> parts;
  for (const ShardEntry& s : manifest->shards) {
    auto shard = open(dir + "/" + s.file, OpenMode::ReadOnly, error);
    if (!shard) return std::nullopt;
    assert(!shard->sharded_);
    BookPart part = std::move(shard->parts_.front());
    part.first_key = s.first_key;
    part.last_key = s.last_key;
    parts.push_back(std::move(part));
  }
  Book book(std::move(parts), manifest->global_shard, dir);
  book.manifest_dev_ = st.st_dev;
  book.manifest_ino_ = st.st_ino;
  return book;
}

std::size_t Book::part_of(Key key) const {
  if (parts_.size() == 1) return 0;
  // The first part whose range ends at or after key (the ranges tile the keys in order).
  auto it = std::lower_bound(parts_.begin(), parts_.end(), key,
                             [](const BookPart& p, Key k) { return p.last_key < k; });
  assert(it != parts_.end() && it->first_key <= key);
  return std::size_t(it - parts_.begin());
}

std::optional<NodeRecord> Book::node(Key key, Error* error) {
  BookPart& p = parts_[part_of(key)];
  auto txn = ReadTxn::begin(p.env, error);
  if (!txn) return std::nullopt;
  auto v = find_section(*txn, p.dbs.positions, key, error);
  if (!v) return std::nullopt;
  return SectionReader(*v).node();
}

std::vector<BookEdge> Book::find_all(Key key, Error* error) {
  std::vector<BookEdge> out;
  BookPart& p = parts_[part_of(key)];
  auto txn = ReadTxn::begin(p.env, error);
  if (!txn) return out;
  auto v = find_section(*txn, p.dbs.positions, key, error);
  if (!v) return out;
  append_edges(*v, out);
  for (BookEdge& e : out)
    if (auto l = txn->get(p.dbs.learn, EdgeKey(key, e.move.raw()).view())) (void)from_bytes(*l, e.learning);
  return out;
}

std::optional<LearnRecord> Book::learning(Key key, Move move, Error* error) {
  BookPart& p = parts_[part_of(key)];
  auto txn = ReadTxn::begin(p.env, error);
  if (!txn) return std::nullopt;
  auto v = txn->get(p.dbs.learn, EdgeKey(key, move.raw()).view(), error);
  LearnRecord r;
  if (!v || !from_bytes(*v, r)) return std::nullopt;
  return r;
}

BookStats Book::stats(const Txn& txn, Error* error) {
  BookStats s;
  if (auto v = txn.get(dbs().meta, kStatsKey, error)) (void)from_bytes(*v, s);
  return s;
}

BookStats Book::stats(Error* error) {
  BookStats total;
  for (BookPart& p : parts_) {
    auto txn = ReadTxn::begin(p.env, error);
    if (!txn) return BookStats{};
    BookStats s;
    if (auto v = txn->get(p.dbs.meta, kStatsKey, error)) (void)from_bytes(*v, s);
    total.add(s);
  }
  return total;
}

std::vector<SourceInfo> Book::sources(Error* error) {
  std::vector<SourceInfo> out;
  auto txn = ReadTxn::begin(env(), error);
  if (!txn) return out;
  auto cursor = Cursor::open(*txn, dbs().sources, error);
  if (!cursor) return out;
  for (auto item = cursor->first(error); item; item = cursor->next(error)) {
    auto j = nlohmann::json::parse(item->value, nullptr, false);
    if (j.is_discarded()) continue;
    SourceInfo s;
    s.name = j.value("name", "");
    s.size = j.value("size", std::uint64_t(0));
    s.content_hash = j.value("xxh3", std::uint64_t(0));
    s.games_added = j.value("games_added", std::uint64_t(0));
    s.added_at = j.value("added_at", std::int64_t(0));
    s.params = j.contains("params") ? j["params"].dump() : "{}";
    s.label = j.value("source", "");
    s.bucket_source = j.value("bucket_source", std::uint32_t(0));
    s.first_date = j.value("first_date", 0);
    s.last_date = j.value("last_date", 0);
    s.duplicates = j.value("duplicates", std::uint64_t(0));
    s.retracted_at = j.value("retracted_at", std::int64_t(0));
    out.push_back(std::move(s));
  }
  return out;
}

std::string Book::build_params(Error* error) {
  auto txn = ReadTxn::begin(env(), error);
  if (!txn) return "{}";
  auto v = txn->get(dbs().meta, kParamsKey, error);
  return v ? std::string(*v) : "{}";
}

std::optional<bool> Book::holds_only_meta(const Txn& txn, Error* error) {
  auto names = txn.database_names(error);  // never a partial list: a build would replace the book
  if (!names) return std::nullopt;
  for (const std::string& name : *names) {
    if (name == "meta") continue;
    auto dbi = txn.open_db(name.c_str(), 0, error);
    if (!dbi) return std::nullopt;
    MDB_stat st;
    if (auto s = txn.stat(*dbi, st)) {
      if (error) *error = *s;
      return std::nullopt;
    }
    if (st.ms_entries > 0) return false;
  }
  return true;
}

bool Book::still_at_path() const {
  struct stat open_file, at_path;
  if (sharded_)  // a new build writes a new directory, and its manifest last
    return ::stat((path_ + "/" + kManifestName).c_str(), &at_path) == 0 && at_path.st_dev == manifest_dev_ &&
           at_path.st_ino == manifest_ino_;
  int fd = parts_.front().env.fd();
  return fd >= 0 && ::fstat(fd, &open_file) == 0 && ::stat(path_.c_str(), &at_path) == 0 &&
         open_file.st_dev == at_path.st_dev && open_file.st_ino == at_path.st_ino;
}

Status Book::write(const std::function<Status(WriteTxn&)>& batch) {
  assert(!sharded_);  // opened read-only
  Env& book_env = env();
  for (;;) {
    Error e;
    auto txn = WriteTxn::begin(book_env, &e);
    if (!txn) return e;
    Status s = batch(*txn);
    if (!s) s = txn->commit();
    if (!s) return std::nullopt;
    txn->abort();
    if (!s->map_full()) return s;
    if (auto g = book_env.set_map_size(book_env.map_size() * 2)) return g;
  }
}

Status Book::update_learning(Key key, Move move, const LearnRecord& record) {
  return write(
      [&](WriteTxn& txn) { return txn.put(dbs().learn, EdgeKey(key, move.raw()).view(), as_bytes(record)); });
}

Status Book::put_stats(WriteTxn& txn, const BookStats& stats) {
  return txn.put(dbs().meta, kStatsKey, as_bytes(stats));
}

Status Book::put_build_params(WriteTxn& txn, const std::string& json) {
  return txn.put(dbs().meta, kParamsKey, json);
}

namespace {

std::string source_json(const SourceInfo& source) {
  nlohmann::json j = {{"name", source.name},
                      {"size", source.size},
                      {"xxh3", source.content_hash},
                      {"games_added", source.games_added},
                      {"added_at", source.added_at}};
  auto params = nlohmann::json::parse(source.params, nullptr, false);
  j["params"] = params.is_discarded() ? nlohmann::json::object() : params;
  // The fields after the first format-3 books: written only when they say
  // something, so that a book without them reads the same.
  if (!source.label.empty()) j["source"] = source.label;
  if (source.bucket_source) j["bucket_source"] = source.bucket_source;
  if (source.first_date) j["first_date"] = source.first_date;
  if (source.last_date) j["last_date"] = source.last_date;
  if (source.duplicates) j["duplicates"] = source.duplicates;
  if (source.retracted_at) j["retracted_at"] = source.retracted_at;
  return j.dump();
}

}  // namespace

Status Book::add_source(WriteTxn& txn, const SourceInfo& source) {
  MDB_stat st;
  if (auto s = txn.stat(dbs().sources, st)) return s;
  char key[8];
  put_be64(key, st.ms_entries + 1);  // records are never deleted (SourceInfo): the next number
  return txn.put(dbs().sources, std::string_view(key, 8), source_json(source));
}

Status Book::put_source(WriteTxn& txn, std::uint32_t number, const SourceInfo& source) {
  assert(number > 0);
  char key[8];
  put_be64(key, number);
  return txn.put(dbs().sources, std::string_view(key, 8), source_json(source));
}

}  // namespace gb::store
