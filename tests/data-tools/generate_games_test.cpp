// data/tools/generate_games (the collections of bench/scale.sh): its games
// read through the real graphbook without an error, a seed gives the same
// bytes whatever the threads, and the tags and results are what
// docs/SCALE.md says. The games are read back with the library's PGN reader
// and the chess rules, not with the generator's own code.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "book/chess/movegen.h"
#include "book/pgn/reader.h"
#include "run_graphbook.h"

namespace {

using gb::test::quote;

gb::test::Run generate(const std::string& args) {
  return gb::test::run_shell("'" GENERATE_GAMES_BINARY "' " + args + " 2>&1");
}

// What a game says of itself: its tags, and its final position read with the PGN reader.
struct ReadGame {
  std::map<std::string, std::string> tags;
  std::string last_san;
  int plies = 0;
  bool mate = false, stalemate = false, insufficient = false;
  gb::pgn::Outcome outcome = gb::pgn::Outcome::Unknown;
  gb::pgn::SkipReason skipped = gb::pgn::SkipReason::None;
};

struct Collector : gb::pgn::VisitorBase {
  std::vector<ReadGame> games;
  std::vector<gb::Key> keys;  // the position after every ply
  void begin_game(const gb::pgn::GameLocation&) { games.emplace_back(); }
  void tag(std::string_view name, std::string_view value) { games.back().tags[std::string(name)] = value; }
  gb::pgn::Control move(const gb::pgn::MoveEvent& e) {
    if (e.depth == 0) {
      games.back().last_san = e.san;
      gb::Position after = e.before;
      gb::UndoInfo undo;
      after.do_move(e.move, undo);
      keys.push_back(after.key());
    }
    return gb::pgn::Control::Continue;
  }
  void end_game(const gb::pgn::GameEnd& end) {
    ReadGame& g = games.back();
    g.plies = end.plies;
    g.outcome = end.outcome;
    g.skipped = end.skipped;
    gb::MoveList legal;
    gb::generate_legal(end.final_position, legal);
    g.mate = legal.empty() && end.final_position.in_check();
    g.stalemate = legal.empty() && !end.final_position.in_check();
    g.insufficient = end.final_position.insufficient_material();
  }
};

Collector read_games(const std::string& path) {
  Collector c;
  gb::pgn::PgnReader reader(gb::pgn::ByteSource::open(path));
  REQUIRE(reader.read_all(c));
  return c;
}

// lichess's speed of a TimeControl tag: estimated duration base + 40 * increment.
std::string speed(const std::string& tc) {
  if (tc == "-") return "Correspondence";
  std::size_t plus = tc.find('+');
  REQUIRE(plus != std::string::npos);
  REQUIRE(tc.find_first_not_of("0123456789+") == std::string::npos);
  long duration = std::stol(tc.substr(0, plus)) + 40 * std::stol(tc.substr(plus + 1));
  return duration < 30     ? "UltraBullet"
         : duration < 180  ? "Bullet"
         : duration < 480  ? "Blitz"
         : duration < 1500 ? "Rapid"
                           : "Classical";
}

}  // namespace

TEST_CASE("generate_games writes 200 games that graphbook pgn-check and build read without one error",
          "[data-tools]") {
  gb::test::TempDir dir;
  std::string pgn = dir.file("games.pgn");
  gb::test::Run g = generate("--games 200 --seed 11 -o " + quote(pgn));
  INFO(g.out);
  REQUIRE(g.status == 0);

  gb::test::Run check = gb::test::graphbook("pgn-check " + quote(pgn) + " --json");
  INFO(check.out << check.err);
  REQUIRE(check.status == 0);
  auto files = nlohmann::json::parse(check.out)["files"];
  REQUIRE(files.size() == 1);
  auto summary = files[0];
  CHECK(summary["games"] == 200);
  CHECK(summary["kept"] == 200);
  CHECK(summary["skipped"] == 0);
  CHECK(summary["errors"] == 0);
  CHECK(summary["warnings"] == 0);

  gb::test::Run build = gb::test::graphbook("build " + quote(dir.file("g.book")) + " " + quote(pgn) +
                                            " --max-ply 0 --json --quiet");
  INFO(build.out << build.err);
  REQUIRE(build.status == 0);
  auto report = nlohmann::json::parse(build.out);
  CHECK(report["games_read"] == 200);
  CHECK(report["skipped"] == 0);
  CHECK(report["warnings"] == 0);
  CHECK(report["games_added"].get<int>() + report["duplicates"].get<int>() == 200);
}

TEST_CASE("generate_games: a seed gives the same bytes whatever --threads, another seed other bytes",
          "[data-tools]") {
  gb::test::TempDir dir;
  // More games than one thread's block (1024), so that three threads share them.
  auto bytes = [&](const std::string& args) {
    std::string out = dir.file("g" + std::to_string(std::hash<std::string>()(args)) + ".pgn");
    gb::test::Run r = generate("--games 2500 " + args + " -o " + quote(out));
    INFO(r.out);
    REQUIRE(r.status == 0);
    return gb::test::read_file(out);
  };
  std::string a = bytes("--seed 5 --threads 1");
  CHECK(std::count(a.begin(), a.end(), '\n') > 2500 * 15);
  CHECK(bytes("--seed 5 --threads 3") == a);
  CHECK(bytes("--seed 5 --threads 2") == a);
  CHECK(bytes("--seed 6 --threads 1") != a);
  // A smaller collection of the same seed is the start of a larger one (bench/scale.sh's sizes nest).
  std::string small = dir.file("small.pgn");
  REQUIRE(generate("--games 1000 --seed 5 -o " + quote(small)).status == 0);
  std::string s = gb::test::read_file(small);
  CHECK(a.compare(0, s.size(), s) == 0);
}

