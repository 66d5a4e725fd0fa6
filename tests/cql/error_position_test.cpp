// Where a CQL error is reported: an error at the end of a one-line query
// points just after its last character, on line 1, also when the text ends
// with the '\n' that `graphbook cql --cql TEXT` adds. The expected columns are
// counted by hand from the query text.
#include <catch2/catch.hpp>
#include <string>

#include "book/cql/parser.h"
#include "run_graphbook.h"

using namespace gb::cql;

namespace {

ParseError must_fail(const std::string& text) {
  auto r = parse(text);
  REQUIRE(std::holds_alternative<ParseError>(r));
  return std::get<ParseError>(r);
}

}  // namespace

TEST_CASE("An error at the end of a one-line query is reported on that line, after its last character",
          "[cql][parser]") {
  // "check (" is 7 characters: the end stands at column 8 of line 1.
  for (std::string text : {"check (", "check (\n", "check (  \n\n"}) {
    INFO(text);
    ParseError e = must_fail(text);
    CHECK(e.line == 1);
    CHECK(e.column == 8);
    CHECK(e.offset == 7);
  }
  // "not" is 3 characters.
  ParseError e = must_fail("not\n");
  CHECK(e.line == 1);
  CHECK(e.column == 4);
  CHECK(e.message == "unexpected end of the query");
}

TEST_CASE("An error at the end of a query of several lines points after its last line's text",
          "[cql][parser]") {
  // Line 2 is "  piece $x in": 13 characters, the end at column 14.
  ParseError e = must_fail("check\n  piece $x in\n\n");
  CHECK(e.line == 2);
  CHECK(e.column == 14);
}

TEST_CASE("graphbook cql --cql shows a one-line query's error at line 1 with the caret after the text",
          "[cql][cli]") {
  auto r = gb::test::graphbook("cql --parse --cql 'check ('");
  CHECK(r.status == 2);
  INFO(r.err);
  // The caret line: two spaces of indent, then 7 spaces for "check (", then '^'.
  CHECK(r.err.find("--cql:1:8: error: missing ')'\n  check (\n         ^\n") != std::string::npos);
  CHECK(r.err.find("--cql:2:") == std::string::npos);
}

TEST_CASE("A query that ends too early says 'unexpected end of the query' in plain English", "[cql][cli]") {
  auto r = gb::test::graphbook("cql --parse --cql 'piece $x in'");
  CHECK(r.status == 2);
  INFO(r.err);
  CHECK(r.err.find("--cql:1:12: error: unexpected end of the query\n") != std::string::npos);
  CHECK(r.err.find("unexpected the end") == std::string::npos);
  // A token that wants something else: the message names the end without "the end" after "unexpected".
  auto q = gb::test::graphbook("cql --parse --cql 'cql(input'");
  INFO(q.err);
  CHECK(q.err.find("unexpected the") == std::string::npos);
}
