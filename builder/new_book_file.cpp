#include "builder/new_book_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <iterator>

#include "builder/orphan_files.h"

namespace gb::builder {

using store::Status;

namespace {

// A new book is written into "BOOK.building-PID" beside it.
constexpr std::string_view kBuildingSuffix = ".building-";

// The file the book's path names (a symbolic link is followed: the new
// book replaces the file, not the link).
std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : path;
}

Status sync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return store::Error{errno, "open directory " + dir};
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return store::Error{err, "sync directory " + dir};
  return std::nullopt;
}

}  // namespace

Status ChunkedAppender::finish() {
  for (Pending& batch : batches_)
    if (auto s = flush(batch)) return s;
  return txn_ ? commit() : std::nullopt;
}

Status ChunkedAppender::flush(Pending& batch) {
  if (!batch.records.size()) return std::nullopt;
  if (!txn_)
    if (auto s = begin()) return s;
  pending_bytes_ += batch.records.bytes.size();
  pending_.push_back(std::move(batch));
  batch = Pending{pending_.back().dbi, {}, pending_.back().flags};
  for (auto spare = spare_.rbegin(); spare != spare_.rend(); ++spare)
    if (spare->dbi == batch.dbi) {
      batch.records = std::move(spare->records);
      spare_.erase(std::next(spare).base());
      break;
    }
  Status s = put(pending_.back());
  if (s && s->map_full()) s = redo();
  if (s) return s;
  return pending_bytes_ >= kChunkBytes ? commit() : std::nullopt;
}

Status ChunkedAppender::begin() {
  store::Error e;
  auto txn = store::WriteTxn::begin(book_.env(), &e);
  if (!txn) return e;
  txn_.emplace(std::move(*txn));
  return std::nullopt;
}

store::Cursor* ChunkedAppender::cursor(MDB_dbi dbi, Status& status) {
  for (auto& [d, c] : cursors_)
    if (d == dbi) return &c;
  store::Error e;
  auto c = store::Cursor::open(*txn_, dbi, &e);
  if (!c) {
    status = e;
    return nullptr;
  }
  return &cursors_.emplace_back(dbi, std::move(*c)).second;
}

Status ChunkedAppender::put(const Pending& p) {
  Status status;
  store::Cursor* c = cursor(p.dbi, status);
  if (!c) return status;
  std::string_view bytes = p.records.bytes;
  std::size_t at = 0;
  for (auto [k, v] : p.records.sizes) {
    if (auto s = c->put(bytes.substr(at, k), bytes.substr(at + k, v), p.flags)) return s;
    at += k + v;
  }
  return std::nullopt;
}

Status ChunkedAppender::commit() {
  for (;;) {
    cursors_.clear();
    Status s = txn_->commit();
    txn_.reset();
    if (!s) break;
    if (!s->map_full()) return s;
    if (auto r = redo()) return r;
  }
  committed_bytes_ += pending_bytes_;
  for (Pending& p : pending_) {
    p.records.clear();
    spare_.push_back(std::move(p));
  }
  pending_.clear();
  pending_bytes_ = 0;
  if (committed_bytes_ >= kReleaseBytes) {
    book_.env().release_mapped_pages();  // what the transactions read (a new book is read only here)
    book_.env().start_writeback();       // the final sync then waits for the last pages only
    committed_bytes_ = 0;
  }
  return std::nullopt;
}

Status ChunkedAppender::redo() {
  for (;;) {
    cursors_.clear();
    txn_.reset();
    if (auto s = book_.env().set_map_size(book_.env().map_size() * 2)) return s;
    if (auto s = begin()) return s;
    Status s;
    for (const Pending& p : pending_)
      if ((s = put(p))) break;
    if (!s || !s->map_full()) return s;
  }
}

Status replace_book_file(const std::string& path, std::size_t map_size,
                         const std::function<Status(store::Book&)>& write, Placing placing) {
  const std::string target = real_path(path);
  const std::string temp = target + std::string(kBuildingSuffix) + std::to_string(::getpid());
  ::unlink(temp.c_str());
  ::unlink((temp + "-lock").c_str());
  Status status = [&]() -> Status {
    store::BookError be;
    auto to = store::Book::open(temp, store::OpenMode::CreateUnsynced, &be, map_size);
    if (!to) return store::Error{EIO, be.message};
    if (auto s = write(*to)) return s;
    if (auto s = to->env().sync()) return s;
    return std::nullopt;
  }();  // the new book is closed
  ::unlink((temp + "-lock").c_str());
  if (!status) {
    if (placing == Placing::Rename && ::rename(temp.c_str(), target.c_str()) != 0)
      status = store::Error{errno, "rename " + temp};
    // link() does not replace: a book another process made meanwhile stays.
    if (placing == Placing::Link && ::link(temp.c_str(), target.c_str()) != 0)
      status = store::Error{errno, "link " + temp + " to " + target};
  }
  if (status || placing == Placing::Link) ::unlink(temp.c_str());
  if (status) return status;
  // The book's lock file holds the old file's transaction id: a process that
  // opens the new file must start a new one.
  ::unlink((target + "-lock").c_str());
  return sync_dir(dir_of(target));
}

void remove_new_book_orphans(const std::string& path) {
  const std::string target = real_path(path);
  remove_orphans(dir_of(target), name_of(target) + std::string(kBuildingSuffix));
  remove_orphans(dir_of(target), name_of(target) + std::string(store::Book::kCreatingSuffix));
}

void remove_own_new_book(const std::string& path) {
  const std::string target = real_path(path);
  remove_own_files(dir_of(target), name_of(target) + std::string(kBuildingSuffix));
  remove_placeholder(path);
}

namespace {

// (Not through real_path: nothing was at the path, and the book linked
// there at the commit must not move its placeholder.)
std::string placeholder_path(const std::string& path) {
  return path + std::string(store::Book::kCreatingSuffix) + std::to_string(::getpid());
}

}  // namespace

std::optional<store::Book> open_placeholder(const std::string& path, std::size_t initial_map_size,
                                            store::BookError* error) {
  remove_placeholder(path);  // (of an earlier process with this process's id)
  auto book =
      store::Book::open(placeholder_path(path), store::OpenMode::CreateUnsynced, error, initial_map_size);
  if (!book) remove_placeholder(path);
  return book;
}

void remove_placeholder(const std::string& path) {
  const std::string placeholder = placeholder_path(path);
  ::unlink(placeholder.c_str());
  ::unlink((placeholder + "-lock").c_str());
}

}  // namespace gb::builder
