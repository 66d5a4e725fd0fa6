// The book a server reads, shared by its threads, and replaced when the file
// at its path is replaced (a fresh `graphbook build` renames a new file over
// the book). Each thread keeps its own readers (one read transaction each,
// renewed per request), so requests never share a transaction and never take
// a lock on the hot path.
//
//   store::BookError error;
//   auto source = BookSource::open("games.book", &error);
//   ThreadReaders& r = thread_readers();
//   if (auto s = r.begin_request(*source)) ...;   // r.book(), r.reader()
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "book/explore/book_reader.h"
#include "book/store/book.h"
#include "book/store/game_index.h"
#include "builder/build_error.h"

namespace gb::serve {

// One open book file and what is computed once per open.
class OpenBook {
 public:
  OpenBook(store::Book book, std::uint64_t generation, bool has_games)
      : book_(std::move(book)), generation_(generation), has_games_(has_games) {}
  store::Book& book() { return book_; }
  // Counts up by one each time the file at the path is replaced and reopened.
  std::uint64_t generation() const { return generation_; }
  // Built with --index-games: /masters/pgn, topGames and /api/match have games to read.
  bool has_games() const { return has_games_; }
  // `graphbook info --json` of this book, computed on first use (it walks
  // the whole book) and kept; nullopt and error when the walk fails.
  [[nodiscard]] std::optional<nlohmann::json> info(builder::BuildError* error);

 private:
  store::Book book_;
  std::uint64_t generation_;
  bool has_games_;
  std::mutex info_mutex_;
  std::optional<nlohmann::json> info_;
};

class BookSource {
 public:
  // Opens the book read-only; nullptr and error (whose code decides the exit
  // status, store::exit_status_for) when it does not open.
  [[nodiscard]] static std::unique_ptr<BookSource> open(const std::string& path, store::BookError* error);

  // At most every kCheckInterval (the first caller after it is due) checks
  // that the file at the path is still the one open, and opens the new one
  // when it was replaced; a failed open keeps the old one (and says so on
  // stderr once). Cheap when not due: one atomic load.
  void poll();
  // The book now open.
  std::shared_ptr<OpenBook> current();
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  const std::string& path() const { return path_; }

  static constexpr std::chrono::milliseconds kCheckInterval{250};

 private:
  explicit BookSource(std::string path) : path_(std::move(path)) {}
  // Opens the book and prepares its environment for many threads.
  [[nodiscard]] static std::shared_ptr<OpenBook> open_book(const std::string& path, std::uint64_t generation,
                                                           store::BookError* error);
  void check_replaced();

  std::string path_;
  std::mutex mutex_;  // guards book_ and reopen_failed_
  std::shared_ptr<OpenBook> book_;
  bool reopen_failed_ = false;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::int64_t> next_check_{0};  // steady clock, nanoseconds
};

// One thread's readers over the current book. Not thread-safe: use
// thread_readers(), one per thread.
class ThreadReaders {
 public:
  // Takes the current book (reopening the readers when it changed) and a
  // fresh snapshot of it.
  [[nodiscard]] store::Status begin_request(BookSource& source);
  OpenBook& book() { return *book_; }
  explore::BookReader& reader() { return *reader_; }
  // A reader of the stored games in a snapshot of its own (a read
  // transaction of its own, begun here); nullopt and error->code ==
  // MDB_NOTFOUND for a book without them.
  [[nodiscard]] std::optional<store::GameIndexReader> games(store::Error* error);

 private:
  std::shared_ptr<OpenBook> book_;
  std::optional<explore::BookReader> reader_;
};

ThreadReaders& thread_readers();

}  // namespace gb::serve
