// graphbook query over a book built here from twic0920 at a small max ply,
// checked against a model of the same book made with the PGN reader and the
// chess core alone: every game walked to the max ply, the distinct positions
// collected with their games and results and the moves between them, and
// the positions reachable from the start found breadth-first.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "book/chess/notation.h"
#include "book/chess/position.h"
#include "book/pgn/game_record.h"
#include "book/store/polyglot.h"
#include "run_graphbook.h"

using namespace gb;
using gb::test::graphbook;
using gb::test::quote;
using gb::test::TempDir;

namespace {

constexpr int kMaxPly = 12;

struct ModelNode {
  explicit ModelNode(const Position& p) : position(p) {}
  Position position;
  int games = 0, white = 0, draws = 0, black = 0;
  int distance = -1;                                // plies from the start, breadth-first
  std::set<std::pair<Key, std::uint16_t>> parents;  // (position, move) pairs that reach it
  std::set<Key> children;
  std::map<std::pair<Key, std::uint16_t>, int> incoming_games;  // games per incoming move, each once
};

// The book the test builds, as the PGN reader and the chess core see it.
struct Model {
  std::unordered_map<Key, ModelNode> nodes;

  explicit Model(const std::string& pgn) {
    auto summary = pgn::read_games(pgn, [&](const pgn::GameRecord& g) {
      Position pos = g.start;
      std::unordered_set<Key> in_game;
      std::set<std::pair<Key, std::uint16_t>> edges_in_game;
      auto count = [&](const Position& p) {
        ModelNode& n = nodes.try_emplace(p.key(), p).first->second;
        if (!in_game.insert(p.key()).second) return;
        ++n.games;
        n.white += g.outcome == pgn::Outcome::WhiteWins;
        n.draws += g.outcome == pgn::Outcome::Draw;
        n.black += g.outcome == pgn::Outcome::BlackWins;
      };
      count(pos);
      for (std::size_t i = 0; i < g.mainline.size() && int(i) < kMaxPly; ++i) {
        Key before = pos.key();
        UndoInfo undo;
        pos.do_move(g.mainline[i].move, undo);
        count(pos);
        nodes.at(before).children.insert(pos.key());
        nodes.at(pos.key()).parents.insert({before, g.mainline[i].move.raw()});
        if (edges_in_game.insert({before, g.mainline[i].move.raw()}).second)
          ++nodes.at(pos.key()).incoming_games[{before, g.mainline[i].move.raw()}];
      }
    });
    REQUIRE(summary.games_read > 2000);
    // Breadth-first from the start position: the nodes a query visits.
    std::vector<Key> level = {Position().key()};
    nodes.at(level[0]).distance = 0;
    for (int d = 1; !level.empty(); ++d) {
      std::vector<Key> next;
      for (Key k : level)
        for (Key c : nodes.at(k).children)
          if (nodes.at(c).distance < 0) {
            nodes.at(c).distance = d;
            next.push_back(c);
          }
      level = std::move(next);
    }
  }

