// Buckets end to end (docs/FORMAT.md, "Buckets"): a build counts every node
// and edge by the mover's rating band, the game's speed and its period;
// `probe` and `export` filter by them without a rebuild. The expected counts
// are computed here from the PGN's tags and moves (selected_games.h), never
// by graphbook; a filtered export is compared with the export of a book built
// from the same games with the same selection at build time.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "selected_games.h"

using namespace gb::test::buckets;

TEST_CASE("A filtered probe gives the counts of the selected games, computed from the PGN", "[buckets]") {
  TempDir dir;
  const std::string pgn = generate(dir, "games.pgn", 3000, 5);
  const std::vector<Game> games = read_games(pgn);
  REQUIRE(games.size() == 3000);
  const std::string book = dir.file("b.book");
  // Two threads and a small budget: the buckets spill and merge from run files.
  auto b = graphbook("build " + quote(book) + " " + quote(pgn) + " --max-ply " + std::to_string(kMaxPly) +
                     " --no-dedup --by-month --threads 2 --memory 1M --quiet");
  REQUIRE(b.status == 0);

  const std::vector<std::pair<std::string, Filter>> filters = {
      {"--ratings 2000,2200 --speeds blitz,rapid --since 2015 --until 2020-06",
       {{"2000", "2200"}, {"blitz", "rapid"}, 201500, 202006}},
      {"--ratings unrated,0,1600", {{"unrated", "0", "1600"}, {}, 0, 0}},
      {"--speeds bullet --since 2019-03", {{}, {"bullet"}, 201903, 0}},
      {"--until 2016", {{}, {}, 0, 201699}},
  };
  for (const char* moves : {"", "e4", "d4", "e4 c5", "e4 e5 Nf3"}) {
    gb::Position pos;
    for (std::string_view rest = moves; !rest.empty();) {
      auto sp = rest.find(' ');
      auto san = rest.substr(0, sp);
      auto parsed = gb::parse_san(pos, san);
      REQUIRE(parsed.move);
      gb::UndoInfo undo;
      pos.do_move(parsed.move, undo);
      rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    }
    for (const auto& [args, filter] : filters) {
      INFO("moves '" << moves << "' " << args);
      const Expected want = expected(games, pos.key(), filter);
      auto r = graphbook("probe " + quote(book) + " --moves " + quote(moves) + " " + args + " --json");
      if (want.node.games == 0) {
        CHECK(r.status == 1);
        continue;
      }
      REQUIRE(r.status == 0);
      auto j = nlohmann::json::parse(r.out);
      CHECK(counts_of(j) == want.node);
      std::map<std::string, Counts> got;
      for (const auto& m : j["moves"]) got[m["uci"].get<std::string>()] = counts_of(m);
      CHECK(got == want.moves);
    }
  }
  // Unfiltered, the probe answers from the totals: all games.
  auto all = graphbook("probe " + quote(book) + " --json");
  REQUIRE(all.status == 0);
  CHECK(nlohmann::json::parse(all.out)["games"] == 3000);
}

