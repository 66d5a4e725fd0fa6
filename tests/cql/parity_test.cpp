// Parity with CQLi 1.0.8 (/work/shared/spec/cql-reference.md): queries pasted from the reference's
// idioms must give the reference's answer. Expected values are the reference's stated semantics applied
// by hand to the positions written here.
#include <catch2/catch.hpp>

#include "book/cql/evaluator.h"

using namespace gb;
using namespace gb::cql;

namespace {

Game game_from(const std::vector<std::string>& sans, const std::string& fen = "") {
  GameBuilder b;
  std::string error;
  REQUIRE(b.begin(fen, error));
  for (const auto& s : sans) {
    INFO(s);
    REQUIRE(b.add_san(s, error));
  }
  return b.finish(1);
}

Value value_at(const Game& g, int id, const std::string& text) {
  INFO(text);
  auto r = parse(text);
  if (auto* e = std::get_if<ParseError>(&r)) FAIL(e->render(text, "query"));
  Program program = std::move(std::get<Program>(r));
  Evaluator e(program);
  return e.evaluate_at(g, id, {});
}

std::string text_at(const Game& g, int id, const std::string& text) {
  return portray(value_at(g, id, text), &g);
}

bool matches(const Game& g, int id, const std::string& text) { return value_at(g, id, text).matches(); }

}  // namespace

TEST_CASE("A comparison yields its left operand, a set compared with a number as its size", "[cql][parity]") {
  // Section 4 and section 7 "Comparison": ==, <, <=, >, >= yield the left operand's value or None;
  // a Set against a Numeric is its cardinality; two Sets compare with == and != only; != is Boolean.
  // Kings only: [Qq] is empty, [Kk] is e1 and e8.
  Game g = game_from({}, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
  // set / number: the empty set's size 0 is a number, and 0 matches.
  CHECK(text_at(g, 0, "[Qq] == 0") == "0");
  CHECK(matches(g, 0, "[Qq] == 0"));
  CHECK(matches(g, 0, "[Qq] <= 0"));
  CHECK(matches(g, 0, "[Qq] < 1"));
  CHECK(matches(g, 0, "[Qq] >= 0"));
  CHECK_FALSE(matches(g, 0, "[Qq] > 0"));
  CHECK_FALSE(matches(g, 0, "[Qq] != 0"));
  CHECK(text_at(g, 0, "[Kk] == 2") == "2");
  CHECK(text_at(g, 0, "[Kk] > 1") == "2");
  CHECK(value_at(g, 0, "[Kk] < 2").is_none());
  CHECK(text_at(g, 0, "[Kk] != 2") == "false");
  CHECK(text_at(g, 0, "[Kk] != 3") == "true");
  // number / set: the left number is yielded.
  CHECK(text_at(g, 0, "0 == [Qq]") == "0");
  CHECK(text_at(g, 0, "1 < [Kk]") == "1");
  CHECK(value_at(g, 0, "3 <= [Kk]").is_none());
  CHECK(text_at(g, 0, "2 != [Kk]") == "false");
  // set / set: equality matches even when both sets are empty.
  CHECK(matches(g, 0, "[Qq] == []"));
  CHECK(matches(g, 0, "[Kk] == [Kk]"));
  CHECK_FALSE(matches(g, 0, "[Kk] == [K]"));
  CHECK(text_at(g, 0, "[Kk] != [K]") == "true");
  CHECK(text_at(g, 0, "[Qq] != []") == "false");
  // number / number and the chain of section 7.
  CHECK(text_at(g, 0, "1 < 2 < 3") == "1");
  CHECK(value_at(g, 0, "1 < 3 < 2").is_none());
  // string / string.
  CHECK(text_at(g, 0, "\"a\" < \"b\"") == "a");
  CHECK(value_at(g, 0, "\"b\" < \"a\"").is_none());
  CHECK(text_at(g, 0, "\"a\" == \"a\"") == "a");
  CHECK(text_at(g, 0, "\"a\" != \"a\"") == "false");
  CHECK(text_at(g, 0, "\"a\" != \"b\"") == "true");
}

TEST_CASE("The reference's set idioms with == [] match when the set is empty", "[cql][parity]") {
  // The smothered-mate idiom of the reference's examples: [_a] attackedby K == [] (no empty square
  // next to the king). Here every square next to e1 is occupied; e8 has five empty neighbours.
  Game g = game_from({}, "4k3/8/8/8/8/8/3PPP2/3QKB2 w - - 0 1");
  CHECK(matches(g, 0, "[_] attackedby K == []"));
  CHECK_FALSE(matches(g, 0, "[_] attackedby k == []"));  // e8 has empty squares next to it
  CHECK(matches(g, 0, "[_] attackedby K == 0"));
  CHECK(text_at(g, 0, "[_] attackedby k == 5") == "5");  // d8 f8 d7 e7 f7
  CHECK(matches(g, 0, "[Qq] == 1"));
  CHECK_FALSE(matches(g, 0, "[q] == 1"));
}

TEST_CASE("Positions compare by ancestry and yield the left position", "[cql][parity]") {
  // Section 7: A < B means A is an ancestor of B; <= and >= allow the same position.
  Game g = game_from({"e4", "e5", "Nf3"});
  CHECK(value_at(g, 2, "parent < currentposition").kind == Value::Kind::Position);
  CHECK(value_at(g, 2, "currentposition < parent").is_none());
  CHECK(value_at(g, 2, "currentposition > parent").kind == Value::Kind::Position);
  CHECK(matches(g, 2, "currentposition <= currentposition"));
  CHECK(matches(g, 2, "currentposition == currentposition"));
  CHECK_FALSE(matches(g, 2, "currentposition == parent"));
  CHECK(text_at(g, 2, "currentposition != parent") == "true");
}
