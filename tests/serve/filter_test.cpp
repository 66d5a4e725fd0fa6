// serve's bucket filters (docs/SERVE.md, "Filters"): /masters and /lichess
// take lichess's ratings, speeds, since and until, and `serve --ratings ...`
// sets them for every request that does not give its own. The expected
// counts are made from the games this test writes (tagged_games.h): each
// game's tags (ratings, time control, date) classed with lichess's thresholds
// written out there, its moves replayed with the chess core; never by
// graphbook.
#include <catch2/catch.hpp>

#include "serve_helpers.h"
#include "tagged_games.h"

using namespace gb;
using namespace gb::test;
using Json = nlohmann::json;

namespace {

Counts counts_of(const Json& j) {
  return {j["white"].get<int>(), j["draws"].get<int>(), j["black"].get<int>()};
}

void check_answer(const Json& j, const Expected& e) {
  REQUIRE(j.is_object());
  CHECK(counts_of(j) == e.node);
  std::map<std::string, Counts> served;
  for (const Json& m : j["moves"]) served[m["uci"].get<std::string>()] = counts_of(m);
  CHECK(served == e.moves);
}

struct Books {
  std::vector<TaggedGame> games;
  std::string months, years, plain;  // --buckets --by-month, --buckets, no buckets
};
const Books& books() {
  static TempDir dir("graphbook-serve-filters");
  static const Books b = [] {
    Books b;
    b.games = make_games();
    std::string pgn = write_pgn(b.games, dir.file("games.pgn"));
    b.months = dir.file("months.book");
    b.years = dir.file("years.book");
    b.plain = dir.file("plain.book");
    for (auto [book, flags] :
         {std::pair{b.months, " --buckets --by-month"}, {b.years, " --buckets"}, {b.plain, ""}})
      REQUIRE(graphbook("build " + quote(book) + " " + quote(pgn) + " --quiet" + flags).status == 0);
    return b;
  }();
  return b;
}

}  // namespace

TEST_CASE("serve filters /masters and /lichess by ratings, speeds, since and until from the book's buckets",
          "[serve]") {
  const Books& b = books();
  ServerProcess server(b.months);
  REQUIRE(!server.url.empty());
  struct Case {
    std::string query;
    std::vector<std::string> play;
    Filter filter;
  };
  const std::vector<Case> cases = {
      {"ratings=2000,2200&speeds=blitz,rapid&since=2015&until=2020-06",
       {},
       {{"2000", "2200"}, {"blitz", "rapid"}, 201500, 202006}},
      {"ratings=2000,2200&speeds=blitz,rapid&since=2015&until=2020-06",
       {"e2e4"},
       {{"2000", "2200"}, {"blitz", "rapid"}, 201500, 202006}},
      // lichess spells ultraBullet so; a month bound of a book of months.
      {"speeds=ultraBullet,bullet&since=2016-03", {"d2d4"}, {{}, {"ultrabullet", "bullet"}, 201603, 0}},
      {"ratings=unrated,0,1600", {"e2e4", "c7c5"}, {{"unrated", "0", "1600"}, {}, 0, 0}},
      {"until=2016", {}, {{}, {}, 0, 201699}},
  };
  for (const Case& c : cases) {
    std::string play;
    for (const auto& u : c.play) play += (play.empty() ? "" : ",") + u;
    for (const char* route : {"/masters", "/lichess"}) {
      std::string url = server.url + route + "?play=" + play + "&moves=50&" + c.query;
      INFO(url);
      HttpAnswer a = http(url);
      REQUIRE(a.status == 200);
      Expected e = expected(b.games, c.play, c.filter);
      REQUIRE(e.node.white + e.node.draws + e.node.black > 0);  // the case selects some games ...
      check_answer(a.json(), e);
      CHECK(a.json()["filter"].is_object());
    }
  }
  // ... and leaves some out: the unfiltered answer is all the games.
  Expected all = expected(b.games, {}, Filter{});
  CHECK(all.node.white + all.node.draws + all.node.black == int(b.games.size()));
  check_answer(http(server.url + "/masters?moves=50").json(), all);
  CHECK(http(server.url + "/masters").json().count("filter") == 0);
  // The page learns that this book can filter.
  Json info = http(server.url + "/api/info").json();
  CHECK(info["buckets"] == Json{{"by_month", true}});
  CHECK(info["filter"].is_null());
}

TEST_CASE("serve --ratings and --speeds filter every request that does not name them itself", "[serve]") {
  const Books& b = books();
  ServerProcess server(b.months, {"--ratings", "2000,2200", "--speeds", "blitz"});
  REQUIRE(!server.url.empty());
  const Filter by_default{{"2000", "2200"}, {"blitz"}, 0, 0};
  check_answer(http(server.url + "/masters?play=e2e4&moves=50").json(),
               expected(b.games, {"e2e4"}, by_default));
  // A request's own value replaces the default it names, and keeps the others.
  check_answer(http(server.url + "/masters?play=e2e4&moves=50&ratings=1600").json(),
               expected(b.games, {"e2e4"}, {{"1600"}, {"blitz"}, 0, 0}));
  // Empty: every band (the page sends both always).
  check_answer(http(server.url + "/masters?play=e2e4&moves=50&ratings=&speeds=").json(),
               expected(b.games, {"e2e4"}, Filter{}));
  Json info = http(server.url + "/api/info").json();
  CHECK(info["filter"]["ratings"] == "2000,2200");
  CHECK(info["filter"]["speeds"] == "blitz");
}