  std::set<std::string> keys_where(const std::function<bool(const ModelNode&)>& predicate) const {
    std::set<std::string> out;
    for (const auto& [key, n] : nodes)
      if (n.distance >= 0 && predicate(n)) out.insert(key_hex(key));
    return out;
  }
};

const Model& model() {
  static const Model m(gb::test::data_path("pgn/small/twic0920.pgn"));
  return m;
}

struct Book {
  TempDir dir{"graphbook-query"};
  std::string path = dir.file("twic.book");
  Book() {
    auto r = graphbook("build " + quote(path) + " " + quote(gb::test::data_path("pgn/small/twic0920.pgn")) +
                       " --max-ply " + std::to_string(kMaxPly));
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
};

// The keys of the positions a query matches (--json), and the nodes visited.
std::set<std::string> matched_keys(const Book& book, const std::string& query,
                                   std::uint64_t* visited = nullptr) {
  auto r = graphbook("query " + quote(book.path) + " --json --cql " + quote(query));
  INFO(query << "\n" << r.err);
  REQUIRE((r.status == 0 || r.status == 1));
  auto j = nlohmann::json::parse(r.out);
  std::set<std::string> keys;
  for (const auto& p : j["positions"]) keys.insert(p["key"].get<std::string>());
  REQUIRE(j["matched"].get<std::size_t>() == keys.size());
  if (visited) *visited = j["nodes_visited"].get<std::uint64_t>();
  return keys;
}

}  // namespace

TEST_CASE("query visits every position of the book once and finds those in check", "[query]") {
  Book book;
  std::uint64_t visited = 0;
  auto expected = model().keys_where([](const ModelNode& n) { return n.position.in_check(); });
  REQUIRE(expected.size() > 50);
  CHECK(matched_keys(book, "check", &visited) == expected);
  CHECK(visited == model().keys_where([](const ModelNode&) { return true; }).size());
}

TEST_CASE("query finds the book positions without queens", "[query]") {
  Book book;
  auto expected =
      model().keys_where([](const ModelNode& n) { return n.position.pieces(PieceType::Queen) == 0; });
  REQUIRE(expected.size() > 10);
  CHECK(matched_keys(book, "not [Qq]") == expected);
}

TEST_CASE("query ply is the shortest distance from the start and move sees the book moves", "[query]") {
  Book book;
  auto expected = model().keys_where([](const ModelNode& n) { return n.distance == 3; });
  REQUIRE(!expected.empty());
  CHECK(matched_keys(book, "ply == 3") == expected);
  // The book moves are the node's children: every distinct move a game played there.
  auto branching = model().keys_where([](const ModelNode& n) { return n.children.size() >= 3; });
  REQUIRE(branching.size() > 5);
  CHECK(matched_keys(book, "move count >= 3") == branching);
}

TEST_CASE("query --export writes the matching positions' moves as export writes them", "[query]") {
  Book book;
  const std::string all = book.dir.file("all.bin"), some = book.dir.file("check.bin");
  REQUIRE(graphbook("export " + quote(book.path) + " " + quote(all)).status == 0);
  auto r = graphbook("query " + quote(book.path) + " --count --cql check --export " + quote(some));
  INFO(r.err);
  REQUIRE(r.status == 0);
  store::PolyglotFileError error;
  auto every = store::read_polyglot_file(all, &error), exported = store::read_polyglot_file(some, &error);
  REQUIRE(every);
  REQUIRE(exported);
  std::unordered_set<Key> in_check;
  for (const auto& [key, n] : model().nodes)
    if (n.distance >= 0 && n.position.in_check()) in_check.insert(key);
  std::vector<store::PolyglotEntry> expected;
  for (const auto& e : *every)
    if (in_check.contains(e.key)) expected.push_back(e);
  REQUIRE(expected.size() > 50);
  REQUIRE(exported->size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(exported->at(i).key == expected[i].key);
    CHECK(exported->at(i).move == expected[i].move);
    CHECK(exported->at(i).weight == expected[i].weight);
  }
}

TEST_CASE("query --book writes the matching positions and the moves between them as a book", "[query]") {
  Book book;
  const std::string sub = book.dir.file("first-moves.book");
  auto r = graphbook("query " + quote(book.path) + " --count --cql 'ply <= 4' --book " + quote(sub));
  INFO(r.err);
  REQUIRE(r.status == 0);
  // The positions within four plies are closed under their shortest lines:
  // the sub-book holds each of them, reachable from its start.
  auto expected = model().keys_where([](const ModelNode& n) { return n.distance <= 4; });
  REQUIRE(expected.size() > 100);
  std::uint64_t visited = 0;
  auto r2 = graphbook("query " + quote(sub) + " --json --cql true");
  INFO(r2.err);
  REQUIRE(r2.status == 0);
  auto j = nlohmann::json::parse(r2.out);
  std::set<std::string> keys;
  for (const auto& p : j["positions"]) keys.insert(p["key"].get<std::string>());
  visited = j["nodes_visited"].get<std::uint64_t>();
  CHECK(keys == expected);
  CHECK(visited == expected.size());
  // A game count survives the copy: the start has every game.
  CHECK(j["positions"][0]["games"].get<int>() == model().nodes.at(Position().key()).games);
}

TEST_CASE("query --pgn writes the line to each matching position as a game", "[query]") {
  Book book;
  const std::string out = book.dir.file("check.pgn");
  auto r = graphbook("query " + quote(book.path) + " --count --cql check --pgn " + quote(out));
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto expected = model().keys_where([](const ModelNode& n) { return n.position.in_check(); });
  std::set<std::string> reached;
  auto summary = pgn::read_games(out, [&](const pgn::GameRecord& g) {
    reached.insert(key_hex(g.final_position.key()));
    CHECK(int(g.mainline.size()) == model().nodes.at(g.final_position.key()).distance);
  });
  CHECK(summary.games_skipped == 0);
  CHECK(reached == expected);
}

TEST_CASE("query with no match exits 1 and says how many positions it visited", "[query]") {
  Book book;
  auto r = graphbook("query " + quote(book.path) + " --count --cql false");
  CHECK(r.status == 1);
  CHECK(r.out == "matched 0 of " +
                     std::to_string(model().keys_where([](const ModelNode&) { return true; }).size()) +
                     " positions\n");
}

TEST_CASE("query reports a malformed query with a caret and exits 2", "[query]") {
  Book book;
  auto r = graphbook("query " + quote(book.path) + " --cql 'check {'");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("--cql:1:8: error") != std::string::npos);
  CHECK(r.err.find("^") != std::string::npos);
}

