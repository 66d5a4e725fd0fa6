// The book statistics filters over a hand-made BookView: the counts are put
// in here, and each expected value is worked out here from them.
#include "book/cql/book_stats.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "book/cql/book_view.h"
#include "query_helpers.h"

using namespace gb;
using namespace gb::cql;
using namespace gb::cql::test;

namespace {

// A book known at some positions of a test game, by position ID.
struct TestBook : BookView {
  std::map<int, BookNode> nodes;
  std::map<int, BookCounts> edges;
  const BookNode* node(int id) const override {
    auto it = nodes.find(id);
    return it == nodes.end() ? nullptr : &it->second;
  }
  const BookCounts* edge(int id) const override {
    auto it = edges.find(id);
    return it == edges.end() ? nullptr : &it->second;
  }
};

BookCounts counts(std::int64_t white, std::int64_t draws, std::int64_t black,
                  std::optional<std::int64_t> elo) {
  BookCounts c;
  c.white = white;
  c.draws = draws;
  c.black = black;
  c.games = white + draws + black;
  c.average_elo = elo;
  return c;
}

// The score of the side with `wins`, per mille and rounded down, computed the
// long way: points (a draw is half a point) over games.
std::string per_mille(std::int64_t wins, std::int64_t draws, std::int64_t games) {
  return std::to_string(
      std::int64_t(std::floor((double(wins) + double(draws) / 2.0) / double(games) * 1000.0)));
}

std::string text(const Game& g, int id, const std::string& q, const TestBook& book) {
  EvalOptions o;
  o.book = &book;
  o.variations = true;  // as graphbook query presents a node: its book moves are the children
  return portray(value_at(g, id, q, o), &g);
}
bool matches_in(const Game& g, int id, const std::string& q, const TestBook& book) {
  EvalOptions o;
  o.book = &book;
  o.variations = true;
  return value_at(g, id, q, o).matches();
}

// 1.e4 e5 (1...c5) 2.Nf3: IDs 0 start, 1 after e4, 2 after e5, 3 after Nf3, 4 after c5.
Game test_game() {
  GameBuilder b;
  REQUIRE_FALSE(b.begin(""));
  REQUIRE_FALSE(b.add_san("e4"));
  REQUIRE_FALSE(b.add_san("e5"));
  REQUIRE(b.begin_variation());
  REQUIRE_FALSE(b.add_san("c5"));
  b.end_variation();
  REQUIRE_FALSE(b.add_san("Nf3"));
  Game g = b.finish(1);
  REQUIRE(g.nodes.size() == 5);
  REQUIRE(g.nodes[4].parent == 1);
  return g;
}

TestBook test_book() {
  TestBook book;
  book.nodes[0] = {counts(4, 2, 3, 2410), 2, 0};  // 9 games, White to move
  book.nodes[1] = {counts(20, 25, 15, 2500), 2, 1};
  book.nodes[2] = {counts(11, 7, 12, std::nullopt), 1, 2};
  book.nodes[4] = {counts(0, 0, 0, std::nullopt), 0, 2};  // in the book without games (an imported move)
  book.edges[1] = counts(20, 25, 15, 2500);
  book.edges[2] = counts(11, 7, 12, 2290);
  book.edges[4] = counts(5, 3, 9, 2601);
  book.nodes[1].counts.learned = BookCounts::Learned{3, 1, 2};
  book.edges[2].learned = BookCounts::Learned{0, 4, 7};
  return book;
}

}  // namespace

TEST_CASE("The node counters of the book statistics are the book node's counts", "[cql][book]") {
  Game g = test_game();
  TestBook book = test_book();
  CHECK(text(g, 0, "bookgames", book) == "9");
  CHECK(text(g, 0, "bookwhite", book) == "4");
  CHECK(text(g, 0, "bookdraws", book) == "2");
  CHECK(text(g, 0, "bookblack", book) == "3");
  CHECK(text(g, 0, "bookelo", book) == "2410");
  CHECK(text(g, 0, "bookmoves", book) == "2");
  CHECK(text(g, 0, "bookply", book) == "0");
  CHECK(text(g, 2, "bookply", book) == "2");
  CHECK(text(g, 1, "bookgames > 50", book) == "60");
  CHECK_FALSE(matches_in(g, 2, "bookgames > 50", book));
}

TEST_CASE("bookscore is per mille for the side to move, rounded down, and None without games",
          "[cql][book]") {
  Game g = test_game();
  TestBook book = test_book();
  CHECK(text(g, 0, "bookscore", book) == per_mille(4, 2, 9));     // White to move: 555.5...
  CHECK(text(g, 1, "bookscore", book) == per_mille(15, 25, 60));  // Black to move: 458.3...
  CHECK(text(g, 2, "bookscore", book) == per_mille(11, 7, 30));
  CHECK_FALSE(matches_in(g, 4, "bookscore", book));
  CHECK(text(g, 4, "bookgames", book) == "0");  // the node is there, with no games
}

