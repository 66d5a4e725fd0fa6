// `graphbook retract BOOK SOURCE`: the book without a source is the book a
// build of its other inputs makes (its Polyglot export byte for byte, its
// counts in info, its answers to a filtered probe), a book that cannot lose
// the source exactly is refused and left as it was, and a retract killed
// at any moment leaves the book before or after it. Also `build --source`
// and the sources `info` lists, against the PGN's own tags.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <random>
#include <regex>
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

// twic0920 cut in three files of consecutive games.
struct Thirds {
  TempDir dir{"graphbook-retract"};
  std::vector<std::string> games;
  std::string p1, p2, p3;
  Thirds() {
    games = games_of(read_file(gb::test::data_path("pgn/small/twic0920.pgn")));
    REQUIRE(games.size() == 2245);
    const std::size_t n = games.size();
    p1 = dir.write("p1.pgn", join(games, 0, n / 3));
    p2 = dir.write("p2.pgn", join(games, n / 3, 2 * n / 3));
    p3 = dir.write("p3.pgn", join(games, 2 * n / 3, n));
  }
  std::string file(const std::string& name) const { return dir.file(name); }
};

// What info says of the counts, and of the sources in the book (not the
// records of retracted inputs, which the book keeps).
nlohmann::json book_counts(const std::string& book) {
  nlohmann::json c = counts(book);
  c.erase("sources");
  c["source_totals"] = info_json(book)["source_totals"];
  return c;
}

Output retract(const std::string& book, const std::string& source) {
  return graphbook({"retract", book, source, "--json"});
}

std::string bytes(const std::string& path) { return read_file(path); }

}  // namespace

TEST_CASE("A retracted source leaves the book a build of the other inputs makes", "[builder][retract]") {
  const std::string min_games = GENERATE(std::string("1"), std::string("3"));
  INFO("--min-games " << min_games);
  Thirds t;
  const std::vector<std::string> opts = {"--buckets", "--index-games", "--min-games", min_games};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), opts.begin(), opts.end());
    return args;
  };
  // The middle third is the source, added by a build of its own between the others.
  build(with({t.file("book"), t.p1}));
  build(with({t.file("book"), t.p2, "--source", "middle"}));
  build(with({t.file("book"), t.p3}));
  build(with({t.file("without"), t.p1}));
  build(with({t.file("without"), t.p3}));
  REQUIRE(exported(t.file("book"), t.file("book.bin")) != exported(t.file("without"), t.file("without.bin")));

  Output o = retract(t.file("book"), "middle");
  INFO(o.err);
  REQUIRE(o.status == 0);
  auto report = nlohmann::json::parse(o.out);
  CHECK(report["games"] == games_of(read_file(t.p2)).size());
  CHECK(report["stored_games"] == report["games"]);
  CHECK(report["fingerprints"] == report["games"]);

  CHECK(exported(t.file("book"), t.file("book.bin")) == exported(t.file("without"), t.file("without.bin")));
  // make-book's -min-game 1 export sees the counts below --min-games too
  auto all = [&](const std::string& book) {
    Output e = graphbook({"export", t.file(book), t.file(book + "-1.bin"), "--min-games", "1"});
    REQUIRE(e.status == 0);
    return bytes(t.file(book + "-1.bin"));
  };
  CHECK(all("book") == all("without"));
  CHECK(book_counts(t.file("book")) == book_counts(t.file("without")));
  Output check = graphbook({"check", t.file("book")});
  INFO(check.out << check.err);
  CHECK(check.status == 0);

  // Filtered answers come from the buckets left.
  auto probe = [&](const std::string& book) {
    Output p = graphbook({"probe", t.file(book), "--moves", "e4", "--since", "2012", "--json"});
    REQUIRE(p.status == 0);
    auto j = nlohmann::json::parse(p.out);
    return j["moves"];
  };
  CHECK(probe("book") == probe("without"));

  // The stored games are those of the other inputs, numbered as a build numbers them.
  // (source_index is the place of the game's input among the book's records,
  // which keep the retracted one; the source's name is the same.)
  auto match = [&](const std::string& book, const std::string& game) {
    Output m = graphbook({"match", t.file(book), game, "--json"});
    INFO(m.err);
    REQUIRE(m.status == 0);
    std::string out = std::regex_replace(m.out, std::regex(R"re("source_index": \d+)re"), "");
    REQUIRE(out != m.out);
    return out;
  };
  const std::string game = t.dir.write("game.pgn", games_of(read_file(t.p3)).back());
  CHECK(match("book", game) == match("without", game));
  const std::string retracted_game = t.dir.write("retracted.pgn", games_of(read_file(t.p2)).front());
  CHECK(match("book", retracted_game) == match("without", retracted_game));

  // Its fingerprints are gone: the same file adds its games again, as a
  // build of p1, p3 then p2 does.
  build(with({t.file("book"), t.p2}));
  build(with({t.file("without"), t.p2}));
  CHECK(exported(t.file("book"), t.file("book.bin")) == exported(t.file("without"), t.file("without.bin")));
  CHECK(info_json(t.file("book"))["games"] == t.games.size());
}

