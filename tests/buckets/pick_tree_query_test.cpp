// Bucket filters in pick, tree and query (issue 18): each answers from the
// selected games' counts. The expected counts are computed from the PGN's
// tags and moves (selected_games.h), never by graphbook; where the filter is
// a selection of whole games (dates, speeds), the filtered answer is compared
// with the answer of a book built from the selected games only.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "book/chess/position.h"
#include "selected_games.h"

using namespace gb::test::buckets;

namespace {

gb::Key key_of_fen(const std::string& fen) {
  auto pos = gb::Position::from_fen(fen);
  REQUIRE(pos);
  return pos->key();
}

gb::Position after_moves(const std::string& moves) {
  gb::Position pos;
  for (std::string_view rest = moves; !rest.empty();) {
    auto sp = rest.find(' ');
    auto parsed = gb::parse_san(pos, rest.substr(0, sp));
    REQUIRE(parsed.move);
    gb::UndoInfo undo;
    pos.do_move(parsed.move, undo);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  return pos;
}

// The answer without the echo of the filter, to compare with an unfiltered one.
nlohmann::json without_filter(nlohmann::json j) {
  j.erase("filter");
  return j;
}

// The filters of these tests, as options and as the test applies them.
const std::vector<std::pair<std::string, Filter>>& rating_filters() {
  static const std::vector<std::pair<std::string, Filter>> filters = {
      {"--ratings 2000,2200 --speeds blitz,rapid --since 2015 --until 2020-06",
       {{"2000", "2200"}, {"blitz", "rapid"}, 201500, 202006}},
      {"--ratings unrated,0,1600", {{"unrated", "0", "1600"}, {}, 0, 0}},
      {"--speeds bullet,blitz --since 2017-03", {{}, {"bullet", "blitz"}, 201703, 0}},
  };
  return filters;
}

// A book by month of generated games, cut at kMaxPly, every game counted.
std::string build_book(TempDir& dir, const std::string& pgn, const std::string& name) {
  const std::string book = dir.file(name);
  REQUIRE(graphbook("build " + quote(book) + " " + quote(pgn) + " --max-ply " + std::to_string(kMaxPly) +
                    " --no-dedup --by-month --quiet")
              .status == 0);
  return book;
}

}  // namespace

TEST_CASE("A filtered tree's nodes and edges are the selected games', computed from the PGN", "[buckets]") {
  TempDir dir;
  const std::string pgn = generate(dir, "games.pgn", 3000, 31);
  const std::vector<Game> games = read_games(pgn);
  REQUIRE(games.size() == 3000);
  const std::string book = build_book(dir, pgn, "b.book");
  constexpr int kDepth = 3;
  constexpr int kMinGames = 2;
  std::size_t total_edges = 0;
  for (const auto& [args, filter] : rating_filters()) {
    const auto want = expected_all(games, filter);
    auto want_of = [&](gb::Key key) {
      auto it = want.find(key);
      return it == want.end() ? Expected{} : it->second;
    };
    for (const char* moves : {"", "e4", "d4 d5"}) {
      INFO("moves '" << moves << "' " << args);
      const gb::Key root = after_moves(moves).key();
      const std::string tree_args = "tree " + quote(book) + " --moves " + quote(moves) + " --depth " +
                                    std::to_string(kDepth) + " --min-games " + std::to_string(kMinGames) +
                                    " --max-nodes 100000 " + args;
      auto r = graphbook(tree_args + " --format json");
      if (want_of(root).node.games == 0) {
        CHECK(r.status == 1);
        continue;
      }
      REQUIRE(r.status == 0);
      auto j = nlohmann::json::parse(r.out);
      CHECK(j["filter"].is_object());
      CHECK_FALSE(j["truncated"].get<bool>());
      // Every node's counts are its selected games'.
      std::map<std::string, gb::Key> key_of_id;
      std::map<std::string, int> depth_of_id;
      for (const auto& n : j["nodes"]) {
        const gb::Key key = key_of_fen(n["fen"].get<std::string>());
        key_of_id[n["id"].get<std::string>()] = key;
        depth_of_id[n["id"].get<std::string>()] = n["depth"].get<int>();
        CHECK(counts_of(n) == want_of(key).node);
      }
      // The edges out of each node above the depth are exactly the moves that
      // at least kMinGames selected games played there, with their counts.
      std::map<gb::Key, std::map<std::string, Counts>> got_edges;
      for (const auto& e : j["edges"])
        got_edges[key_of_id.at(e["from"].get<std::string>())][e["uci"].get<std::string>()] = counts_of(e);
      std::size_t edges = 0;
      for (const auto& [id, key] : key_of_id) {
        if (depth_of_id[id] >= kDepth) continue;
        std::map<std::string, Counts> moves_played;
        for (const auto& [uci, c] : want_of(key).moves)
          if (c.games >= kMinGames) moves_played[uci] = c;
        CHECK(got_edges[key] == moves_played);
        edges += moves_played.size();
      }
      CHECK(edges == j["edges"].size());
      total_edges += edges;
      // The other formats draw the same tree.
      auto dot = graphbook(tree_args + " --format dot");
      REQUIRE(dot.status == 0);
      std::size_t arrows = 0;
      for (std::size_t at = 0; (at = dot.out.find(" -> n", at)) != std::string::npos; ++at) ++arrows;
      CHECK(arrows == edges);
      auto text = graphbook(tree_args);
      REQUIRE(text.status == 0);
      CHECK(text.out.starts_with("Filter: "));
      CHECK(text.out.find("  " + std::to_string(want_of(root).node.games) + " games") != std::string::npos);
    }
  }
  CHECK(total_edges > 100);  // trees, not roots alone
}

TEST_CASE("A filtered pick chooses among the selected games' moves, weighed by their counts", "[buckets]") {
  TempDir dir;
  const std::string pgn = generate(dir, "games.pgn", 3000, 32);
  const std::vector<Game> games = read_games(pgn);
  const std::string book = build_book(dir, pgn, "b.book");
  int picked = 0;
  for (const auto& [args, filter] : rating_filters()) {
    for (const char* moves : {"", "e4", "d4", "e4 c5"}) {
      INFO("moves '" << moves << "' " << args);
      const gb::Position pos = after_moves(moves);
      const Expected want = expected(games, pos.key(), filter);
      const gb::Color mover = pos.side_to_move();
      // Polyglot's weight for the side that plays the move: 2 a win, 1 a draw or "*".
      std::map<std::string, std::pair<int, double>> want_moves;  // uci -> games, weight
      double best = 0;
      for (const auto& [uci, c] : want.moves) {
        const int wins = mover == gb::Color::White ? c.white : c.black;
        const int losses = mover == gb::Color::White ? c.black : c.white;
        const double weight = 2 * wins + (c.games - wins - losses);
        want_moves[uci] = {c.games, weight};
        best = std::max(best, weight);
      }
      const std::string pick = "pick " + quote(book) + " --moves " + quote(moves) + " " + args;
      auto r = graphbook(pick + " --seed 7 --explain --json");
      if (want.moves.empty()) {
        CHECK(r.status == 1);
        continue;
      }
      REQUIRE(r.status == 0);
      auto j = nlohmann::json::parse(r.out);
      CHECK(j["filter"].is_object());
      std::map<std::string, std::pair<int, double>> got;
      for (const auto& c : j["candidates"])
        got[c["uci"].get<std::string>()] = {c["games"].get<int>(), c["weight"].get<double>()};
      CHECK(got == want_moves);
      CHECK(want_moves.contains(j["move"]["uci"].get<std::string>()));
      // best takes the heaviest of the selected moves.
      auto b = graphbook(pick + " --policy best --json");
      REQUIRE(b.status == 0);
      CHECK(want_moves.at(nlohmann::json::parse(b.out)["move"]["uci"].get<std::string>()).second == best);
      ++picked;
    }
  }
  CHECK(picked >= 6);
  // No selected game in the position: no book move, as outside the book.
  auto none = graphbook("pick " + quote(book) + " --moves e4 --since 2099");
  CHECK(none.status == 1);
  CHECK(none.out.find("No book move") != std::string::npos);
}

TEST_CASE("A filtered query walks the moves of the selected games, computed from the PGN", "[buckets]") {
  TempDir dir;
  const std::string pgn = generate(dir, "games.pgn", 2000, 33);
  const std::vector<Game> games = read_games(pgn);
  const std::string book = build_book(dir, pgn, "b.book");
  // The position each game's move leads to.
  std::map<std::pair<gb::Key, std::string>, gb::Key> child;
  for (const Game& g : games)
    for (std::size_t i = 0; i < g.moves.size(); ++i)
      child[{g.keys[i], gb::to_uci(g.moves[i], false)}] = g.keys[i + 1];
  constexpr int kMaxPlyWalked = 4;
  for (const auto& [args, filter] : rating_filters()) {
    INFO(args);
    const auto want = expected_all(games, filter);
    // Breadth first from the start along the moves selected games played, to
    // the positions selected games reached (the side to move's band, for
    // --ratings), as far as kMaxPlyWalked.
    std::map<gb::Key, Counts> reached;
    std::vector<gb::Key> level;
    auto visit = [&](gb::Key key, std::vector<gb::Key>& into) {
      auto it = want.find(key);
      if (it == want.end() || it->second.node.games == 0 || reached.contains(key)) return;
      reached[key] = it->second.node;
      into.push_back(key);
    };
    visit(gb::Position().key(), level);
    for (int ply = 0; ply < kMaxPlyWalked; ++ply) {
      std::vector<gb::Key> next;
      for (gb::Key key : level)
        for (const auto& [uci, c] : want.at(key).moves) visit(child.at({key, uci}), next);
      level = std::move(next);
    }
    auto r = graphbook("query " + quote(book) + " --cql 'bookgames >= 1' --max-ply " +
                       std::to_string(kMaxPlyWalked) + " " + args + " --json");
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["filter"].is_object());
    std::map<gb::Key, Counts> got;
    for (const auto& p : j["positions"]) got[key_of_fen(p["fen"].get<std::string>())] = counts_of(p);
    CHECK(got == reached);
    CHECK(j["nodes_visited"].get<std::size_t>() == reached.size());
    CHECK(reached.size() > 20);
    // A count the query reads is the selected games': a threshold between two of them splits the same way.
    std::vector<int> sizes;
    for (const auto& [key, c] : reached) sizes.push_back(c.games);
    std::sort(sizes.begin(), sizes.end());
    const int threshold = sizes[sizes.size() / 2];
    const auto at_least =
        std::count_if(sizes.begin(), sizes.end(), [&](int games) { return games >= threshold; });
    auto counted = graphbook("query " + quote(book) + " --cql 'bookgames >= " + std::to_string(threshold) +
                             "' --max-ply " + std::to_string(kMaxPlyWalked) + " " + args + " --count");
    REQUIRE(counted.status == 0);
    CHECK(counted.out ==
          "matched " + std::to_string(at_least) + " of " + std::to_string(reached.size()) + " positions\n");
  }
}