TEST_CASE("serve answers a filter the book cannot answer, and a bad one, with 400 naming why", "[serve]") {
  const Books& b = books();
  {
    ServerProcess plain(b.plain);
    REQUIRE(!plain.url.empty());
    for (const char* query : {"ratings=2000", "speeds=blitz", "ratings=2000&since=2015"}) {
      INFO(query);
      HttpAnswer a = http(plain.url + "/masters?" + query);
      CHECK(a.status == 400);
      CHECK(a.json()["error"].get<std::string>().find("was built without buckets") != std::string::npos);
    }
    // since and until alone choose topGames, as before the buckets: the counts are all the games.
    HttpAnswer dated = http(plain.url + "/masters?since=2015&moves=50");
    CHECK(dated.status == 200);
    check_answer(dated.json(), expected(b.games, {}, Filter{}));
    CHECK(http(plain.url + "/api/info").json()["buckets"].is_null());
  }
  ServerProcess years(b.years);
  REQUIRE(!years.url.empty());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"ratings=1400", "ratings"},      {"ratings=2000,,2200", "ratings"},
      {"speeds=hyperbullet", "speeds"}, {"since=2015-13", "since"},
      {"until=20x", "until"},           {"since=2020&until=2015", "since"},
      {"since=2015-03", "hold years"},  // the store's refusal: a book of years
  };
  for (const auto& [query, word] : bad) {
    INFO(query);
    HttpAnswer a = http(years.url + "/lichess?" + query);
    CHECK(a.status == 400);
    Json j = a.json();
    REQUIRE(j.is_object());
    CHECK(j["error"].get<std::string>().find(word) != std::string::npos);
  }
  // The year book answers whole years.
  check_answer(http(years.url + "/masters?since=2016&until=2020&moves=50").json(),
               expected(b.games, {}, {{}, {}, 201600, 202099}));
  CHECK(http(years.url + "/health").status == 200);
}

TEST_CASE("serve refuses at start a default filter the book cannot answer, with exit status 2", "[serve]") {
  const Books& b = books();
  // timeout: a server that wrongly started would otherwise serve until the test's own limit.
  auto start = [](const std::string& book, const std::string& flags) {
    return run_shell("timeout 30 " + quote(graphbook_binary()) + " serve " + quote(book) +
                     " --listen 127.0.0.1:0 " + flags + " 2>&1");
  };
  Run plain = start(b.plain, "--ratings 2000");
  CHECK(plain.status == 2);
  CHECK(plain.out.find("graphbook serve: " + b.plain + " was built without buckets") != std::string::npos);
  Run years = start(b.years, "--since 2015-03");
  CHECK(years.status == 2);
  CHECK(years.out.find("hold years") != std::string::npos);
  Run bad = start(b.months, "--speeds hyperbullet");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("--speeds") != std::string::npos);
}

TEST_CASE("serve --weight SOURCE=0 answers from the other sources' games, and an unknown source stops it",
          "[serve]") {
  const Books& b = books();
  TempDir dir("graphbook-serve-weights");
  const std::size_t half = b.games.size() / 2;
  const std::vector<TaggedGame> first(b.games.begin(), b.games.begin() + std::ptrdiff_t(half)),
      second(b.games.begin() + std::ptrdiff_t(half), b.games.end());
  REQUIRE(!first.empty());
  REQUIRE(!second.empty());
  // --no-dedup: the generated games may repeat one another, and a copy in the
  // second half of a game of the first would be skipped as a duplicate.
  const std::string book = dir.file("two.book");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(write_pgn(first, dir.file("first.pgn"))) +
                    " --buckets --source early --quiet --no-dedup")
              .status == 0);
  REQUIRE(graphbook("build " + quote(book) + " " + quote(write_pgn(second, dir.file("second.pgn"))) +
                    " --quiet --no-dedup")
              .status == 0);
  {
    ServerProcess server(book, {"--weight", "early=0"});
    REQUIRE(!server.url.empty());
    for (const std::vector<std::string>& play : {std::vector<std::string>{}, {"e2e4"}}) {
      std::string p;
      for (const auto& u : play) p += (p.empty() ? "" : ",") + u;
      Expected e = expected(second, play, Filter{});
      REQUIRE(e.node.white + e.node.draws + e.node.black > 0);
      check_answer(http(server.url + "/lichess?moves=50&play=" + p).json(), e);
    }
  }
  Run unknown = run_shell("timeout 30 " + quote(graphbook_binary()) + " serve " + quote(book) +
                          " --listen 127.0.0.1:0 --weight nobody=1 2>&1");
  CHECK(unknown.status == 2);
  CHECK(unknown.out.find("no source 'nobody'") != std::string::npos);
}