TEST_CASE("A filtered export equals the export of a book built with the same selection", "[buckets]") {
  TempDir dir;
  const std::string first = generate(dir, "a.pgn", 1500, 11);
  const std::string second = generate(dir, "b.pgn", 1500, 12);
  const std::string common = " --max-ply " + std::to_string(kMaxPly) + " --no-dedup --quiet";
  // The whole book in two steps (the buckets of the second added to the first's), by month.
  const std::string whole = dir.file("whole.book");
  REQUIRE(graphbook("build " + quote(whole) + " " + quote(first) + common + " --by-month").status == 0);
  REQUIRE(graphbook("build " + quote(whole) + " " + quote(second) + common).status == 0);
  // And by year, in one build, on one thread.
  const std::string years = dir.file("years.book");
  REQUIRE(graphbook("build " + quote(years) + " " + quote(first) + " " + quote(second) + common +
                    " --buckets --threads 1")
              .status == 0);

  struct Case {
    std::string book, build_selection, export_filter;
  };
  const Case cases[] = {
      {whole, "--since 2015 --until 2020-06", "--since 2015 --until 2020-06"},
      {whole, "--since 2019-02", "--since 2019-02"},
      {years, "--since 2016 --until 2019", "--since 2016 --until 2019"},
      {years, "--until 2017", "--until 2017"},
  };
  int n = 0;
  for (const Case& c : cases) {
    INFO(c.build_selection);
    const std::string selected = dir.file("selected" + std::to_string(n) + ".book");
    REQUIRE(graphbook("build " + quote(selected) + " " + quote(first) + " " + quote(second) + common + " " +
                      c.build_selection)
                .status == 0);
    for (const std::string& options : {std::string(), std::string(" --max-ply 8 --min-games 2"),
                                       std::string(" --uniform --color black")}) {
      INFO(options);
      const std::string want = dir.file("want" + std::to_string(n) + ".bin");
      const std::string got = dir.file("got" + std::to_string(n) + ".bin");
      ++n;
      REQUIRE(graphbook("export " + quote(selected) + " " + quote(want) + options).status == 0);
      REQUIRE(
          graphbook("export " + quote(c.book) + " " + quote(got) + " " + c.export_filter + options).status ==
          0);
      CHECK(bytes_of(want).size() > 16 * 50);  // a book of some entries, not two empty ones
      CHECK(bytes_of(got) == bytes_of(want));
    }
  }
}

TEST_CASE("Buckets leave the totals as they were: the unfiltered export is byte-identical", "[buckets]") {
  TempDir dir;
  const std::string pgn = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string with = dir.file("with.book"), without = dir.file("without.book");
  REQUIRE(graphbook("build " + quote(with) + " " + quote(pgn) + " --quiet --buckets").status == 0);
  REQUIRE(graphbook("build " + quote(without) + " " + quote(pgn) + " --quiet").status == 0);
  REQUIRE(graphbook("export " + quote(with) + " " + quote(dir.file("with.bin"))).status == 0);
  REQUIRE(graphbook("export " + quote(without) + " " + quote(dir.file("without.bin"))).status == 0);
  CHECK(bytes_of(dir.file("with.bin")) == bytes_of(dir.file("without.bin")));
  CHECK(graphbook("probe " + quote(with) + " --moves e4").out ==
        graphbook("probe " + quote(without) + " --moves e4").out);
  auto info = graphbook("info " + quote(with) + " --json");
  REQUIRE(info.status == 0);
  auto j = nlohmann::json::parse(info.out);
  CHECK(j["buckets"]["keys"].get<int>() == j["nodes"].get<int>());
  CHECK(nlohmann::json::parse(graphbook("info " + quote(without) + " --json").out)["buckets"].is_null());
}

