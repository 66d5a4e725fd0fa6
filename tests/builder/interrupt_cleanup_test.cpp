// A build interrupted by SIGINT or SIGTERM removes the run files it spilled
// beside the book before it dies, and leaves the book as it was; what builds
// killed with SIGKILL left, `graphbook info` and the next build remove.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "process.h"
#include "test_data.h"

using gb::test::graphbook;
using gb::test::Output;
using gb::test::read_file;
using gb::test::TempDir;

namespace {

// The names in dir that start with prefix.
std::vector<std::string> files_starting(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  return names;
}

// A process id that no process has: a child that has ended and been reaped.
pid_t gone_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  gb::test::wait_status(pid);
  return pid;
}

}  // namespace

TEST_CASE("A build interrupted by SIGINT or SIGTERM removes its run files and leaves the book as it was",
          "[builder][interrupt]") {
  const std::string twic = read_file(gb::test::data_path("pgn/small/twic0920.pgn"));
  REQUIRE(twic.size() > 1000000);
  for (int sig : {SIGINT, SIGTERM}) {
    INFO("signal " << sig);
    TempDir dir;
    const std::string book = dir.file("b.book");
    REQUIRE(graphbook({"build", book, dir.write("one.pgn", "[Result \"1-0\"]\n\n1. e4 1-0\n"), "--max-ply",
                       "0", "--quiet"})
                .status == 0);
    const std::string before = read_file(book);
    // The games come through a FIFO that the test holds open: the build spills
    // runs (1 MB of tables for 160,000 positions) and then waits for more input.
    const std::string fifo = dir.file("games.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    pid_t pid = gb::test::spawn({gb::test::graphbook_binary(), "build", book, fifo, "--memory", "1M",
                                 "--threads", "1", "--max-ply", "0", "--quiet"},
                                dir.file("out"), dir.file("err"));
    // Opened once the build has opened it to read (a deadline only against a hang).
    int writer = -1;
    auto opened_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while ((writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO &&
           std::chrono::steady_clock::now() < opened_by)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    INFO(read_file(dir.file("err")));
    REQUIRE(writer >= 0);                       // else: the build did not open its input within 60 s
    REQUIRE(::fcntl(writer, F_SETFL, 0) == 0);  // blocking writes from here on
    for (std::size_t at = 0; at < twic.size();) {
      ssize_t n = ::write(writer, twic.data() + at, twic.size() - at);
      REQUIRE(n > 0);
      at += std::size_t(n);
    }
    // Only a deadline against a hang: the runs appear once the build has read the games.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (files_starting(dir.path, "graphbook-run-").empty() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    INFO(read_file(dir.file("err")));
    REQUIRE_FALSE(files_starting(dir.path, "graphbook-run-").empty());  // else: no run file within 120 s

    ::kill(pid, sig);
    CHECK(gb::test::wait_status(pid) == 128 + sig);
    ::close(writer);
    CHECK(files_starting(dir.path, "graphbook-run-").empty());
    CHECK(files_starting(dir.path, "b.book.building-").empty());
    CHECK(read_file(book) == before);
  }
}

TEST_CASE("info and the next build remove the files that builds killed with SIGKILL left beside the book",
          "[builder][interrupt]") {
  TempDir dir;
  const std::string pgn = dir.write("g.pgn", "[Result \"1-0\"]\n\n1. e4 1-0\n"), book = dir.file("b.book");
  REQUIRE(graphbook({"build", book, pgn, "--quiet"}).status == 0);
  const std::string dead = std::to_string(gone_pid()), alive = std::to_string(::getpid());
  auto leave = [&] {
    dir.write("graphbook-run-" + dead + "-0-3", "run");
    dir.write("b.book.building-" + dead, "new book");
    dir.write("b.book.building-" + dead + "-lock", "lock");
    dir.write("graphbook-run-" + alive + "-0-1", "a live build's run");  // this process is alive
  };
  leave();
  Output o = graphbook({"info", book});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(files_starting(dir.path, "b.book.building-").empty());
  CHECK(files_starting(dir.path, "graphbook-run-") ==
        std::vector<std::string>{"graphbook-run-" + alive + "-0-1"});

  std::filesystem::remove(dir.file("graphbook-run-" + alive + "-0-1"));
  leave();
  REQUIRE(
      graphbook({"build", book, dir.write("h.pgn", "[Result \"0-1\"]\n\n1. d4 0-1\n"), "--quiet"}).status ==
      0);
  CHECK(files_starting(dir.path, "b.book.building-").empty());
  CHECK(files_starting(dir.path, "graphbook-run-") ==
        std::vector<std::string>{"graphbook-run-" + alive + "-0-1"});
}

