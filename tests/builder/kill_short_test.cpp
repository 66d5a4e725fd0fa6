// The default suite's kill -9 check of a build's atomicity: a small build
// (the second half of twic0920 into a book of the first half) killed at
// random moments. Each time the book must be exactly the book before the
// build or exactly the book after it, database by database. The long kill
// tests over the TCEC games are in kill_test.cpp and tagged [slow].
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "book/store/book.h"
#include "book_dump.h"
#include "process.h"
#include "test_data.h"

using namespace gb;
using gb::test::TempDir;

namespace {

// Everything a book holds, but the time at which each source was added
// (sources are compared by key: which files were added).
struct BookState {
  std::map<std::string, std::string> meta, positions, learn, games, collisions;
  std::set<std::string> sources;
  bool operator==(const BookState&) const = default;
};

BookState state_of(const std::string& path) {
  store::Book book = gb::test::open_book(path);
  BookState s;
  s.meta = gb::test::dump(book, book.dbs().meta);
  s.positions = gb::test::sections(book, book.dbs().positions);
  s.learn = gb::test::dump(book, book.dbs().learn);
  s.games = gb::test::dump(book, book.dbs().games);
  s.collisions = gb::test::dump(book, book.dbs().collisions);
  for (const auto& [key, value] : gb::test::dump(book, book.dbs().sources)) s.sources.insert(key);
  return s;
}

std::uint64_t games_in(const std::string& path) { return gb::test::open_book(path).stats().games; }

void copy(const std::string& from, const std::string& to) {
  REQUIRE(std::system(("cp '" + from + "' '" + to + "'").c_str()) == 0);
}

std::size_t count_games(const std::string& pgn) {
  std::size_t n = 0;
  for (std::size_t at = pgn.find("[Event "); at != std::string::npos; at = pgn.find("\n[Event ", at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("A small build killed with SIGKILL at random moments leaves the book exactly as before or after",
          "[builder]") {
  TempDir dir;
  const std::string bin = gb::test::graphbook_binary();
  // twic0920 cut in two at a game boundary: the book holds the first half, the build adds the second.
  std::string all = gb::test::read_file(gb::test::data_path("pgn/small/twic0920.pgn"));
  REQUIRE(!all.empty());
  std::size_t cut = all.find("\n[Event ", all.size() / 2) + 1;
  std::string first = all.substr(0, cut), second = all.substr(cut);
  std::string a = dir.write("a.pgn", first), b = dir.write("b.pgn", second);
  std::string base = dir.file("base.book");
  REQUIRE(gb::test::run({bin, "build", base, a, "--max-ply", "0", "--quiet"}).status == 0);
  const BookState before = state_of(base);
  // Games counted by their Event tags (the data README: 2,245 games in all, every one with an Event tag).
  REQUIRE(games_in(base) == count_games(first));

  // Two threads and a small memory budget: the build spills runs and merges them, more moments to be killed
  // in.
  std::vector<std::string> build = {bin,         "build", "",         b,    "--max-ply", "0",
                                    "--threads", "2",     "--memory", "1M", "--quiet"};
  build[2] = dir.file("full.book");
  copy(base, build[2]);
  auto t0 = std::chrono::steady_clock::now();
  REQUIRE(gb::test::run(build).status == 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const BookState after = state_of(build[2]);
  REQUIRE(games_in(build[2]) == count_games(all));
  REQUIRE_FALSE(before == after);

  // Random moments up to a little past the undisturbed build's time; while no
  // kill has come after the commit (a loaded machine runs the build slower),
  // the range grows, so that both outcomes are seen.
  const auto seed = std::random_device{}();
  INFO("seed " << seed << ", an undisturbed build took " << seconds << " s");
  std::mt19937 rng(seed);
  double limit = seconds * 1.3;
  int saw_before = 0, saw_after = 0, kills = 0;
  while ((kills < 6 || saw_before == 0 || saw_after == 0) && kills < 30) {
    const double at = std::uniform_real_distribution<double>(0, limit)(rng);
    INFO("kill " << kills << " at " << at << " s");
    build[2] = dir.file("k" + std::to_string(kills) + ".book");
    copy(base, build[2]);
    pid_t pid = gb::test::spawn(build, dir.file("out"), dir.file("err"));
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    ::kill(pid, SIGKILL);
    gb::test::wait_status(pid);
    const BookState s = state_of(build[2]);
    CHECK((s == before || s == after));
    saw_before += s == before;
    saw_after += s == after;
    if (++kills >= 3 && saw_after == 0) limit *= 1.5;
    if (kills >= 3 && saw_before == 0) limit /= 2;
  }
  CHECK(saw_before > 0);
  CHECK(saw_after > 0);
  // The killed builds' lock and run files do not stop the next build into a killed book.
  build[2] = dir.file("k0.book");
  copy(base, build[2]);
  REQUIRE(gb::test::run(build).status == 0);
  CHECK(state_of(build[2]) == after);
}