TEST_CASE("The bookmove counters describe the book move that led to the position", "[cql][book]") {
  Game g = test_game();
  TestBook book = test_book();
  CHECK(text(g, 2, "bookmovegames", book) == "30");
  CHECK(text(g, 2, "bookmovewhite", book) == "11");
  CHECK(text(g, 2, "bookmovedraws", book) == "7");
  CHECK(text(g, 2, "bookmoveblack", book) == "12");
  CHECK(text(g, 2, "bookmoveelo", book) == "2290");
  CHECK(text(g, 2, "bookmovescore", book) == per_mille(12, 7, 30));   // Black played 1...e5
  CHECK(text(g, 1, "bookmovescore", book) == per_mille(20, 25, 60));  // White played 1.e4
  CHECK_FALSE(matches_in(g, 0, "bookmovegames", book));               // no move led to the root
  CHECK_FALSE(matches_in(g, 3, "bookmovegames", book));               // 2.Nf3 is not in this book
  CHECK_FALSE(matches_in(g, 3, "bookgames", book));
}

TEST_CASE("The learned counters are None where the book has learned nothing", "[cql][book]") {
  Game g = test_game();
  TestBook book = test_book();
  CHECK(text(g, 1, "booklearnedwins", book) == "3");
  CHECK(text(g, 1, "booklearneddraws", book) == "1");
  CHECK(text(g, 1, "booklearnedlosses", book) == "2");
  CHECK_FALSE(matches_in(g, 0, "booklearnedwins", book));
  CHECK(text(g, 2, "bookmovelearnedwins", book) == "0");
  CHECK(text(g, 2, "bookmovelearneddraws", book) == "4");
  CHECK(text(g, 2, "bookmovelearnedlosses", book) == "7");
  CHECK_FALSE(matches_in(g, 1, "bookmovelearnedlosses", book));
}

TEST_CASE("Inside child, move and find bodies the book move counters describe that move", "[cql][book]") {
  Game g = test_game();
  TestBook book = test_book();
  // From 1.e4 the book has 1...e5 (30 games) and 1...c5 (17 games).
  CHECK(text(g, 1, "child(0): bookmovegames", book) == "30");
  CHECK(text(g, 1, "child(1): bookmovegames", book) == "17");
  CHECK(text(g, 1, "child(1): bookmovescore", book) == per_mille(9, 3, 17));
  CHECK(text(g, 1, "move count : {bookmovegames > 20}", book) == "1");
  CHECK(text(g, 1, "move count : { bookmovegames >= 10 } > 1", book) == "2");  // the form docs/CQL.md shows
  CHECK(text(g, 1, "move to . : {bookmoveelo > 2600}", book) == "c5");
  CHECK_FALSE(matches_in(g, 1, "move to . : {bookmoveelo > 2700}", book));
  // move legal reaches the book moves among the legal ones; the other 18 legal moves have no edge.
  CHECK(text(g, 1, "move legal count : bookmovegames", book) == "2");
  CHECK(text(g, 1, "move legal count : bookgames >= 0", book) == "2");
  CHECK(text(g, 0, "find all bookmovegames > 16", book) == "3");  // e4, e5, c5
  CHECK(text(g, 3, "parent: bookmovegames", book) == "30");
}

TEST_CASE("Colour transforms swap the White and Black book counters", "[cql][book]") {
  Game g = test_game();
  TestBook book = test_book();
  CHECK(text(g, 2, "flipcolor count bookwhite == 11", book) == "1");  // bookwhite, not bookblack == 11
  CHECK(text(g, 2, "flipcolor count bookblack == 11", book) == "1");  // its flipped version, bookwhite
}

TEST_CASE("Outside a book every book statistic is None", "[cql][book]") {
  Game g = test_game();
  for (const char* q : {"bookgames",
                        "bookwhite",
                        "bookdraws",
                        "bookblack",
                        "bookscore",
                        "bookelo",
                        "bookmoves",
                        "bookply",
                        "booklearnedwins",
                        "booklearneddraws",
                        "booklearnedlosses",
                        "bookmovegames",
                        "bookmovewhite",
                        "bookmovedraws",
                        "bookmoveblack",
                        "bookmovescore",
                        "bookmoveelo",
                        "bookmovelearnedwins",
                        "bookmovelearneddraws",
                        "bookmovelearnedlosses"}) {
    INFO(q);
    Query query(q);
    CHECK(query.at(g, 1).is_none());
    CHECK(query.program.root->args.at(0)->type == Type::Numeric);
  }
}

TEST_CASE("Each book statistics keyword names one filter, and the names round-trip", "[cql][book]") {
  CHECK_FALSE(book_stat_keyword("book"));
  CHECK_FALSE(book_stat_keyword("games"));
  auto k = book_stat_keyword("bookmovescore");
  REQUIRE(k);
  CHECK(k->first == Op::BookMoveStat);
  CHECK(k->second == BookStat::Score);
  CHECK(book_stat_name(Op::BookNodeStat, BookStat::Ply) == "bookply");
}
