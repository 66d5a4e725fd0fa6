// Parity with CQLi 1.0.8 (docs/REFERENCES.md): queries pasted from the reference's
// idioms must give the reference's answer. Expected values are the reference's stated semantics applied
// by hand to the positions written here.
#include <catch2/catch.hpp>

#include "book/cql/evaluator.h"
#include "query_helpers.h"

using namespace gb;
using namespace gb::cql;
using namespace gb::cql::test;

TEST_CASE("A comparison yields its left operand, a set compared with a number as its size", "[cql][parity]") {
  // Section 4 and section 7 "Comparison": ==, <, <=, >, >= yield the left operand's value or None;
  // a Set against a Numeric is its cardinality; two Sets compare with == and != only; != is Boolean.
  // Kings only: [Qq] is empty, [Kk] is e1 and e8.
  Game g = game_from({}, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
  // set / number: the empty set's size 0 is a number, and 0 matches.
  CHECK(eval_text(g, 0, "[Qq] == 0") == "0");
  CHECK(matches(g, 0, "[Qq] == 0"));
  CHECK(matches(g, 0, "[Qq] <= 0"));
  CHECK(matches(g, 0, "[Qq] < 1"));
  CHECK(matches(g, 0, "[Qq] >= 0"));
  CHECK_FALSE(matches(g, 0, "[Qq] > 0"));
  CHECK_FALSE(matches(g, 0, "[Qq] != 0"));
  CHECK(eval_text(g, 0, "[Kk] == 2") == "2");
  CHECK(eval_text(g, 0, "[Kk] > 1") == "2");
  CHECK(value_at(g, 0, "[Kk] < 2").is_none());
  CHECK(eval_text(g, 0, "[Kk] != 2") == "false");
  CHECK(eval_text(g, 0, "[Kk] != 3") == "true");
  // number / set: the left number is yielded.
  CHECK(eval_text(g, 0, "0 == [Qq]") == "0");
  CHECK(eval_text(g, 0, "1 < [Kk]") == "1");
  CHECK(value_at(g, 0, "3 <= [Kk]").is_none());
  CHECK(eval_text(g, 0, "2 != [Kk]") == "false");
  // set / set: equality matches even when both sets are empty.
  CHECK(matches(g, 0, "[Qq] == []"));
  CHECK(matches(g, 0, "[Kk] == [Kk]"));
  CHECK_FALSE(matches(g, 0, "[Kk] == [K]"));
  CHECK(eval_text(g, 0, "[Kk] != [K]") == "true");
  CHECK(eval_text(g, 0, "[Qq] != []") == "false");
  // number / number and the chain of section 7.
  CHECK(eval_text(g, 0, "1 < 2 < 3") == "1");
  CHECK(value_at(g, 0, "1 < 3 < 2").is_none());
  // string / string.
  CHECK(eval_text(g, 0, "\"a\" < \"b\"") == "a");
  CHECK(value_at(g, 0, "\"b\" < \"a\"").is_none());
  CHECK(eval_text(g, 0, "\"a\" == \"a\"") == "a");
  CHECK(eval_text(g, 0, "\"a\" != \"a\"") == "false");
  CHECK(eval_text(g, 0, "\"a\" != \"b\"") == "true");
}

TEST_CASE("The reference's set idioms with == [] match when the set is empty", "[cql][parity]") {
  // The smothered-mate idiom of the reference's examples: [_a] attackedby K == [] (no empty square
  // next to the king). Here every square next to e1 is occupied; e8 has five empty neighbours.
  Game g = game_from({}, "4k3/8/8/8/8/8/3PPP2/3QKB2 w - - 0 1");
  CHECK(matches(g, 0, "[_] attackedby K == []"));
  CHECK_FALSE(matches(g, 0, "[_] attackedby k == []"));  // e8 has empty squares next to it
  CHECK(matches(g, 0, "[_] attackedby K == 0"));
  CHECK(eval_text(g, 0, "[_] attackedby k == 5") == "5");  // d8 f8 d7 e7 f7
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
  CHECK(eval_text(g, 2, "currentposition != parent") == "true");
}

TEST_CASE("fliphorizontal reflects about the horizontal bisector and flipvertical about the vertical one",
          "[cql][parity][transform]") {
  // Section 21 (dihedral transforms; colour "reflects square designators about the horizontal
  // bisector", a2 <-> a7, and currenttransform names reflect_h and reflect_v). In CQL the horizontal
  // bisector lies between ranks 4 and 5 (a1 <-> a8) and the vertical one between files d and e (a1 <-> h1).
  Game g = game_from({}, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
  CHECK(eval_text(g, 0, "fliphorizontal a1") == "[a1,a8]");
  CHECK(eval_text(g, 0, "flipvertical a1") == "[a1,h1]");
  CHECK(eval_text(g, 0, "fliphorizontal b2") == "[b2,b7]");
  CHECK(eval_text(g, 0, "flipvertical b2") == "[b2,g2]");
  // flipcolor reflects about the horizontal bisector too, so a square set's colour version equals
  // fliphorizontal's.
  CHECK(eval_text(g, 0, "flipcolor c3") == "[c3,c6]");
  // flip is all eight symmetries, rotate90 the four rotations, whichever reflection is which.
  CHECK(eval_text(g, 0, "flip b1") == "[b1,g1,a2,h2,a7,h7,b8,g8]");
  CHECK(eval_text(g, 0, "rotate90 b1") == "[b1,h2,a7,g8]");
  // The white king on e1: reflected about the horizontal bisector it would stand on e8, about the vertical
  // one on d1.
  CHECK(matches(g, 0, "fliphorizontal Ke8"));
  CHECK_FALSE(matches(g, 0, "flipvertical Ke8"));
  CHECK(matches(g, 0, "flipvertical Kd1"));
  CHECK_FALSE(matches(g, 0, "fliphorizontal Kd1"));
  // Directions turn with the squares (section 21: dihedral transforms rewrite square designators and
  // directions): reflected about the horizontal bisector, up 1 e4 is down 1 e5 = e4; about the vertical
  // one, right 1 e4 is left 1 d4 = c4; right stays right under the horizontal reflection: right 1 e5.
  CHECK(eval_text(g, 0, "fliphorizontal up 1 e4") == "[e4,e5]");
  CHECK(eval_text(g, 0, "flipvertical right 1 e4") == "[c4,f4]");
  CHECK(eval_text(g, 0, "fliphorizontal right 1 e4") == "[f4,f5]");
  // The names currenttransform gives the reflections.
  CHECK(matches(g, 0, "fliphorizontal { Ke8 currenttransform == \"reflect_h\" }"));
  CHECK_FALSE(matches(g, 0, "fliphorizontal { Ke8 currenttransform == \"reflect_v\" }"));
  CHECK(matches(g, 0, "flipvertical { Kd1 currenttransform == \"reflect_v\" }"));
}

TEST_CASE("With variations off an ordinary move sees only the main line's move", "[cql][parity][move]") {
  // Section 17: with no mode, move considers the moves recorded at this position, including moves that
  // start variations; section 1/2: without variations the game tree is the main line alone.
  // 1.e4 (1.d4) e5: IDs 0 start, 1 e4, 2 e5, 3 d4.
  GameBuilder b;
  REQUIRE_FALSE(b.begin(""));
  REQUIRE_FALSE(b.add_san("e4"));
  REQUIRE(b.begin_variation());
  REQUIRE_FALSE(b.add_san("d4"));
  b.end_variation();
  REQUIRE_FALSE(b.add_san("e5"));
  Game g = b.finish(1);
  REQUIRE(g.nodes.size() == 4);
  CHECK(eval_text(g, 0, "move count") == "1");
  CHECK(eval_text(g, 0, "move to .") == "e4");
  CHECK_FALSE(matches(g, 0, "move secondary"));
  CHECK_FALSE(matches(g, 0, "move to d4"));
  CHECK(matches(g, 0, "move primary to e4"));
  const EvalOptions variations{true};
  CHECK(portray(value_at(g, 0, "move count", variations), &g) == "2");
  CHECK(portray(value_at(g, 0, "move to .", variations), &g) == "[d4,e4]");
  CHECK(value_at(g, 0, "move secondary", variations).matches());
  CHECK(value_at(g, 0, "move secondary to d4", variations).matches());
  CHECK_FALSE(value_at(g, 0, "move secondary to e4", variations).matches());
}

TEST_CASE("echo takes bare names for its two positions, as the reference writes it", "[cql][parity][echo]") {
  // Section 15 writes echo (source target) ...; section 5: identifiers are letters, digits, underscores
  // and $, so source and target are ordinary names. 1.e4 e5 2.Nf3: IDs 0..3, ply equal to the ID.
  Game g = game_from({"e4", "e5", "Nf3"});
  // Boolean: some other position is an ancestor of the current one.
  CHECK(matches(g, 3, "echo (source target) target < source"));
  CHECK_FALSE(matches(g, 0, "echo (source target) target < source"));
  // Numeric: the largest value over every position but the current one; in all includes it.
  CHECK(eval_text(g, 0, "echo (source target) target:ply") == "3");
  CHECK(eval_text(g, 3, "echo (source target) target:ply") == "2");
  CHECK(eval_text(g, 3, "echo (source target) in all target:ply") == "3");
  CHECK(eval_text(g, 3, "echo (s t) s:ply - t:ply") == "3");
  // The $ names mean the same.
  CHECK(eval_text(g, 3, "echo ($source $target) $target:ply") == "2");
  // The names live in echo's block scope only (section 8, Scope).
  auto outside = parse("echo (source target) target:ply source");
  CHECK(std::holds_alternative<ParseError>(outside));
}

TEST_CASE("shift flipcolor keeps the vertical shifts, as flipcolor shift does", "[cql][parity][transform]") {
  // Section 21, Nesting: the innermost transform applies first, so shift flipcolor Ra1 is the union over
  // every shift of Ra1 and of its colour version ra8; a shift that moves one version off the board drops
  // that version only. Ra1 shifted up 4 is Ra5; ra8 shifted down 4 and right 7 is rh4.
  Game white_rook = game_from({}, "4k3/8/8/R7/8/8/8/4K3 w - - 0 1");  // Ra5
  Game black_rook = game_from({}, "4k3/8/8/8/7r/8/8/4K3 w - - 0 1");  // rh4
  Game no_rook = game_from({}, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
  for (const char* q : {"shift flipcolor Ra1", "flipcolor shift Ra1"}) {
    INFO(q);
    CHECK(matches(white_rook, 0, q));
    CHECK(matches(black_rook, 0, q));
    CHECK_FALSE(matches(no_rook, 0, q));
  }
  // shiftvertical keeps the file: Ra1 up 4 is Ra5, ra8 never reaches h4, but Rh1's colour version rh8
  // shifted down 4 is rh4.
  CHECK(matches(white_rook, 0, "shiftvertical flipcolor Ra1"));
  CHECK_FALSE(matches(black_rook, 0, "shiftvertical flipcolor Ra1"));
  CHECK(matches(black_rook, 0, "shiftvertical flipcolor Rh1"));
}

TEST_CASE("Inside message a tag filter followed by a string prints the tag then the string",
          "[cql][parity][message]") {
  // Section 7, identity operator: message(event "X") prints the Event tag then X, while
  // message(`event "X") prints true or false (the substring test). Section 13: outside message,
  // event "X" is the substring test.
  GameBuilder b;
  b.add_tag("Event", "Linares");
  b.add_tag("White", "Kasparov");
  b.add_tag("Black", "Topalov");
  REQUIRE_FALSE(b.begin(""));
  Game g = b.finish(1);
  auto messages = [&](const std::string& text) {
    INFO(text);
    auto r = parse(text);
    if (auto* e = std::get_if<ParseError>(&r)) FAIL(e->render(text, "query"));
    Program program = std::move(std::get<Program>(r));
    Evaluator e(program);
    return e.run(g, {}).messages;
  };
  CHECK(messages("message quiet (event \" X\")") == "Linares X\n");
  CHECK(messages("message quiet (\"at \" event \"!\")") == "at Linares!\n");
  CHECK(messages("message quiet (player white \" won\")") == "Kasparov won\n");
  CHECK(messages("message quiet (`event \"Lin\")") == "true\n");
  CHECK(messages("message quiet (`event \"Wijk\")") == "false\n");
  CHECK(messages("comment (event \" X\") message quiet (\"ok\")") == "ok\n");  // parses as two args
  // Outside message the substring test is unchanged.
  CHECK(matches(g, 0, "event \"Lin\""));
  CHECK_FALSE(matches(g, 0, "event \"Wijk\""));
  CHECK(matches(g, 0, "player white \"Kasp\""));
}
