#include "serve/book_source.h"

#include <cstdio>

#include "builder/book_info.h"

namespace gb::serve {

namespace {

// A read-only map this large never needs growing: a book that a build or a
// learn grows while we read it stays inside it, so no read transaction meets
// MDB_MAP_RESIZED (which a multi-threaded reader could not adopt: LMDB
// resizes only while no transaction of the process is open). Address space
// only; nothing is read past the file's end.
constexpr std::size_t kReadMapSize = std::size_t(1) << 40;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<nlohmann::json> OpenBook::info(builder::BuildError* error) {
  std::lock_guard lock(info_mutex_);
  if (!info_) {
    auto info = builder::book_info(book_, error);
    if (!info) return std::nullopt;
    info_ = builder::to_json(*info);
  }
  return info_;
}

std::shared_ptr<OpenBook> BookSource::open_book(const std::string& path, std::uint64_t generation,
                                                store::BookError* error) {
  auto book = store::Book::open(path, store::OpenMode::ReadOnly, error);
  if (!book) return nullptr;
  // Open every named database of each part once, here, before any thread
  // reads: LMDB allows mdb_dbi_open in one transaction of a process at a
  // time, and a handle opened in a transaction that aborts is closed again.
  // Committed here, the opens the readers make later (the stored games, and
  // whatever a reader of another component opens) only find the handles.
  store::Error e;
  bool has_games = false;
  for (std::size_t p = 0; p < book->part_count() && !e.code; ++p) {
    store::Env& env = book->part(p).env;
    if (env.map_size() < kReadMapSize) {
      if (auto s = env.set_map_size(kReadMapSize)) {
        *error = {store::BookError::Code::Storage, book->part(p).path + ": " + s->message()};
        return nullptr;
      }
    }
    if (auto txn = store::ReadTxn::begin(env, &e)) {
      if (auto names = txn->database_names(&e))
        for (const std::string& name : *names)
          if (!txn->open_db(name.c_str(), 0, &e)) break;
      if (&env == &book->env()) {  // the stored games are the global part's
        store::Error absent;
        has_games = !e.code && txn->open_db(store::kStoredGamesDb, 0, &absent) &&
                    txn->open_db(store::kGameIndexDb, 0, &absent);
      }
      if (auto s = txn->commit(); s && !e.code) e = *s;
    }
  }
  if (e.code && e.code != MDB_NOTFOUND) {
    *error = {store::BookError::Code::Storage, path + ": " + e.message()};
    return nullptr;
  }
  return std::make_shared<OpenBook>(std::move(*book), generation, has_games);
}

std::unique_ptr<BookSource> BookSource::open(const std::string& path, store::BookError* error) {
  auto book = open_book(path, 1, error);
  if (!book) return nullptr;
  std::unique_ptr<BookSource> source(new BookSource(path));
  source->book_ = std::move(book);
  source->generation_ = 1;
  source->next_check_ = now_ns() + std::chrono::nanoseconds(kCheckInterval).count();
  return source;
}

void BookSource::poll() {
  std::int64_t due = next_check_.load(std::memory_order_relaxed);
  std::int64_t now = now_ns();
  // One thread per interval checks; the others go on with the book they have.
  if (now >= due &&
      next_check_.compare_exchange_strong(due, now + std::chrono::nanoseconds(kCheckInterval).count(),
                                          std::memory_order_relaxed))
    check_replaced();
}

std::shared_ptr<OpenBook> BookSource::current() {
  std::lock_guard lock(mutex_);
  return book_;
}

void BookSource::check_replaced() {
  std::shared_ptr<OpenBook> open;
  {
    std::lock_guard lock(mutex_);
    open = book_;
  }
  if (open->book().still_at_path()) return;
  store::BookError e;
  auto fresh = open_book(path_, open->generation() + 1, &e);
  std::lock_guard lock(mutex_);
  if (!fresh) {
    // Between a build's rename and its lock file's removal, or a file being
    // written: keep serving the old book and try again at the next check.
    if (!reopen_failed_)
      std::fprintf(stderr, "graphbook serve: the book was replaced but does not open yet: %s\n",
                   e.message.c_str());
    reopen_failed_ = true;
    return;
  }
  reopen_failed_ = false;
  std::fprintf(stderr, "graphbook serve: %s was replaced; serving the new book\n", path_.c_str());
  book_ = std::move(fresh);
  generation_.store(book_->generation(), std::memory_order_release);
}

store::Status ThreadReaders::begin_request(BookSource& source) {
  source.poll();
  if (!book_ || book_->generation() != source.generation()) {
    reader_.reset();
    book_ = source.current();
    store::Error error;
    auto reader = explore::BookReader::open(book_->book(), &error);
    if (!reader) return error;
    reader_.emplace(std::move(*reader));
    return std::nullopt;
  }
  return reader_->refresh();
}

std::optional<store::GameIndexReader> ThreadReaders::games(store::Error* error) {
  if (!book_->has_games()) {
    error->code = MDB_NOTFOUND;
    return std::nullopt;
  }
  return store::GameIndexReader::open(book_->book(), error);
}

ThreadReaders& thread_readers() {
  thread_local ThreadReaders readers;
  return readers;
}

}  // namespace gb::serve
