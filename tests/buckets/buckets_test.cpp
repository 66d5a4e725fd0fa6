// Buckets end to end (docs/FORMAT.md, "Buckets"): a build counts every node
// and edge by the mover's rating band, the game's speed and its period;
// `probe` and `export` filter by them without a rebuild. The expected counts
// are computed here from the PGN's tags and moves, read with the PGN reader
// and the chess library, with lichess's thresholds written out below, never
// by graphbook; a filtered export is compared with the export of a book built
// from the same games with the same selection at build time.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "book/chess/notation.h"
#include "book/pgn/reader.h"
#include "run_graphbook.h"

namespace {

using gb::test::graphbook;
using gb::test::quote;
using gb::test::TempDir;

constexpr int kMaxPly = 16;

// lichess's classes of base + 40 x increment, and its rating bands.
std::string speed_of(const std::string& tc) {
  if (tc == "-") return "correspondence";
  const auto plus = tc.find('+');
  if (plus == std::string::npos) return "unknown";
  const int total = std::stoi(tc.substr(0, plus)) + 40 * std::stoi(tc.substr(plus + 1));
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

// A filter as the test applies it: sets of band and speed words, yyyymm bounds (0: none).
struct Filter {
  std::set<std::string> bands, speeds;
  int since = 0, until = 0;  // yyyymm
  bool keeps(const std::string& band, const std::string& speed, int yyyymm) const {
    if (!bands.empty() && !bands.contains(band)) return false;
    if (!speeds.empty() && !speeds.contains(speed)) return false;
    if ((since || until) && yyyymm == 0) return false;
    return (!since || yyyymm >= since) && (!until || yyyymm <= until);
  }
};

struct Counts {
  int games = 0, white = 0, draws = 0, black = 0;
  bool operator==(const Counts&) const = default;
};

// Each game's tags and the positions and moves the build counts (its first kMaxPly plies).
struct Game {
  std::map<std::string, std::string> tags;
  std::vector<gb::Key> keys;      // positions 0..plies
  std::vector<gb::Move> moves;    // moves 0..plies-1
  std::vector<gb::Color> movers;  // side to move at each position
  gb::pgn::Outcome outcome = gb::pgn::Outcome::Unknown;
  bool kept = true;
};

struct Reader : gb::pgn::VisitorBase {
  std::vector<Game> games;
  void begin_game(const gb::pgn::GameLocation&) { games.emplace_back(); }
  void tag(std::string_view name, std::string_view value) { games.back().tags[std::string(name)] = value; }
  gb::pgn::Control move(const gb::pgn::MoveEvent& e) {
    if (e.depth > 0) return gb::pgn::Control::Skip;
    Game& g = games.back();
    g.keys.push_back(e.before.key());
    g.movers.push_back(e.before.side_to_move());
    if (int(g.moves.size()) == kMaxPly) return gb::pgn::Control::Skip;
    g.moves.push_back(e.move);
    return gb::pgn::Control::Continue;
  }
  void end_game(const gb::pgn::GameEnd& end) {
    Game& g = games.back();
    g.outcome = end.outcome;
    g.kept = end.skipped == gb::pgn::SkipReason::None;
    if (g.keys.size() == g.moves.size()) {  // not cut: the final position closes the path
      g.keys.push_back(end.final_position.key());
      g.movers.push_back(end.final_position.side_to_move());
    }
  }
};

std::vector<Game> read_games(const std::string& path) {
  Reader r;
  gb::pgn::PgnReader reader(gb::pgn::ByteSource::open(path));
  REQUIRE(reader.read_all(r));
  std::vector<Game> kept;
  for (Game& g : r.games)
    if (g.kept) kept.push_back(std::move(g));
  return kept;
}

int elo_of(const Game& g, gb::Color c) {
  auto it = g.tags.find(c == gb::Color::White ? "WhiteElo" : "BlackElo");
  if (it == g.tags.end()) return 0;
  try {
    return std::stoi(it->second);
  } catch (...) {
    return 0;
  }
}

int yyyymm_of(const Game& g) {
  auto it = g.tags.find("Date");
  if (it == g.tags.end() || it->second.size() < 7 || it->second[0] == '?') return 0;
  const int year = std::stoi(it->second.substr(0, 4));
  const int month = it->second[5] == '?' ? 0 : std::stoi(it->second.substr(5, 2));
  return year * 100 + month;
}

void count(Counts& c, gb::pgn::Outcome o) {
  ++c.games;
  c.white += o == gb::pgn::Outcome::WhiteWins;
  c.draws += o == gb::pgn::Outcome::Draw;
  c.black += o == gb::pgn::Outcome::BlackWins;
}

// The node and per-move counts of the position key over the games the filter keeps.
struct Expected {
  Counts node;
  std::map<std::string, Counts> moves;  // by UCI
};
Expected expected(const std::vector<Game>& games, gb::Key key, const Filter& f) {
  Expected out;
  for (const Game& g : games) {
    const std::string speed = speed_of(g.tags.count("TimeControl") ? g.tags.at("TimeControl") : "?");
    const int period = yyyymm_of(g);
    bool node = false;
    std::set<std::string> played;
    for (std::size_t i = 0; i < g.keys.size(); ++i) {
      if (g.keys[i] != key) continue;
      const std::string band = band_of(elo_of(g, g.movers[i]));
      if (!f.keeps(band, speed, period)) continue;
      if (!node) count(out.node, g.outcome);
      node = true;
      if (i < g.moves.size()) {
        const std::string uci = gb::to_uci(g.moves[i], false);
        if (played.insert(uci).second) count(out.moves[uci], g.outcome);
      }
    }
  }
  return out;
}

Counts counts_of(const nlohmann::json& j) {
  return {j["games"].get<int>(), j["white"].get<int>(), j["draws"].get<int>(), j["black"].get<int>()};
}

std::string generate(TempDir& dir, const std::string& name, int games, int seed) {
  const std::string path = dir.file(name);
  auto r = gb::test::run_shell("'" GENERATE_GAMES_BINARY "' --games " + std::to_string(games) + " --seed " +
                               std::to_string(seed) + " --threads 1 -o " + quote(path) + " 2>&1");
  REQUIRE(r.status == 0);
  return path;
}

std::string bytes_of(const std::string& path) { return gb::test::read_file(path); }

}  // namespace

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
