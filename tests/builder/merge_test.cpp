// `graphbook merge OUT BOOK1 BOOK2`: the merged book of two builds is the book
// one build of both inputs makes (its Polyglot export byte for byte, its
// counts in info), with games in both books counted once, and a merge that
// cannot be exact is refused without leaving OUT.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <thread>

#include "process.h"
#include "test_data.h"

using gb::test::build;
using gb::test::counts;
using gb::test::exported;
using gb::test::games_of;
using gb::test::graphbook;
using gb::test::info_json;
using gb::test::join;
using gb::test::Output;
using gb::test::read_file;
using gb::test::TempDir;

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

struct Halves {
  TempDir dir{"graphbook-merge"};
  std::string a, b;
  std::size_t shared = 0;  // games in both files
  // twic0920 cut in two: the first part up to 2/3 and the rest from 1/3
  // (overlap) or the two halves (no overlap).
  explicit Halves(bool overlap) {
    auto games = games_of(read_file(gb::test::data_path("pgn/small/twic0920.pgn")));
    REQUIRE(games.size() == 2245);
    const std::size_t n = games.size();
    const std::size_t a_end = overlap ? 2 * n / 3 : n / 2, b_begin = overlap ? n / 3 : n / 2;
    shared = a_end - b_begin;
    a = dir.write("a.pgn", join(games, 0, a_end));
    b = dir.write("b.pgn", join(games, b_begin, n));
  }
  std::string file(const std::string& name) const { return dir.file(name); }
};

}  // namespace