TEST_CASE(
    "A build whose run file cannot be written says which and why, removes its run files and leaves the "
    "book as it was",
    "[builder][interrupt]") {
  TempDir dir;
  const std::string book = dir.file("b.book");
  REQUIRE(graphbook({"build", book, dir.write("one.pgn", "[Result \"1-0\"]\n\n1. e4 1-0\n"), "--max-ply", "0",
                     "--quiet"})
              .status == 0);
  const std::string before = read_file(book);
  // A file size limit of 200 KiB (SIGXFSZ ignored, so that a write past it
  // fails with EFBIG as on a full disk): the book (a few pages) stays under
  // it, the runs the build spills under --memory 1M (some 370 KB) do not.
  constexpr rlim_t kLimit = 200 * 1024;
  REQUIRE(before.size() < kLimit);
  const std::vector<std::string> argv = {
      gb::test::graphbook_binary(),
      "build",
      book,
      gb::test::data_path("pgn/small/tcec-standard-nocomments-every8th.pgn.zst"),
      "--memory",
      "1M",
      "--max-ply",
      "0",
      "--quiet"};
  const int status = gb::test::wait_status(gb::test::spawn(argv, dir.file("out"), dir.file("err"), kLimit));
  const std::string err = read_file(dir.file("err"));
  INFO(err);
  CHECK(status != 0);
  CHECK(status < 128);  // an error reported, not a signal
  CHECK(err.find("cannot write the aggregation run " + dir.path + "/graphbook-run-") != std::string::npos);
  CHECK(err.find("File too large") != std::string::npos);
  CHECK(files_starting(dir.path, "graphbook-run-").empty());
  CHECK(files_starting(dir.path, "b.book.building-").empty());
  CHECK(read_file(book) == before);
}

TEST_CASE("A build whose book cannot be written says why, and leaves the book as it was",
          "[builder][interrupt]") {
  // A file size limit of 300 KiB: twic0920's book is larger. LMDB reports the
  // short write as EIO; the message says what the file tells of it.
  constexpr rlim_t kLimit = 300 * 1024;
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  for (bool fresh : {true, false}) {
    INFO((fresh ? "a new book" : "a book of one game"));
    TempDir dir;
    const std::string book = dir.file("b.book");
    std::string before;  // the book's export
    if (!fresh) {
      REQUIRE(graphbook({"build", book, dir.write("one.pgn", "[Result \"1-0\"]\n\n1. e4 1-0\n"), "--quiet"})
                  .status == 0);
      before = gb::test::exported(book, dir.file("before.bin"));
      REQUIRE(!before.empty());
    }
    const int status =
        gb::test::wait_status(gb::test::spawn({gb::test::graphbook_binary(), "build", book, twic, "--quiet"},
                                              dir.file("out"), dir.file("err"), kLimit));
    const std::string err = read_file(dir.file("err"));
    INFO(err);
    CHECK(status != 0);
    CHECK(status < 128);  // an error reported, not a signal
    CHECK(err.find(book +
                   ": commit (a write came up short: the book's file reached this process's file size "
                   "limit, " +
                   std::to_string(kLimit) + " bytes): Input/output error") != std::string::npos);
    CHECK(files_starting(dir.path, "graphbook-run-").empty());
    CHECK(files_starting(dir.path, "b.book.building-").empty());
    if (!fresh) {
      Output check = graphbook({"check", book});
      INFO(check.out << check.err);
      CHECK(check.status == 0);
    }
    if (fresh) {
      // Nothing was at the path, and nothing is: the new book is linked
      // there only whole (its placeholder is gone too).
      CHECK_FALSE(std::filesystem::exists(book));
      CHECK(files_starting(dir.path, "b.book").empty());
    } else {
      CHECK(gb::test::exported(book, dir.file("after.bin")) == before);
    }
  }
}

TEST_CASE(
    "A build into a path where no book is puts the book there only at its commit, and leaves one that "
    "another build made meanwhile as it is",
    "[builder][interrupt]") {
  TempDir dir;
  const std::string book = dir.file("b.book"), fifo = dir.file("games.fifo");
  const std::string twic = read_file(gb::test::data_path("pgn/small/twic0920.pgn"));
  REQUIRE(twic.size() > 1000000);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The first build's games come through a FIFO that the test holds open: it
  // has opened the book it builds into and waits for its input.
  const pid_t first = gb::test::spawn({gb::test::graphbook_binary(), "build", book, fifo, "--quiet"},
                                      dir.file("out"), dir.file("err"));
  int writer = -1;
  auto opened_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);  // only against a hang
  while ((writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO &&
         std::chrono::steady_clock::now() < opened_by)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  INFO(read_file(dir.file("err")));
  REQUIRE(writer >= 0);  // else: the build did not open its input within 60 s
  REQUIRE(::fcntl(writer, F_SETFL, 0) == 0);
  // Reading its input, it builds into its placeholder; nothing is at the path.
  CHECK_FALSE(std::filesystem::exists(book));
  CHECK(std::filesystem::exists(book + ".creating-" + std::to_string(first)));

  // Another build makes a book of one game at the path meanwhile.
  REQUIRE(
      graphbook({"build", book, dir.write("one.pgn", "[Result \"1-0\"]\n\n1. e4 1-0\n"), "--quiet"}).status ==
      0);
  const std::string other = gb::test::exported(book, dir.file("other.bin"));
  REQUIRE(!other.empty());

  // The first build's commit finds it there: it writes nothing and says so.
  for (std::size_t at = 0; at < twic.size();) {
    ssize_t n = ::write(writer, twic.data() + at, twic.size() - at);
    REQUIRE(n > 0);
    at += std::size_t(n);
  }
  ::close(writer);
  const int status = gb::test::wait_status(first);
  const std::string err = read_file(dir.file("err"));
  INFO(err);
  CHECK(status != 0);
  CHECK(status < 128);  // an error reported, not a signal
  CHECK(err.find(book + ": another build made the book while this one ran; nothing was written, run the "
                        "build again") != std::string::npos);
  CHECK(gb::test::exported(book, dir.file("after.bin")) == other);
  CHECK(gb::test::info_json(book)["games"] == 1);
  CHECK(files_starting(dir.path, "b.book.").empty());  // no placeholder, no new file
  CHECK(files_starting(dir.path, "graphbook-run-").empty());
}