TEST_CASE("A source of several files is retracted whole, and a second retract finds none",
          "[builder][retract]") {
  Thirds t;
  build({t.file("book"), t.p1, t.p3, "--source", "odd", "--buckets", "--index-games"});
  build({t.file("book"), t.p2, "--source", "even"});  // more of the book, without stored games
  build({t.file("without"), t.p2, "--buckets"});
  Output o = retract(t.file("book"), "odd");
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(nlohmann::json::parse(o.out)["files"] == 2);
  CHECK(exported(t.file("book"), t.file("book.bin")) == exported(t.file("without"), t.file("without.bin")));
  auto totals = info_json(t.file("book"))["source_totals"];
  REQUIRE(totals.size() == 1);
  CHECK(totals[0]["name"] == "even");

  Output again = retract(t.file("book"), "odd");
  CHECK(again.status == 2);
  CHECK(again.err.find("has no source 'odd' (its sources: even)") != std::string::npos);
}

TEST_CASE("A book that cannot lose a source exactly is refused and left as it was", "[builder][retract]") {
  Thirds t;
  auto refused = [&](const std::string& book, const std::string& source, const std::string& words) {
    const std::string before = bytes(book);
    Output o = retract(book, source);
    INFO(o.err);
    CHECK(o.status == 2);
    CHECK(o.err.find(words) != std::string::npos);
    CHECK(bytes(book) == before);
  };
  SECTION("no buckets") {
    build({t.file("book"), t.p1, "--index-games"});
    refused(t.file("book"), t.p1, "was built without buckets");
  }
  SECTION("fingerprints of games it did not store") {
    build({t.file("book"), t.p1, "--buckets", "--index-games"});
    build({t.file("book"), t.p2, "--source", "later"});
    refused(t.file("book"), "later",
            std::to_string(games_of(read_file(t.p2)).size()) + " games of 'later' are not stored");
  }
  SECTION("a later input skipped copies of its games") {
    build({t.file("book"), t.p1, "--buckets", "--index-games"});
    // p3 with the first game of p1 again: a duplicate a book without p1 would count
    const std::string copy = t.dir.write("copy.pgn", games_of(read_file(t.p1)).front() + read_file(t.p3));
    build({t.file("book"), copy, "--index-games"});
    REQUIRE(info_json(t.file("book"))["duplicates_skipped"] == 1);
    refused(t.file("book"), t.p1, "1 games were skipped as duplicates after the source was added");
  }
  SECTION("a name that is no source") {
    build({t.file("book"), t.p1, "--buckets", "--index-games"});
    refused(t.file("book"), "nobody", "has no source 'nobody'");
  }
}