TEST_CASE("A book without buckets refuses a filter with a clear message and status 2", "[buckets]") {
  TempDir dir;
  const std::string pgn = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string book = dir.file("old.book");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(pgn) + " --quiet").status == 0);  // no --buckets
  auto probe = graphbook("probe " + quote(book) + " --moves e4 --ratings 2500");
  CHECK(probe.status == 2);
  CHECK(probe.err.find(book + " was built without buckets; rebuild it") != std::string::npos);
  auto exported = graphbook("export " + quote(book) + " " + quote(dir.file("x.bin")) + " --since 2010");
  CHECK(exported.status == 2);
  CHECK(exported.err.find(book + " was built without buckets; rebuild it") != std::string::npos);
  // A later build into it adds no buckets (they would not add up to its totals) ...
  REQUIRE(graphbook("build " + quote(book) + " " +
                    quote(gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn")) + " --quiet")
              .status == 0);
  CHECK(graphbook("probe " + quote(book) + " --speeds blitz").status == 2);
  // ... and --buckets and --by-month are refused.
  for (const char* option : {"--buckets", "--by-month"}) {
    auto refused = graphbook("build " + quote(book) + " " + quote(pgn) + " " + option + " --quiet");
    CHECK(refused.status == 2);
    CHECK(refused.err.find(book + " was built without buckets: " + option + " needs a new book") !=
          std::string::npos);
  }

  // A book of years cannot answer months; a bad word names the option.
  const std::string years = dir.file("years.book");
  REQUIRE(graphbook("build " + quote(years) + " " + quote(pgn) + " --quiet --buckets").status == 0);
  auto month = graphbook("probe " + quote(years) + " --until 2020-06");
  CHECK(month.status == 2);
  CHECK(month.err.find("--by-month") != std::string::npos);
  auto word = graphbook("probe " + quote(years) + " --speeds slow");
  CHECK(word.status == 2);
  CHECK(word.err.find("--speeds slow") != std::string::npos);
  // A later build into a book with buckets counts them without being asked: they add up to its totals.
  const std::string carlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");
  REQUIRE(graphbook("build " + quote(years) + " " + quote(carlsen) + " --quiet").status == 0);
  auto all = nlohmann::json::parse(graphbook("probe " + quote(years) + " --moves e4 --json").out);
  auto every_band = nlohmann::json::parse(
      graphbook("probe " + quote(years) + " --moves e4 --json --ratings unrated,0,1600,1800,2000,2200,2500")
          .out);
  REQUIRE(all["moves"].size() > 3);
  CHECK(every_band["moves"] == all["moves"]);
  auto by_month_again = graphbook("build " + quote(years) + " " + quote(pgn) + " --by-month --quiet");
  CHECK(by_month_again.status == 2);
  CHECK(by_month_again.err.find("keeps years in its buckets") != std::string::npos);
}

TEST_CASE("merge sums the buckets: its filtered export equals that of one build of all the inputs",
          "[buckets]") {
  TempDir dir;
  const std::string a = generate(dir, "a.pgn", 1000, 21);
  const std::string b = generate(dir, "b.pgn", 1000, 22);
  const std::string common = " --max-ply " + std::to_string(kMaxPly) + " --by-month --index-games --quiet";
  const std::string one = dir.file("one.book"), first = dir.file("first.book"), both = dir.file("both.book");
  REQUIRE(graphbook("build " + quote(one) + " " + quote(a) + " " + quote(b) + common).status == 0);
  REQUIRE(graphbook("build " + quote(first) + " " + quote(a) + common).status == 0);
  // The second book holds a.pgn's games too: the merge counts them once.
  REQUIRE(graphbook("build " + quote(both) + " " + quote(a) + " " + quote(b) + common).status == 0);
  const std::string merged = dir.file("merged.book");
  auto m = graphbook("merge " + quote(merged) + " " + quote(first) + " " + quote(both));
  REQUIRE(m.status == 0);
  int n = 0;
  for (const std::string& filter :
       {std::string("--since 2016 --until 2021-03"), std::string("--ratings 2000,2200"),
        std::string("--speeds blitz --ratings unrated,0,1600,1800")}) {
    INFO(filter);
    const std::string want = dir.file("want" + std::to_string(n) + ".bin");
    const std::string got = dir.file("got" + std::to_string(n) + ".bin");
    ++n;
    REQUIRE(graphbook("export " + quote(one) + " " + quote(want) + " " + filter).status == 0);
    REQUIRE(graphbook("export " + quote(merged) + " " + quote(got) + " " + filter).status == 0);
    CHECK(bytes_of(want).size() > 16 * 50);
    CHECK(bytes_of(got) == bytes_of(want));
    const std::string probe = " --moves e4 " + filter + " --json";
    CHECK(nlohmann::json::parse(graphbook("probe " + quote(merged) + probe).out)["moves"] ==
          nlohmann::json::parse(graphbook("probe " + quote(one) + probe).out)["moves"]);
  }
  // A book of games without buckets does not merge with one that has them.
  const std::string old = dir.file("old.book");
  REQUIRE(
      graphbook("build " + quote(old) + " " + quote(b) + " --max-ply " + std::to_string(kMaxPly) + " --quiet")
          .status == 0);
  auto refused = graphbook("merge " + quote(dir.file("no.book")) + " " + quote(first) + " " + quote(old));
  CHECK(refused.status == 2);
  CHECK(refused.err.find(old + " has none") != std::string::npos);
}