TEST_CASE("Filtered tree, pick and query equal those of a book built from the selected games", "[buckets]") {
  TempDir dir;
  const std::string first = generate(dir, "a.pgn", 1500, 41);
  const std::string second = generate(dir, "b.pgn", 1500, 42);
  const std::string common = " --max-ply " + std::to_string(kMaxPly) + " --no-dedup --quiet";
  const std::string whole = dir.file("whole.book");
  REQUIRE(
      graphbook("build " + quote(whole) + " " + quote(first) + " " + quote(second) + common + " --by-month")
          .status == 0);
  const std::string years = dir.file("years.book");
  REQUIRE(
      graphbook("build " + quote(years) + " " + quote(first) + " " + quote(second) + common + " --buckets")
          .status == 0);
  struct Case {
    std::string book, selection;
  };
  const Case cases[] = {
      {whole, "--since 2015 --until 2020-06"},
      {whole, "--since 2019-02"},
      {years, "--since 2016 --until 2019"},
  };
  const std::vector<std::string> queries = {
      "--cql 'bookgames >= 20' --max-ply 8",
      "--cql 'bookmovegames >= 5 bookmoves >= 2' --max-ply 6",
      "--cql 'sort \"score\" bookscore bookgames >= 10' --max-ply 10 --limit 25",
  };
  int n = 0;
  for (const Case& c : cases) {
    INFO(c.selection);
    const std::string selected = dir.file("selected" + std::to_string(n++) + ".book");
    REQUIRE(graphbook("build " + quote(selected) + " " + quote(first) + " " + quote(second) + common + " " +
                      c.selection)
                .status == 0);
    for (const char* moves : {"", "d4", "e4 e5"}) {
      INFO("moves '" << moves << "'");
      const std::string tree = " --moves " + quote(moves) + " --depth 4 --min-games 3 --max-nodes 100000";
      auto want = graphbook("tree " + quote(selected) + tree + " --format json");
      auto got = graphbook("tree " + quote(c.book) + tree + " --format json " + c.selection);
      REQUIRE(want.status == 0);
      REQUIRE(got.status == 0);
      auto want_json = nlohmann::json::parse(want.out);
      CHECK(want_json["edges"].size() > 3);
      CHECK(without_filter(nlohmann::json::parse(got.out)) == want_json);
      CHECK(graphbook("tree " + quote(c.book) + tree + " --format dot " + c.selection).out ==
            graphbook("tree " + quote(selected) + tree + " --format dot").out);
      // The whole book's tree is another: the filter is not ignored.
      CHECK(nlohmann::json::parse(graphbook("tree " + quote(c.book) + tree + " --format json").out) !=
            want_json);

      const std::string pick = " --moves " + quote(moves) + " --seed 11 --explain --json";
      auto want_pick = graphbook("pick " + quote(selected) + pick);
      auto got_pick = graphbook("pick " + quote(c.book) + pick + " " + c.selection);
      REQUIRE(want_pick.status == 0);
      REQUIRE(got_pick.status == 0);
      CHECK(without_filter(nlohmann::json::parse(got_pick.out)) == nlohmann::json::parse(want_pick.out));
    }
    for (const std::string& query : queries) {
      INFO(query);
      auto want = graphbook("query " + quote(selected) + " " + query + " --json");
      auto got = graphbook("query " + quote(c.book) + " " + query + " --json " + c.selection);
      REQUIRE(want.status == 0);
      REQUIRE(got.status == 0);
      auto want_json = nlohmann::json::parse(want.out);
      CHECK(want_json["matched"].get<int>() > 3);
      CHECK(without_filter(nlohmann::json::parse(got.out)) == want_json);
      CHECK(nlohmann::json::parse(graphbook("query " + quote(c.book) + " " + query + " --json").out) !=
            want_json);
    }
    // --export writes the filtered moves of the matching positions.
    const std::string want_bin = dir.file("want" + std::to_string(n) + ".bin");
    const std::string got_bin = dir.file("got" + std::to_string(n) + ".bin");
    REQUIRE(graphbook("query " + quote(selected) + " " + queries[0] + " --count --export " + quote(want_bin))
                .status == 0);
    REQUIRE(graphbook("query " + quote(c.book) + " " + queries[0] + " --count --export " + quote(got_bin) +
                      " " + c.selection)
                .status == 0);
    CHECK(bytes_of(want_bin).size() > 16 * 20);
    CHECK(bytes_of(got_bin) == bytes_of(want_bin));
    // --book writes the matching positions with the selected games' counts: its export is the other's.
    const std::string want_sub = dir.file("want" + std::to_string(n) + ".book");
    const std::string got_sub = dir.file("got" + std::to_string(n) + ".book");
    REQUIRE(graphbook("query " + quote(selected) + " " + queries[0] + " --count --book " + quote(want_sub))
                .status == 0);
    REQUIRE(graphbook("query " + quote(c.book) + " " + queries[0] + " --count --book " + quote(got_sub) +
                      " " + c.selection)
                .status == 0);
    REQUIRE(graphbook("export " + quote(want_sub) + " " + quote(want_bin)).status == 0);
    REQUIRE(graphbook("export " + quote(got_sub) + " " + quote(got_bin)).status == 0);
    CHECK(bytes_of(want_bin).size() > 16 * 5);  // the moves between matching positions only
    CHECK(bytes_of(got_bin) == bytes_of(want_bin));
  }
}