TEST_CASE("query names a book that does not exist and exits 2", "[query]") {
  TempDir dir;
  auto r = graphbook("query " + quote(dir.file("absent.book")) + " --cql check");
  CHECK(r.status == 2);
  CHECK(r.err.find("absent.book") != std::string::npos);
  CHECK(r.err.find("no such book") != std::string::npos);
}

TEST_CASE("query bookgames counts the games through a position, each game once", "[query]") {
  Book book;
  auto expected = model().keys_where([](const ModelNode& n) { return n.games >= 10; });
  REQUIRE(expected.size() > 50);
  CHECK(matched_keys(book, "bookgames >= 10") == expected);
}

TEST_CASE("query bookscore is the side to move's score over the node's games", "[query]") {
  Book book;
  auto expected = model().keys_where([](const ModelNode& n) {
    if (n.games < 20) return false;
    int wins = n.position.side_to_move() == Color::White ? n.white : n.black;
    return (2 * wins + n.draws) * 1000 / (2 * n.games) > 600;  // per mille, rounded down
  });
  REQUIRE(expected.size() > 5);
  CHECK(matched_keys(book, "bookgames >= 20 bookscore > 600") == expected);
}

TEST_CASE("query finds the positions reached by two move orders: their shortest line's move has fewer games",
          "[query]") {
  Book book;
  // Every game through a node came by one of its incoming book moves; the
  // move of the shortest line has them all only when it is the only one.
  auto expected = model().keys_where([](const ModelNode& n) { return n.parents.size() >= 2; });
  REQUIRE(expected.size() > 20);
  CHECK(matched_keys(book, "bookmovegames < bookgames") == expected);
}

TEST_CASE("query --moves --depth visits the positions within the depth below that position", "[query]") {
  Book book;
  Position after_e4;
  UndoInfo undo;
  after_e4.do_move(Move(SQ_E2, SQ_E4), undo);
  // Breadth-first from 1. e4 in the model, two plies deep.
  std::set<std::string> expected = {key_hex(after_e4.key())};
  std::vector<Key> level = {after_e4.key()};
  for (int d = 0; d < 2; ++d) {
    std::vector<Key> next;
    for (Key k : level)
      for (Key c : model().nodes.at(k).children)
        if (expected.insert(key_hex(c)).second) next.push_back(c);
    level = std::move(next);
  }
  REQUIRE(expected.size() > 20);
  auto r = graphbook("query " + quote(book.path) + " --moves e4 --depth 2 --json --cql true");
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  std::set<std::string> keys;
  for (const auto& p : j["positions"]) {
    keys.insert(p["key"].get<std::string>());
    CHECK(p["line"].get<std::string>().starts_with("1. e4"));
  }
  CHECK(keys == expected);
  CHECK(j["nodes_visited"].get<std::size_t>() == expected.size());
}

