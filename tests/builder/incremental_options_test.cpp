// A book built in steps holds what one build of all its inputs makes: the
// options that decide what is counted (--max-ply, --min-games, --color) are
// the book's for every build into it, --min-games keeps the counts it leaves
// out so that a later build adds to them, and a build that adds nothing
// leaves the book (and its recorded parameters) as it was.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "book_dump.h"
#include "process.h"
#include "test_data.h"

using namespace gb;
using gb::test::build;
using gb::test::graphbook;
using gb::test::info_json;
using gb::test::open_book;
using gb::test::Output;
using gb::test::read_file;
using gb::test::TempDir;

namespace {

// twic0920.pgn cut in two at the game boundary nearest its middle: {first, second}.
std::pair<std::string, std::string> twic_halves(const TempDir& dir) {
  const std::string text = read_file(gb::test::data_path("pgn/small/twic0920.pgn"));
  REQUIRE(text.size() > 100000);
  const std::size_t cut = text.find("\n[Event ", text.size() / 2);
  REQUIRE(cut != std::string::npos);
  return {dir.write("first.pgn", text.substr(0, cut + 1)), dir.write("second.pgn", text.substr(cut + 1))};
}

std::string exported(const std::string& book) {
  const std::string bin = book + ".bin";
  Output o = graphbook({"export", book, bin});
  INFO(o.err);
  REQUIRE(o.status == 0);
  return read_file(bin);
}

// The counts info reports of a book: nodes, edges, games.
struct Counts {
  std::uint64_t nodes = 0, edges = 0, games = 0;
  bool operator==(const Counts&) const = default;
};
Counts counts(const std::string& book) {
  auto b = open_book(book);
  Counts c;
  c.games = b.stats().games;
  for (const auto& [key, value] : gb::test::sections(b, b.dbs().positions)) {
    store::SectionReader section(value);
    c.nodes += section.node().has_value();
    for (std::uint16_t move; section.next(move);) ++c.edges;
    REQUIRE(section.ok());
  }
  return c;
}

nlohmann::json params(const std::string& book) {
  auto b = open_book(book);
  return nlohmann::json::parse(b.build_params());
}

}  // namespace

TEST_CASE("A book built from two halves with --min-games 3 equals one build of both",
          "[builder][incremental]") {
  TempDir dir;
  auto [first, second] = twic_halves(dir);
  const std::string steps = dir.file("steps.book"), taken = dir.file("taken.book"),
                    one = dir.file("one.book");
  build({steps, first, "--min-games", "3"});
  build({steps, second, "--min-games", "3"});
  build({taken, first, "--min-games", "3"});
  build({taken, second});  // --min-games left out: the book's
  build({one, first, second, "--min-games", "3"});

  const Counts expected = counts(one);
  REQUIRE(expected.nodes > 1000);   // twic0920 at --max-ply 40: thousands of positions in 3 games or more
  REQUIRE(expected.games == 2245);  // the data's README: twic0920 holds 2,245 games
  CHECK(counts(steps) == expected);
  CHECK(counts(taken) == expected);
  const std::string bin = exported(one);
  REQUIRE(bin.size() > 16 * 1000);
  CHECK(exported(steps) == bin);
  CHECK(exported(taken) == bin);
  CHECK(params(taken)["min_games"] == 3);

  // The case the steps must get right: positions in 3 games or more of the
  // two halves together and in fewer of each (counted in books of each half
  // that leave nothing out).
  const std::string a = dir.file("a.book"), b = dir.file("b.book");
  build({a, first});
  build({b, second});
  auto node_games = [](const std::string& path) {
    std::map<std::string, std::uint32_t> games;
    auto book = open_book(path);
    for (const auto& [key, value] : gb::test::sections(book, book.dbs().positions))
      if (auto node = store::SectionReader(value).node()) games[key] = node->counters.games;
    return games;
  };
  auto in_a = node_games(a), in_b = node_games(b), in_one = node_games(one);
  std::size_t split = 0;
  for (const auto& [key, games] : in_one) split += in_a[key] < 3 && in_b[key] < 3;
  CHECK(split > 10);
}

TEST_CASE("A build into a book refuses a --max-ply, --min-games or --color other than the book's",
          "[builder][incremental]") {
  TempDir dir;
  auto [first, second] = twic_halves(dir);
  const std::string book = dir.file("b.book");
  build({book, first, "--max-ply", "20", "--min-games", "2", "--color", "white"});
  const std::string before = read_file(book);
  for (std::vector<std::string> options : {std::vector<std::string>{"--max-ply", "40"},
                                           {"--max-ply", "0"},
                                           {"--min-games", "1"},
                                           {"--min-games", "3"},
                                           {"--color", "both"},
                                           {"--color", "black"}}) {
    INFO(options[0] << " " << options[1]);
    std::vector<std::string> args = {"build", book, second, "--quiet"};
    args.insert(args.end(), options.begin(), options.end());
    Output o = graphbook(args);
    CHECK(o.status == 2);  // README, "Exit status": a usage error
    CHECK(o.err.find(book) != std::string::npos);
    CHECK(o.err.find(options[0]) != std::string::npos);
    CHECK(read_file(book) == before);
  }
  // Left out, they are the book's; given equal, they are accepted.
  build({book, second, "--max-ply", "20"});
  auto p = params(book);
  CHECK(p["max_ply"] == 20);
  CHECK(p["min_games"] == 2);
  CHECK(p["color"] == "white");
}

TEST_CASE("A build that adds nothing leaves the book and its recorded parameters as they were",
          "[builder][incremental]") {
  TempDir dir;
  auto [first, second] = twic_halves(dir);
  const std::string book = dir.file("b.book");
  build({book, first, "--max-ply", "20"});
  const std::string before = read_file(book);
  REQUIRE(params(book)["min_elo"] == 0);
  // The same file again, with a filter no game of it was counted under.
  Output o = graphbook({"build", book, first, "--min-elo", "2600", "--since", "2020", "--quiet"});
  INFO(o.err);
  CHECK(o.status == 0);
  CHECK(o.err.find("already in the book") != std::string::npos);
  CHECK(params(book)["min_elo"] == 0);
  CHECK(params(book)["since"] == 0);
  CHECK(read_file(book) == before);
}

TEST_CASE("An import leaves the build parameters of the book it adds to", "[builder][incremental]") {
  TempDir dir;
  auto [first, second] = twic_halves(dir);
  const std::string book = dir.file("b.book"), bin = dir.file("first.bin");
  build({book, first, "--max-ply", "20"});
  build({dir.file("other.book"), second, "--max-ply", "12"});
  REQUIRE(graphbook({"export", dir.file("other.book"), bin}).status == 0);
  Output o = graphbook({"import", book, bin});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(params(book)["max_ply"] == 20);
  // And the next build takes the book's --max-ply, not a default.
  const std::string more =
      dir.write("more.pgn", "[White \"X\"]\n[Black \"Y\"]\n[Result \"1-0\"]\n\n1. a3 1-0\n");
  build({book, more});
  CHECK(params(book)["max_ply"] == 20);
}