TEST_CASE("generate_games: tags, ratings, results and positions as docs/SCALE.md describes them",
          "[data-tools]") {
  gb::test::TempDir dir;
  std::string pgn = dir.file("games.pgn"), stats_file = dir.file("stats.json");
  gb::test::Run g = generate("--games 2000 --seed 3 --stats " + quote(stats_file) + " -o " + quote(pgn));
  INFO(g.out);
  REQUIRE(g.status == 0);
  Collector c = read_games(pgn);
  REQUIRE(c.games.size() == 2000);

  double elo_sum = 0, elo_squares = 0;
  int white = 0, black = 0, draws = 0, mates = 0;
  std::map<std::string, int> speeds;
  std::uint64_t plies = 0;
  for (std::size_t i = 0; i < c.games.size(); ++i) {
    const ReadGame& game = c.games[i];
    INFO("game " << i + 1);
    REQUIRE(game.skipped == gb::pgn::SkipReason::None);
    plies += std::uint64_t(game.plies);
    auto& t = game.tags;
    for (const char* name : {"Event", "Site", "Date", "Round", "White", "Black", "Result", "UTCDate",
                             "UTCTime", "WhiteElo", "BlackElo", "TimeControl", "Termination"})
      REQUIRE(t.count(name) == 1);
    // The Event names the speed that lichess's rule gives the TimeControl.
    std::string s = speed(t.at("TimeControl"));
    CHECK(t.at("Event") == "Rated " + s + " game");
    ++speeds[s];
    // A real date from 2013 to 2025, the same in Date and UTCDate.
    const std::string& date = t.at("Date");
    CHECK(date == t.at("UTCDate"));
    REQUIRE(date.size() == 10);
    int year = std::stoi(date.substr(0, 4)), month = std::stoi(date.substr(5, 2)),
        day = std::stoi(date.substr(8, 2));
    CHECK((year >= 2013 && year <= 2025));
    CHECK((month >= 1 && month <= 12));
    CHECK((day >= 1 && day <= 31));
    CHECK((t.at("Termination") == "Normal" || t.at("Termination") == "Time forfeit"));
    int we = std::stoi(t.at("WhiteElo")), be = std::stoi(t.at("BlackElo"));
    elo_sum += we + be;
    elo_squares += double(we) * we + double(be) * be;
    // The result tag and token agree, and the board's verdict is kept: mate wins, stalemate and bare kings
    // draw.
    const std::string& result = t.at("Result");
    CHECK(gb::pgn::to_string(game.outcome) == result);
    if (game.mate) {
      ++mates;
      CHECK(result == (game.plies % 2 == 1 ? "1-0" : "0-1"));
      CHECK(game.last_san.back() == '#');
    } else {
      CHECK(game.last_san.find('#') == std::string::npos);
    }
    if (game.stalemate || game.insufficient) CHECK(result == "1/2-1/2");
    (result == "1-0" ? white : result == "0-1" ? black : draws) += 1;
  }
  double n = 2.0 * double(c.games.size()), mean = elo_sum / n;
  double sd = std::sqrt(elo_squares / n - mean * mean);
  CHECK((mean > 1500 && mean < 1600));
  CHECK((sd > 250 && sd < 350));
  // About half White wins, a little less Black wins, a few draws; some games end in mate.
  CHECK((white > 880 && white < 1120));
  CHECK((black > 800 && black < 1050));
  CHECK((draws > 20 && draws < 200));
  CHECK(mates > 100);
  // Blitz the most, then Bullet, then Rapid; Classical, UltraBullet and Correspondence rare.
  CHECK(speeds["Blitz"] > speeds["Bullet"]);
  CHECK(speeds["Bullet"] > speeds["Rapid"]);
  CHECK(speeds["Rapid"] > speeds["Classical"] + speeds["UltraBullet"] + speeds["Correspondence"]);
  // Mean length near lichess's 33.3 moves.
  CHECK((double(plies) / double(c.games.size()) > 60 && double(plies) / double(c.games.size()) < 72));

  // --stats counts what the reader finds: plies, distinct positions.
  std::sort(c.keys.begin(), c.keys.end());
  auto distinct = double(std::unique(c.keys.begin(), c.keys.end()) - c.keys.begin());
  auto stats = nlohmann::json::parse(gb::test::read_file(stats_file));
  CHECK(stats["games"] == 2000);
  CHECK(stats["plies"] == plies);
  CHECK(stats["distinct_positions"] == distinct);
  CHECK(stats["unique_share"].get<double>() == Approx(distinct / double(plies)).margin(0.0001));
  CHECK(stats["white_wins"].get<double>() == Approx(white / 2000.0).margin(0.0001));
}

TEST_CASE("generate_games refuses a missing openings file and no games, naming them, with status 2",
          "[data-tools]") {
  gb::test::Run r = generate("--games 5 --openings /nonexistent/openings.pgn");
  CHECK(r.status == 2);
  CHECK(r.out.find("/nonexistent/openings.pgn") != std::string::npos);
  r = generate("--games 0");
  CHECK(r.status == 2);
  CHECK(r.out.find("--games") != std::string::npos);
  gb::test::TempDir dir;
  r = generate("--games 5 --openings " +
               quote(dir.write("tags.pgn", "[Event \"x\"]\n[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n\n*\n")));
  CHECK(r.status == 2);
  CHECK(r.out.find("no game from the standard start position") != std::string::npos);
}