TEST_CASE("query sorts by the query's sort filters and --limit shows the first", "[query]") {
  Book book;
  std::vector<int> games;
  for (const auto& [key, n] : model().nodes)
    if (n.distance >= 0 && n.games >= 10) games.push_back(n.games);
  REQUIRE(games.size() > 10);
  std::sort(games.begin(), games.end());
  auto run = [&](const std::string& query) {
    auto r = graphbook("query " + quote(book.path) + " --json --limit 3 --cql " + quote(query));
    INFO(r.err);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  auto fewest = run("sort min \"games\" bookgames  bookgames >= 10");
  CHECK(fewest["matched"].get<std::size_t>() == games.size());
  REQUIRE(fewest["positions"].size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(fewest["positions"][i]["games"].get<int>() == games[std::size_t(i)]);
    CHECK(fewest["positions"][i]["sort"][0].get<int>() == games[std::size_t(i)]);
  }
  auto most = run("bookgames >= 10");  // no sort filter: games, most first
  for (int i = 0; i < 3; ++i)
    CHECK(most["positions"][i]["games"].get<int>() == games[games.size() - 1 - std::size_t(i)]);
}

TEST_CASE("query shows a shortest line whose last move is the most played of those into the position",
          "[query]") {
  Book book;
  auto r = graphbook("query " + quote(book.path) + " --json --no-names --cql 'bookgames >= 3'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["positions"].size() > 100);
  for (const auto& p : j["positions"]) {
    // Replay the line with the chess core.
    Position pos;
    Key before = 0;
    std::uint16_t last = 0;
    int plies = 0;
    std::string line = p["line"].get<std::string>();
    for (std::size_t at = 0; at < line.size();) {
      std::size_t end = line.find(' ', at);
      std::string token = line.substr(at, end == std::string::npos ? std::string::npos : end - at);
      at = end == std::string::npos ? line.size() : end + 1;
      if (token.empty() || std::isdigit(static_cast<unsigned char>(token[0]))) continue;
      MoveParse m = parse_san(pos, token);
      REQUIRE(m.ok());
      before = pos.key();
      last = m.move.raw();
      UndoInfo undo;
      pos.do_move(m.move, undo);
      ++plies;
    }
    INFO(line);
    REQUIRE(key_hex(pos.key()) == p["key"].get<std::string>());
    const ModelNode& n = model().nodes.at(pos.key());
    CHECK(plies == n.distance);
    if (plies == 0) continue;
    int best = 0;
    for (const auto& [edge, games] : n.incoming_games)
      if (model().nodes.at(edge.first).distance == n.distance - 1) best = std::max(best, games);
    CHECK(n.incoming_games.at({before, last}) == best);
  }
}

TEST_CASE("query find follows the book moves below a position to --window plies", "[query]") {
  Book book;
  // A position in check within two plies below, the position itself included.
  std::function<bool(Key, int)> check_within = [&](Key k, int plies) {
    const ModelNode& n = model().nodes.at(k);
    if (n.position.in_check()) return true;
    if (plies == 0) return false;
    for (Key c : n.children)
      if (check_within(c, plies - 1)) return true;
    return false;
  };
  std::set<std::string> expected;
  for (const auto& [key, n] : model().nodes)
    if (n.distance >= 0 && check_within(key, 2)) expected.insert(key_hex(key));
  REQUIRE(expected.size() > 100);
  auto r = graphbook("query " + quote(book.path) + " --window 2 --json --no-names --cql 'find check'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::set<std::string> keys;
  auto j = nlohmann::json::parse(r.out);
  for (const auto& p : j["positions"]) keys.insert(p["key"].get<std::string>());
  CHECK(keys == expected);
}

TEST_CASE("query follows an imported Polyglot book's moves whose positions the import could not reach",
          "[query]") {
  TempDir dir("graphbook-query");
  // 1. d4 from the start, which the import reaches; then 2. Nf3 after 1. e4 e5
  // and 2... Nc6 after it, which it keeps by key only (no child known).
  Position start, after_e5, after_nf3;
  UndoInfo undo;
  after_e5.do_move(Move(SQ_E2, SQ_E4), undo);
  after_e5.do_move(Move(SQ_E7, SQ_E5), undo);
  after_nf3 = after_e5;
  after_nf3.do_move(Move(SQ_G1, SQ_F3), undo);
  std::vector<store::PolyglotEntry> entries = {
      {start.key(), store::to_polyglot_move(Move(SQ_D2, SQ_D4)), 10, 0},
      {after_e5.key(), store::to_polyglot_move(Move(SQ_G1, SQ_F3)), 10, 0},
      {after_nf3.key(), store::to_polyglot_move(Move(SQ_B8, SQ_C6)), 10, 0}};
  std::sort(entries.begin(), entries.end(),
            [](const store::PolyglotEntry& a, const store::PolyglotEntry& b) { return a.key < b.key; });
  REQUIRE_FALSE(store::write_polyglot_file(dir.file("keys.bin"), entries));
  auto imported = graphbook("import " + quote(dir.file("keys.book")) + " " + quote(dir.file("keys.bin")));
  INFO(imported.out << imported.err);
  REQUIRE(imported.status == 0);
  REQUIRE(imported.out.find("2 kept by key only") != std::string::npos);
  auto r =
      graphbook("query " + quote(dir.file("keys.book")) + " --moves 'e4 e5' --json --no-names --cql true");
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["positions"].size() == 2);
  std::set<std::string> keys = {j["positions"][0]["key"], j["positions"][1]["key"]};
  CHECK(keys == std::set<std::string>{key_hex(after_e5.key()), key_hex(after_nf3.key())});
}

namespace {

// The model's positions reachable from the start, level by level (plies from
// the start), each level in key order: the order the walk visits them in.
std::vector<std::vector<Key>> levels_in_key_order() {
  std::vector<std::vector<Key>> levels;
  for (const auto& [key, n] : model().nodes) {
    if (n.distance < 0) continue;
    if (levels.size() <= std::size_t(n.distance)) levels.resize(std::size_t(n.distance) + 1);
    levels[std::size_t(n.distance)].push_back(key);
  }
  for (auto& level : levels) std::sort(level.begin(), level.end());
  return levels;
}

}  // namespace

TEST_CASE("query --max-nodes stops the walk at the budget, having visited the positions nearest the start",
          "[query]") {
  Book book;
  // A budget that ends inside the fourth level: every position within two
  // plies, then the five of three plies whose keys are smallest.
  auto levels = levels_in_key_order();
  REQUIRE(levels.size() > 4);
  REQUIRE(levels[3].size() > 5);
  std::set<std::string> expected;
  for (int d = 0; d < 3; ++d)
    for (Key k : levels[std::size_t(d)]) expected.insert(key_hex(k));
  for (std::size_t i = 0; i < 5; ++i) expected.insert(key_hex(levels[3][i]));
  const std::string budget = std::to_string(expected.size());
  auto r =
      graphbook("query " + quote(book.path) + " --json --no-names --max-nodes " + budget + " --cql true");
  INFO(r.err);
  CHECK(r.status == 4);
  CHECK(r.err.find("node budget") != std::string::npos);
  CHECK(r.err.find("--max-nodes " + budget) != std::string::npos);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["stopped"] == "node budget");
  CHECK(j["nodes_visited"].get<std::size_t>() == expected.size());
  CHECK(j["matched"].get<std::size_t>() == expected.size());
  std::set<std::string> keys;
  for (const auto& p : j["positions"]) keys.insert(p["key"].get<std::string>());
  CHECK(keys == expected);
}

TEST_CASE("query --max-nodes as large as the book visits it all and is no stop", "[query]") {
  Book book;
  const std::size_t all = model().keys_where([](const ModelNode&) { return true; }).size();
  REQUIRE(all > 1000);
  auto r = graphbook("query " + quote(book.path) + " --json --no-names --max-nodes " + std::to_string(all) +
                     " --cql false");
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("budget") == std::string::npos);
  auto j = nlohmann::json::parse(r.out);
  CHECK(!j.contains("stopped"));
  CHECK(j["nodes_visited"].get<std::size_t>() == all);
}

TEST_CASE("query --time-limit 0 stops at the walk's first look at the clock, before the start position",
          "[query]") {
  Book book;
  auto r = graphbook("query " + quote(book.path) + " --json --no-names --time-limit 0 --cql true");
  INFO(r.err);
  CHECK(r.status == 4);
  CHECK(r.err.find("time budget") != std::string::npos);
  CHECK(r.err.find("--time-limit") != std::string::npos);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["stopped"] == "time budget");
  CHECK(j["nodes_visited"].get<std::size_t>() == 0);
  CHECK(j["positions"].empty());
  // Text output: what was found, then the message.
  auto text = graphbook("query " + quote(book.path) + " --count --time-limit 0 --cql true");
  CHECK(text.status == 4);
  CHECK(text.out == "matched 0 of 0 positions\n");
}
