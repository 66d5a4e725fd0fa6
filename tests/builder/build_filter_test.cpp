// build --filter QUERY: the book is the one built from the games that
// `graphbook cql` writes for the same query, compared byte for byte through
// `graphbook export`.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "run_graphbook.h"

using gb::test::graphbook;
using gb::test::quote;
using gb::test::TempDir;

namespace {

// Builds twic0920 through --filter and from cql's output, and compares the exports.
void compare_with_cql(const std::string& query) {
  TempDir dir("graphbook-filter");
  const std::string pgn = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string matched = dir.file("matched.pgn");
  auto cql = graphbook("cql -i " + quote(pgn) + " -o " + quote(matched) + " --cql " + quote(query));
  INFO(query << "\n" << cql.err);
  REQUIRE(cql.status == 0);
  auto direct = graphbook("build " + quote(dir.file("cql.book")) + " " + quote(matched) +
                          " --max-ply 16 --quiet --json");
  INFO(direct.err);
  REQUIRE(direct.status == 0);
  auto filtered = graphbook("build " + quote(dir.file("filter.book")) + " " + quote(pgn) +
                            " --max-ply 16 --quiet --json --filter " + quote(query));
  INFO(filtered.err);
  REQUIRE(filtered.status == 0);
  REQUIRE(graphbook("export " + quote(dir.file("cql.book")) + " " + quote(dir.file("cql.bin"))).status == 0);
  REQUIRE(
      graphbook("export " + quote(dir.file("filter.book")) + " " + quote(dir.file("filter.bin"))).status ==
      0);
  const std::string expected = gb::test::read_file(dir.file("cql.bin"));
  REQUIRE(expected.size() > 16 * 100);  // a book of some size, not two empty ones
  CHECK(gb::test::read_file(dir.file("filter.bin")) == expected);
  // The summary says how many games the query left out: those cql did not write.
  auto f = nlohmann::json::parse(filtered.out), d = nlohmann::json::parse(direct.out);
  CHECK(f["games_added"] == d["games_added"]);
  CHECK(f["filtered_by_query"].get<std::uint64_t>() ==
        f["games_read"].get<std::uint64_t>() - d["games_read"].get<std::uint64_t>());
}

}  // namespace

TEST_CASE("build --filter keeps the games with a check, as graphbook cql finds them", "[builder]") {
  compare_with_cql("check");
}

TEST_CASE("build --filter reads the whole game though the book stops at its max ply", "[builder]") {
  // The queens come off after ply 16 in most games that lose them.
  compare_with_cql("[Qq] == 0");
}

TEST_CASE("build --filter reports a query that does not parse with a caret and builds nothing", "[builder]") {
  TempDir dir("graphbook-filter");
  const std::string book = dir.file("never.book");
  auto r = graphbook("build " + quote(book) + " " + quote(gb::test::data_path("pgn/small/twic0920.pgn")) +
                     " --quiet --filter " + quote("check {"));
  CHECK(r.status == 2);
  CHECK(r.err.find("--filter:1:8: error") != std::string::npos);
  CHECK(r.err.find("^") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(book));
}