TEST_CASE("A merge of two books is the book one build of both inputs makes", "[builder][merge]") {
  const bool overlap = GENERATE(false, true);
  const std::string min_games = GENERATE(std::string("1"), std::string("3"));
  INFO("overlap " << overlap << ", --min-games " << min_games);
  Halves h(overlap);
  const std::vector<std::string> opts = {"--max-ply", "30", "--min-games", min_games, "--index-games"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), opts.begin(), opts.end());
    return args;
  };
  build(with({h.file("a.book"), h.a}));
  build(with({h.file("b.book"), h.b}));
  build(with({h.file("union.book"), h.a, h.b}));
  Output o = graphbook({"merge", h.file("merged.book"), h.file("a.book"), h.file("b.book"), "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  auto summary = nlohmann::json::parse(o.out);
  CHECK(summary["shared_games"] == (overlap ? h.shared : 0));

  CHECK(exported(h.file("merged.book"), h.file("merged.bin")) ==
        exported(h.file("union.book"), h.file("union.bin")));
  CHECK(counts(h.file("merged.book")) == counts(h.file("union.book")));
  Output check = graphbook({"check", h.file("merged.book")});
  INFO(check.out << check.err);
  CHECK(check.status == 0);

  // The stored games of both books, numbered as the build numbers them: a
  // game of the second file only is matched with the same answer.
  const std::string game = h.dir.write("game.pgn", games_of(read_file(h.b)).back());
  Output merged = graphbook({"match", h.file("merged.book"), game, "--json"});
  Output built = graphbook({"match", h.file("union.book"), game, "--json"});
  REQUIRE(merged.status == 0);
  CHECK(merged.out == built.out);
}

TEST_CASE("A merge of books that share games and do not store them is refused, naming the number",
          "[builder][merge]") {
  Halves h(true);
  build({h.file("a.book"), h.a});
  build({h.file("b.book"), h.b});
  Output o = graphbook({"merge", h.file("merged.book"), h.file("a.book"), h.file("b.book")});
  CHECK(o.status == 2);
  CHECK(o.err.find(std::to_string(h.shared) + " of its games are in an earlier book") != std::string::npos);
  CHECK_FALSE(exists(h.file("merged.book")));
}

TEST_CASE("A merge of books built with another --max-ply or --color is refused", "[builder][merge]") {
  Halves h(false);
  build({h.file("a.book"), h.a, "--max-ply", "20"});
  build({h.file("b.book"), h.b, "--max-ply", "30"});
  build({h.file("w.book"), h.b, "--max-ply", "20", "--color", "white"});
  for (const char* other : {"b.book", "w.book"}) {
    Output o = graphbook({"merge", h.file("merged.book"), h.file("a.book"), h.file(other)});
    INFO(o.err);
    CHECK(o.status == 2);
    CHECK(o.err.find(other == std::string("b.book") ? "--max-ply 20" : "--color both") != std::string::npos);
    CHECK_FALSE(exists(h.file("merged.book")));
  }
  // Another --min-games is exact once merge is told which to use.
  build({h.file("m3.book"), h.b, "--max-ply", "20", "--min-games", "3"});
  CHECK(graphbook({"merge", h.file("merged.book"), h.file("a.book"), h.file("m3.book")}).status == 2);
  CHECK(graphbook({"merge", h.file("merged.book"), h.file("a.book"), h.file("m3.book"), "--min-games", "2"})
            .status == 0);
  build({h.file("union.book"), h.a, h.b, "--max-ply", "20", "--min-games", "2"});
  CHECK(counts(h.file("merged.book")) == counts(h.file("union.book")));
}

TEST_CASE("A merge into an existing book is refused and leaves it as it was", "[builder][merge]") {
  Halves h(false);
  build({h.file("a.book"), h.a});
  build({h.file("b.book"), h.b});
  const std::string before = read_file(h.file("b.book"));
  Output o = graphbook({"merge", h.file("b.book"), h.file("a.book"), h.file("b.book")});
  CHECK(o.status == 2);
  CHECK(o.err.find("exists") != std::string::npos);
  CHECK(read_file(h.file("b.book")) == before);
}

TEST_CASE("A merge killed with SIGKILL at random moments leaves no book or the whole book",
          "[builder][merge]") {
  Halves h(true);
  build({h.file("a.book"), h.a, "--max-ply", "0", "--index-games"});
  build({h.file("b.book"), h.b, "--max-ply", "0", "--index-games"});
  REQUIRE(graphbook({"merge", h.file("whole.book"), h.file("a.book"), h.file("b.book")}).status == 0);
  const std::string whole = exported(h.file("whole.book"), h.file("whole.bin"));
  std::mt19937 rng(20261201);
  int absent = 0, complete = 0;
  for (int round = 0; round < 12; ++round) {
    const std::string out = h.file("killed" + std::to_string(round) + ".book");
    pid_t pid =
        gb::test::spawn({gb::test::graphbook_binary(), "merge", out, h.file("a.book"), h.file("b.book")},
                        h.file("out"), h.file("err"));
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 150000)(rng)));
    ::kill(pid, SIGKILL);
    gb::test::wait_status(pid);
    if (!exists(out)) {
      ++absent;
      continue;
    }
    ++complete;
    const bool same_export = exported(out, h.file("killed.bin")) == whole;
    CHECK(same_export);
  }
  INFO(absent << " absent, " << complete << " complete");
  CHECK(absent + complete == 12);
  // The next merge into that path removes what the killed ones left beside it.
  REQUIRE(graphbook({"merge", h.file("again.book"), h.file("a.book"), h.file("b.book")}).status == 0);
}

TEST_CASE("A merge sums the books' learning counters", "[builder][merge]") {
  Halves h(false);
  build({h.file("a.book"), h.a});
  build({h.file("b.book"), h.b});
  auto games = games_of(read_file(h.a));
  const std::string played = h.dir.write("played.pgn", join(games, 0, 20));
  REQUIRE(graphbook({"learn", h.file("a.book"), played}).status == 0);
  REQUIRE(graphbook({"learn", h.file("b.book"), played}).status == 0);
  auto root_learning = [&](const std::string& book) {
    Output o = graphbook({"probe", book, "--json"});
    REQUIRE(o.status == 0);
    const nlohmann::json j = nlohmann::json::parse(o.out);
    return j["learning"];
  };
  const nlohmann::json a = root_learning(h.file("a.book")), b = root_learning(h.file("b.book"));
  REQUIRE(a["wins"].get<int>() + a["draws"].get<int>() + a["losses"].get<int>() > 0);
  REQUIRE(graphbook({"merge", h.file("merged.book"), h.file("a.book"), h.file("b.book")}).status == 0);
  const nlohmann::json m = root_learning(h.file("merged.book"));
  for (const char* field : {"wins", "draws", "losses"})
    CHECK(m[field] == a[field].get<int>() + b[field].get<int>());
}
