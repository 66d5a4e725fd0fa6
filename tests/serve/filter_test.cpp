// serve's bucket filters (docs/SERVE.md, "Filters"): /masters and /lichess
// take lichess's ratings, speeds, since and until, and `serve --ratings ...`
// sets them for every request that does not give its own. The expected
// counts are made here from the games this test writes: each game's tags
// (ratings, time control, date) classed with lichess's thresholds written out
// below, its moves replayed with the chess core; never by graphbook.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "serve_helpers.h"

using namespace gb;
using namespace gb::test;
using Json = nlohmann::json;

namespace {

struct TaggedGame {
  int white_elo = 0, black_elo = 0;  // 0: no tag
  std::string time_control;          // "": no tag
  std::string date;
  std::string result;
  std::vector<std::string> sans;
};

// The games: every combination drawn from a small generator, so that each
// filter below keeps some games and leaves some out at every position asked.
std::vector<TaggedGame> make_games() {
  const std::vector<std::vector<std::string>> lines = {{"e4", "e5", "Nf3", "Nc6"}, {"e4", "c5", "Nf3", "d6"},
                                                       {"e4", "e6", "d4", "d5"},   {"d4", "d5", "c4", "e6"},
                                                       {"d4", "Nf6", "c4", "g6"},  {"Nf3", "d5", "g3"},
                                                       {"c4", "e5", "Nc3"},        {"e4", "c6", "d4", "d5"}};
  const int elos[] = {0, 1500, 1700, 1900, 2100, 2300, 2600};
  const char* controls[] = {"", "60+0", "180+2", "600+0", "1800+30", "-", "15+0"};
  const char* dates[] = {"2013.05.01", "2015.01.12", "2016.03.??", "2019.11.20",
                         "2020.06.30", "2020.07.01", "2021.02.03", "????.??.??"};
  const char* results[] = {"1-0", "0-1", "1/2-1/2"};
  std::vector<TaggedGame> games;
  std::uint32_t x = 12345;
  auto next = [&](std::uint32_t n) {
    x = x * 1103515245u + 12345u;
    return (x >> 16) % n;
  };
  for (int i = 0; i < 600; ++i) {
    TaggedGame g;
    g.sans = lines[next(lines.size())];
    g.white_elo = elos[next(7)];
    g.black_elo = elos[next(7)];
    g.time_control = controls[next(7)];
    g.date = dates[next(8)];
    g.result = results[next(3)];
    games.push_back(g);
  }
  return games;
}

std::string write_pgn(const std::vector<TaggedGame>& games, const std::string& path) {
  std::ofstream out(path);
  int round = 0;
  for (const TaggedGame& g : games) {
    ++round;
    out << "[Event \"filters\"]\n[Round \"" << round << "\"]\n[White \"w" << round << "\"]\n[Black \"b"
        << round << "\"]\n[Date \"" << g.date << "\"]\n[Result \"" << g.result << "\"]\n";
    if (g.white_elo) out << "[WhiteElo \"" << g.white_elo << "\"]\n";
    if (g.black_elo) out << "[BlackElo \"" << g.black_elo << "\"]\n";
    if (!g.time_control.empty()) out << "[TimeControl \"" << g.time_control << "\"]\n";
    out << "\n";
    for (std::size_t i = 0; i < g.sans.size(); ++i)
      out << (i % 2 == 0 ? std::to_string(i / 2 + 1) + ". " : "") << g.sans[i] << " ";
    out << g.result << "\n\n";
  }
  return path;
}

// lichess's classes: base + 40 x increment seconds (scalachess), its rating bands.
std::string speed_of(const std::string& tc) {
  if (tc == "-") return "correspondence";
  auto plus = tc.find('+');
  if (plus == std::string::npos) return "unknown";
  int total = std::stoi(tc.substr(0, plus)) + 40 * std::stoi(tc.substr(plus + 1));
  return total < 30      ? "ultrabullet"
         : total < 180   ? "bullet"
         : total < 480   ? "blitz"
         : total < 1500  ? "rapid"
         : total < 21600 ? "classical"
                         : "correspondence";
}
std::string band_of(int elo) {
  if (elo <= 0) return "unrated";
  for (int low : {2500, 2200, 2000, 1800, 1600})
    if (elo >= low) return std::to_string(low);
  return "0";
}
int yyyymm_of(const std::string& date) {
  if (date[0] == '?') return 0;
  return std::stoi(date.substr(0, 4)) * 100 + (date[5] == '?' ? 0 : std::stoi(date.substr(5, 2)));
}

struct Filter {
  std::set<std::string> bands, speeds;
  int since = 0, until = 0;  // yyyymm, 0: none (a year's month 00 or 99)
  bool keeps(const TaggedGame& g, Color mover) const {
    if (!bands.empty() && !bands.count(band_of(mover == Color::White ? g.white_elo : g.black_elo)))
      return false;
    if (!speeds.empty() && !speeds.count(speed_of(g.time_control))) return false;
    int at = yyyymm_of(g.date);
    if ((since || until) && at == 0) return false;
    return (!since || at >= since) && (!until || at <= until);
  }
};

struct Counts {
  int white = 0, draws = 0, black = 0;
  bool operator==(const Counts&) const = default;
};
struct Expected {
  Counts node;
  std::map<std::string, Counts> moves;  // uci -> its games
};
void count(Counts& c, const std::string& result) {
  c.white += result == "1-0";
  c.draws += result == "1/2-1/2";
  c.black += result == "0-1";
}

// The games that reach the position after `play` (replayed), kept by the filter for its mover.
Expected expected(const std::vector<TaggedGame>& games, const std::vector<std::string>& play,
                  const Filter& f) {
  Position target;
  for (const auto& u : play) {
    UndoInfo undo;
    target.do_move(*parse_uci(target, u), undo);
  }
  Expected e;
  for (const TaggedGame& g : games) {
    Position pos;
    for (std::size_t i = 0; i <= g.sans.size(); ++i) {
      if (pos.key() == target.key()) {
        if (!f.keeps(g, pos.side_to_move())) break;
        count(e.node, g.result);
        if (i < g.sans.size()) count(e.moves[to_uci(parse_san(pos, g.sans[i]).move, false)], g.result);
        break;
      }
      if (i == g.sans.size()) break;
      auto parsed = parse_san(pos, g.sans[i]);
      REQUIRE(parsed.ok());
      UndoInfo undo;
      pos.do_move(parsed.move, undo);
    }
  }
  return e;
}

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