TEST_CASE("pick, tree and query refuse a filter a book cannot answer, with status 2", "[buckets]") {
  TempDir dir;
  const std::string pgn = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string book = dir.file("old.book");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(pgn) + " --quiet").status == 0);  // no --buckets
  const std::string no_buckets = book + " was built without buckets; rebuild it";
  for (const std::string& command : {"pick " + quote(book) + " --moves e4 --ratings 2500",
                                     "tree " + quote(book) + " --depth 2 --speeds blitz",
                                     "query " + quote(book) + " --cql check --since 2010"}) {
    INFO(command);
    auto r = graphbook(command);
    CHECK(r.status == 2);
    CHECK(r.err.find(no_buckets) != std::string::npos);
    CHECK(r.out.empty());
  }
  const std::string years = dir.file("years.book");
  REQUIRE(graphbook("build " + quote(years) + " " + quote(pgn) + " --quiet --buckets").status == 0);
  for (const std::string& command :
       {"pick " + quote(years) + " --until 2020-06", "tree " + quote(years) + " --until 2020-06",
        "query " + quote(years) + " --cql check --until 2020-06"}) {
    INFO(command);
    auto r = graphbook(command);
    CHECK(r.status == 2);
    CHECK(r.err.find("--by-month") != std::string::npos);
  }
  auto word = graphbook("tree " + quote(years) + " --speeds slow");
  CHECK(word.status == 2);
  CHECK(word.err.find("--speeds slow") != std::string::npos);
}