TEST_CASE("A source's own duplicates leave the book's count with it", "[builder][retract]") {
  Thirds t;
  // p2 repeats p1's first game: a duplicate of an earlier input, skipped in p2.
  const std::string p2 = t.dir.write("p2dup.pgn", games_of(read_file(t.p1)).front() + read_file(t.p2));
  build({t.file("book"), t.p1, "--buckets", "--index-games"});
  build({t.file("book"), p2, "--source", "two", "--index-games"});
  build({t.file("without"), t.p1, "--buckets", "--index-games"});
  REQUIRE(info_json(t.file("book"))["duplicates_skipped"] == 1);
  Output o = retract(t.file("book"), "two");
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(nlohmann::json::parse(o.out)["duplicates"] == 1);
  CHECK(book_counts(t.file("book")) == book_counts(t.file("without")));
  CHECK(exported(t.file("book"), t.file("book.bin")) == exported(t.file("without"), t.file("without.bin")));
}

TEST_CASE("A retract killed with SIGKILL at random moments leaves the book before or after it",
          "[builder][retract]") {
  Thirds t;
  build({t.file("before"), t.p1, "--buckets", "--index-games", "--max-ply", "0"});
  build({t.file("before"), t.p2, "--source", "two", "--index-games"});
  build({t.file("after"), t.p1, "--buckets", "--index-games", "--max-ply", "0"});
  const std::string before = exported(t.file("before"), t.file("before.bin"));
  const std::string after = exported(t.file("after"), t.file("after.bin"));
  REQUIRE(before != after);
  std::mt19937 rng(20261201);
  int unchanged = 0, retracted = 0;
  for (int round = 0; round < 10; ++round) {
    const std::string book = t.file("killed" + std::to_string(round));
    REQUIRE(std::system(("cp '" + t.file("before") + "' '" + book + "'").c_str()) == 0);
    pid_t pid =
        gb::test::spawn({gb::test::graphbook_binary(), "retract", book, "two"}, t.file("out"), t.file("err"));
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 400000)(rng)));
    ::kill(pid, SIGKILL);
    gb::test::wait_status(pid);
    const std::string now = exported(book, t.file("killed.bin"));
    const bool whole = now == before || now == after;
    CHECK(whole);
    (now == before ? unchanged : retracted) += 1;
    Output check = graphbook({"check", book});
    INFO(check.out << check.err);
    CHECK(check.status == 0);
  }
  INFO(unchanged << " unchanged, " << retracted << " retracted");
  CHECK(unchanged + retracted == 10);
}

TEST_CASE("info lists each source with its games, first and last date and share, from the PGN's tags",
          "[builder][retract]") {
  Thirds t;
  build({t.file("book"), t.p1, t.p2, "--source", "early"});
  build({t.file("book"), t.p3});
  // Expected: the games and the Date tags of each file, read here.
  struct Expected {
    std::size_t games = 0;
    std::string first = "9999.99.99", last = "0000.00.00";
  };
  auto expect = [](const std::vector<std::string>& files) {
    Expected e;
    const std::regex date(R"re(\[Date "(\d{4}\.\d\d\.\d\d)"\])re");
    for (const auto& f : files)
      for (const std::string& g : games_of(read_file(f))) {
        ++e.games;
        std::smatch m;
        if (!std::regex_search(g, m, date)) continue;
        e.first = std::min(e.first, m[1].str());
        e.last = std::max(e.last, m[1].str());
      }
    return e;
  };
  const Expected early = expect({t.p1, t.p2}), late = expect({t.p3});
  REQUIRE(early.games > 0);
  REQUIRE(late.games > 0);
  const auto totals = info_json(t.file("book"))["source_totals"];
  REQUIRE(totals.size() == 2);
  CHECK(totals[0]["name"] == "early");
  CHECK(totals[0]["files"] == 2);
  CHECK(totals[0]["games"] == early.games);
  CHECK(totals[0]["first_date"] == early.first);
  CHECK(totals[0]["last_date"] == early.last);
  CHECK(totals[0]["share"].get<double>() == Approx(double(early.games) / double(early.games + late.games)));
  CHECK(totals[1]["name"] == t.p3);
  CHECK(totals[1]["games"] == late.games);
  CHECK(totals[1]["first_date"] == late.first);
  CHECK(totals[1]["last_date"] == late.last);
  Output text = graphbook({"info", t.file("book")});
  CHECK(text.out.find("early: 2 files, " + std::to_string(early.games) + " games") != std::string::npos);
}
