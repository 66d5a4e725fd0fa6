// build --index-games killed with SIGKILL at several moments: the stored
// games and their index are in the build's one transaction, so the book
// holds either none of the build or all of it (games counted in the stats ==
// games stored), and the next build completes it.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "book/store/book.h"
#include "book/store/game_index.h"
#include "match_helpers.h"
#include "shared_data.h"

extern char** environ;

namespace {

// The games counted in the book's stats and the games stored; -1 where the
// book or the index is absent.
std::pair<long long, long long> counts(const std::string& path) {
  gb::store::BookError be;
  auto book = gb::store::Book::open(path, gb::store::OpenMode::ReadOnly, &be);
  if (!book) return {-1, -1};
  long long games = (long long)book->stats().games;
  gb::store::Error e;
  auto index = gb::store::GameIndexReader::open(*book, &e);
  return {games, index ? (long long)index->game_count() : -1};
}

}  // namespace

TEST_CASE("A build with --index-games killed at any moment leaves the games and the index all or nothing",
          "[match][slow]") {
  std::string pgn = gb::test::shared_data_path("pgn/medium/tcec-standard-nocomments.pgn.zst");
  if (pgn.empty()) return;  // reported skipped
  std::string book = gb::test::match_temp_dir() + "/killed.book";
  std::string binary = gb::test::graphbook_binary();
  int saw_none = 0, saw_all = 0;
  std::vector<int> delays_ms = {300, 1500, 3000, 4500, 6000, 7500};
  for (std::size_t i = 0; i < delays_ms.size(); ++i) {
    const int delay_ms = delays_ms[i];
    INFO("killed after " << delay_ms << " ms");
    std::vector<std::string> args = {binary, "build", book, pgn, "--quiet", "--index-games"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid;
    REQUIRE(::posix_spawn(&pid, binary.c_str(), nullptr, nullptr, argv.data(), environ) == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    auto [games, stored] = counts(book);
    if (games <= 0) {
      CHECK(stored <= 0);
    } else {
      CHECK(stored == games);
    }
    saw_none += games <= 0 && stored <= 0;
    saw_all += games > 0 && stored == games;
    // A loaded machine may not have committed by the last delay: kill later, until a kill comes after it.
    if (i + 1 == delays_ms.size() && saw_all == 0 && delay_ms < 120000) delays_ms.push_back(delay_ms * 2);
  }
  CHECK(saw_none > 0);
  CHECK(saw_all > 0);
  auto r = gb::test::graphbook("build " + gb::test::quote(book) + " " + gb::test::quote(pgn) +
                               " --quiet --index-games");
  REQUIRE(r.status == 0);
  auto [games, stored] = counts(book);
  CHECK(games > 0);
  CHECK(games <= 22240);  // the file's games (data README), less the duplicates the build skips
  CHECK(stored == games);
}
