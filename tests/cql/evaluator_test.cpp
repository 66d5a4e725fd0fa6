#include "book/cql/evaluator.h"

#include <catch2/catch.hpp>

#include "query_helpers.h"

using namespace gb;
using namespace gb::cql;
using namespace gb::cql::test;

TEST_CASE("The move filter examples of the reference after 4...Bxc3+", "[cql][move]") {
  // Section 17: Black has just played 4...Bxc3+ and White will reply 5.bxc3.
  Game g = game_from({"d4", "Nf6", "c4", "e6", "Nc3", "Bb4", "e3", "Bxc3+", "bxc3"});
  const int at = 8;  // the position after 4...Bxc3+
  CHECK(eval_text(g, at, "move") == "true");
  CHECK(eval_text(g, at, "move count") == "1");
  CHECK(eval_text(g, at, "move from . previous") == "b4");
  CHECK(eval_text(g, at, "move to . previous") == "c3");
  CHECK(eval_text(g, at, "move capture . previous") == "c3");
  CHECK(eval_text(g, at, "move previous from b4") == "true");
  CHECK(eval_text(g, at, "move legal count") == "4");
  CHECK(eval_text(g, at, "move from A legal") == "[c1,d1,e1,b2]");
  CHECK(eval_text(g, at, "move to _ legal") == "[d2,e2]");
  CHECK(eval_text(g, at, "move capture . legal") == "c3");
  CHECK(eval_text(g, at, "move legal castle") == "false");
  // The reference's game is not given; in this one, counted by hand: pawns 14,
  // Ng1 3, Bc1 1, Bf1 2, Qd1 9, Ra1 1, Ke1 2 (into check included).
  CHECK(eval_text(g, at, "move pseudolegal count") == "32");
  CHECK(eval_text(g, at, "move legal reverse count") == "2");
  CHECK(eval_text(g, at, "move from . legal reverse") == "[b4,a5]");
  // previous reads its sets in the position before the move: the bishop was on b4.
  CHECK(matches(g, at, "move previous from B") == false);
  CHECK(matches(g, at, "move previous from b"));
}

TEST_CASE("None, false and the empty set fail, while 0 and the empty string match", "[cql][values]") {
  Game g = game_from({});
  CHECK(matches(g, 0, "0"));
  CHECK(matches(g, 0, "\"\""));
  CHECK_FALSE(matches(g, 0, "false"));
  CHECK_FALSE(matches(g, 0, "[]"));
  CHECK_FALSE(matches(g, 0, "parent"));  // None at the initial position
  CHECK(matches(g, 0, "power [] == 0"));
  CHECK(matches(g, 0, "power K"));  // yields 0, which matches
}

TEST_CASE("Comparisons yield their left operand and chain, and != is Boolean", "[cql][values]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, "2 < 3") == "2");
  CHECK(eval_text(g, 0, "1 < 2 < 3") == "1");
  CHECK(eval_text(g, 0, "1 < 3 < 2") == "");
  // Section 4: a set compared with a number is converted to its cardinality, the value yielded.
  CHECK(eval_text(g, 0, "[Aa] == 32") == "32");
  CHECK(eval_text(g, 0, "parent != parent") == "true");  // None on both sides
  CHECK(eval_text(g, 0, "1 != 1") == "false");
  CHECK(eval_text(g, 0, "\"abc\" < \"abd\"") == "abc");
}

TEST_CASE("Arithmetic truncates and fails on division by zero", "[cql][values]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, "10 / 3") == "3");
  CHECK(eval_text(g, 0, "10 % 3") == "1");
  CHECK_FALSE(matches(g, 0, "10 / 0"));
  CHECK(eval_text(g, 0, "-7 + 2 * 3") == "-1");
  CHECK(eval_text(g, 0, "abs -4") == "4");
  CHECK(eval_text(g, 0, "sqrt 17") == "4");
  CHECK_FALSE(matches(g, 0, "sqrt -1"));
  CHECK(eval_text(g, 0, "max(3 parent:ply 7 2)") == "7");
  CHECK(eval_text(g, 0, "min(3 7 2)") == "2");
}

TEST_CASE("If yields per the table of section 19", "[cql][values]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, "if 1 then 2") == "true");
  CHECK(eval_text(g, 0, "if a1 then false") == "false");
  CHECK(eval_text(g, 0, "if false then false") == "true");
  CHECK(eval_text(g, 0, "if true then 2 else 3") == "2");
  CHECK(eval_text(g, 0, "if true then 2 else K") == "true");
}

TEST_CASE("Strings: concatenation, length, slicing, in, indexof, int, case", "[cql][strings]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, "\"hello \" + \"world\"") == "hello world");
  CHECK(eval_text(g, 0, "#\"hello\"") == "5");
  CHECK(eval_text(g, 0, "\"ll\" in \"hello\"") == "true");
  CHECK(eval_text(g, 0, "indexof(\"ll\" \"hello\")") == "2");
  CHECK(eval_text(g, 0, "int(\"0123\")") == "123");
  CHECK(eval_text(g, 0, "int \" -12abc\"") == "-12");
  CHECK_FALSE(matches(g, 0, "int \"abc\""));
  CHECK(eval_text(g, 0, "uppercase \"abc\"") == "ABC");
  CHECK(eval_text(g, 0, "str(1 false \"abc\")") == "1falseabc");
  CHECK(eval_text(g, 0, "ascii \"A\"") == "65");
  CHECK(eval_text(g, 0, "ascii 38") == "&");
  CHECK(eval_text(g, 0, "\"A\" + \\n") == "A\n");
  // The slicing table of section 9.
  const std::pair<const char*, const char*> slices[] = {
      {"[4]", "e"},       {"[1:]", "bcde"},      {"[:3]", "abc"}, {"[-5]", "a"},
      {"[-4:-1]", "bcd"}, {"[-10:10]", "abcde"}, {"[1:1]", ""},   {"[10:20]", ""}};
  for (auto [s, want] : slices) {
    INFO(s);
    CHECK(eval_text(g, 0, std::string("$x = \"abcde\" $x") + s) == want);
  }
  CHECK_FALSE(matches(g, 0, "$x = \"abcde\" $x[5]"));
  // Section 9's regular expression examples.
  CHECK(eval_text(g, 0, "\"XABACA\" ~~ \"(A.)+\"") == "ABAC");
  CHECK(eval_text(g, 0, "\"XABACA\" ~~ \"(A.)+\" \\1") == "AC");
  CHECK(eval_text(g, 0, "\"XABACA\" ~~ \"(A.)+\" \\-1") == "3");
  CHECK_FALSE(matches(g, 0, "\"abc\" ~~ \"x\""));
  CHECK(eval_text(g, 0, "replace(\"abcd\" \".c\" \"X\")") == "aXd");
  CHECK(eval_text(g, 0, "replace(\"a1a2a3\" \"a\" \"b\" -1)") == "a1a2b3");
  CHECK(eval_text(g, 0, "replace(\"[%clk 1:00] good\" \"\\[%clk .*?\\] \" \"\")") == "good");
  CHECK_FALSE(matches(g, 0, "$x = \"abcde\" $x[-6]"));
}

TEST_CASE("The group filters read the last ~~ evaluated, even a failed one, and never another game's",
          "[cql][strings]") {
  // Section 9: \n and \-n refer to the most recently evaluated ~~ and yield
  // None if there was none or the group did not participate.
  Game g = game_from({"e4", "e5", "Nf3", "Nc6"});
  CHECK(eval_text(g, 0, "\"abc\" ~~ \"(b)\" \\1") == "b");
  CHECK_FALSE(matches(g, 0, "\"abc\" ~~ \"(b)\" not (\"xyz\" ~~ \"(q)\") \\1"));
  CHECK_FALSE(matches(g, 0, "\"abc\" ~~ \"(b)\" not (\"xyz\" ~~ \"(q)\") \\-1"));
  CHECK_FALSE(matches(g, 0, "\"ac\" ~~ \"a(b)?c\" \\1"));
  // Position by position: the match succeeds at ply 0 only (where the
  // position fails); at every later position the match fails, so \1 is None.
  CHECK(Query("not (str(ply) ~~ \"(0)\") \\1").run(g).matched_positions.empty());
  // Within a game the last match holds until the next ~~ is evaluated: after
  // ply 2, \1 is still its "r". A new game starts with none (games may run on
  // any thread in any order, so one game must not see another's groups).
  Query q("if ply == 2 { fen ~~ \"(r)\" false } else \\1");
  Evaluator e(q.program);
  CHECK(e.run(g, {}).matched_positions == std::vector<int>{3, 4});
  CHECK(e.run(game_from({}), {}).matched_positions.empty());
}

TEST_CASE("Variables: assignment matches unless the value is None, and =? needs a non-empty set",
          "[cql][variables]") {
  Game g = game_from({});
  CHECK(matches(g, 0, "$x = []"));
  CHECK_FALSE(matches(g, 0, "$x =? []"));
  CHECK_FALSE(matches(g, 0, "$x = parent"));
  CHECK(eval_text(g, 0, "$n = 3 $n += 4 $n *= 2 $n") == "14");
  CHECK(eval_text(g, 0, "$s = \"a\" $s += \"b\" $s") == "ab");
  CHECK(eval_text(g, 0, "$x = 1 unbind $x isbound $x") == "false");
  CHECK(eval_text(g, 0, "$x = 1 isbound $x") == "true");
}

TEST_CASE("Iteration, while and functions", "[cql][control]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, "square $s in a1-3 { $s & A }") == "[a1,a2]");
  CHECK(eval_text(g, 0, "square all $s in a1-3 { $s & A }") == "false");
  CHECK(eval_text(g, 0, "$i = 0 while ($i < 5) { $i += 1 } $i") == "5");
  CHECK(eval_text(g, 0, "function twice($v) { $v * 2 } twice(21)") == "42");
  // Arguments are passed by reference: the function changes the caller's variable.
  CHECK(eval_text(g, 0, "function bump($v) { $v += 1 } $n = 1 bump($n) $n") == "2");
  CHECK(eval_text(g, 0, "function bump($v) { $v += 1 } $n = 1 bump(($n)) $n") == "1");
}

TEST_CASE("Board filters on the start position", "[cql][board]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, ". attackedby A") ==
        "[b1,c1,d1,e1,f1,g1,a2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3]");
  CHECK(eval_text(g, 0, "A attacks f3") == "[g1,e2,g2]");
  CHECK(eval_text(g, 0, "power A") == "39");
  CHECK(eval_text(g, 0, "colortype e8") == "-6");
  CHECK(eval_text(g, 0, "type e8") == "6");
  CHECK(eval_text(g, 0, "file f7") == "6");
  CHECK(eval_text(g, 0, "makesquare(5 4)") == "e4");
  CHECK(eval_text(g, 0, "makesquare(\"e4\")") == "e4");
  CHECK(eval_text(g, 0, "up 1 Pe2") == "e3");
  CHECK(eval_text(g, 0, "up 0 7 a1 & [Aa]") == "[a1,a2,a7,a8]");
  CHECK(eval_text(g, 0, "between(a1 h8)") == "[b2,c3,d4,e5,f6,g7]");
  CHECK(eval_text(g, 0, "dark [Bb]") == "[c1,f8]");
  CHECK(eval_text(g, 0, "sidetomove") == "1");
  CHECK(eval_text(g, 0, "zobristkey") == "463b96181691fc9c");  // the Polyglot key of the start position
  CHECK(eval_text(g, 0, "standardfen") == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  CHECK(matches(g, 0, "fen \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\""));
  CHECK(matches(g, 0, "fen \"rAbqkbnr/pppppppp/8/8/8/8/aPPPPPPP/RNBQKBNR\"") == false);
  CHECK(matches(g, 0, "fen \"r...k..r/pppppppp/8/8/8/8/PPPPPPPP/R...K..R\""));
  CHECK(eval_text(g, 0, "isolatedpawns") == "[]");
  CHECK(eval_text(g, 0, "passedpawns") == "[]");
}

TEST_CASE("After 1.e4 the FEN shows the en passant square as CQLi writes it", "[cql][board]") {
  Game g = game_from({"e4"});
  CHECK(eval_text(g, 1, "standardfen") == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
  CHECK(eval_text(g, 1, "currentfen") == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
  CHECK(eval_text(g, 1, "zobristkey") == "823c9b50fd114196");  // Polyglot specification vector
}

TEST_CASE("Pins, rays and x-rays", "[cql][board]") {
  // White Bb5 pins Nc6 to Ke8; rook e1 x-rays through e5 pawn? Built from FEN.
  Game g = game_from({}, "4k3/8/2n5/1B6/8/8/8/4K3 w - - 0 1");
  CHECK(eval_text(g, 0, "pin") == "c6");
  CHECK(eval_text(g, 0, "pin from [Aa]") == "b5");
  CHECK(eval_text(g, 0, "pin to .") == "[d7,e8]");
  CHECK(eval_text(g, 0, "ray diagonal (B n k)") == "e8");
  CHECK(eval_text(g, 0, "ray (k n B)") == "b5");
  CHECK(eval_text(g, 0, "xray(B n k)") == "e8");
}

TEST_CASE("Pawn structure sets cover both colours", "[cql][board]") {
  Game g = game_from({}, "4k3/p4pp1/8/3P4/8/2P5/2P5/4K3 w - - 0 1");
  CHECK(eval_text(g, 0, "doubledpawns") == "[c2,c3]");
  CHECK(eval_text(g, 0, "isolatedpawns") == "a7");
  CHECK(eval_text(g, 0, "connectedpawns") == "[c2,c3,d5,f7,g7]");  // d5 is on a file next to c
  CHECK(eval_text(g, 0, "passedpawns") == "[c2,c3,d5,a7,f7,g7]");
}

TEST_CASE("Transforms: corners, shifts with elision and restrict, count", "[cql][transform]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, "flip a1") == "[a1,h1,a8,h8]");
  CHECK(eval_text(g, 0, "shiftvertical a1") == "[a1,a2,a3,a4,a5,a6,a7,a8]");
  CHECK(eval_text(g, 0, "shiftvertical [a1,h7]") == "[a1,h1,a2,h2,a3,h3,a4,h4,a5,h5,a6,h6,a7,h7,a8,h8]");
  CHECK(eval_text(g, 0, "shiftvertical restrict [a1,h7]") == "[a1,a2,h7,h8]");
  CHECK(eval_text(g, 0, "flip count {a1 a7}") == "8");
  CHECK(eval_text(g, 0, "shift flip count {a1 a7}") == "8");  // section 31: 8 in CQLi
  CHECK(eval_text(g, 0, "flipcolor count { wtm }") == "1");
  CHECK(eval_text(g, 0, "reversecolor wtm") == "false");
  // Section 21: the knight pattern (piece designators are not rewritten).
  CHECK(eval_text(g, 0, "flip up 2 right 1 N") == "[d2,e2,a3,c3,f3,h3]");
  // A string target makes the transform Boolean.
  CHECK(eval_text(g, 0, "reversecolor currenttransform") == "true");
}

TEST_CASE("Game tree filters: parent, child, find and position order", "[cql][tree]") {
  Game g = game_from({"e4", "e5", "Nf3"});
  CHECK(eval_text(g, 0, "initial") == "true");
  CHECK(eval_text(g, 3, "terminal") == "true");
  CHECK(eval_text(g, 2, "parent : ply") == "1");
  CHECK(eval_text(g, 0, "child : move previous to e4") == "true");
  CHECK(eval_text(g, 0, "find all check") == "");
  CHECK(eval_text(g, 0, "find all btm") == "2");
  CHECK(eval_text(g, 0, "find Ne5 or Nf3") == "move 2(btm)");
  CHECK(eval_text(g, 3, "find <-- initial") == "move 1(wtm)");
  CHECK(eval_text(g, 0, "position 1 < position 3") == "move 1(btm)");
  CHECK(eval_text(g, 0, "distance(position 3 position 1)") == "2");
}

TEST_CASE("Piece identity follows a piece as it moves", "[cql][pieces]") {
  Game g = game_from({"e4", "e5", "Nf3", "Nc6", "Nxe5"});
  // At the start, the g1 knight; five plies later it stands on e5.
  CHECK(eval_text(g, 0, "piece $n = Ng1 position 5 : $n") == "e5");
  CHECK(eval_text(g, 0, "piece $n = Ng1 position 5 : str($n)") == "Ne5");
  // IDs in FEN placement order: the g1 knight is the 31st piece.
  CHECK(eval_text(g, 5, "pieceid e5") == "31");
  CHECK(eval_text(g, 5, "pieceid e5 == position 0 : pieceid g1") == "31");
}

TEST_CASE("Random queries that parse evaluate without crashing", "[cql][robustness]") {
  Game g = game_from({"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "O-O", "f6"});
  const char* pieces[] = {
      "mate",  "check",   "(",         ")",        "{",     "}",        "move",    "legal", "from",
      "to",    "capture", "count",     "previous", ":",     "$x",       "=",       "+",     "-",
      "*",     "1",       "2",         "a1",       ".",     "_",        "A",       "k",     "find",
      "all",   "<--",     "flipcolor", "shift",    "#",     "~",        "|",       "&",     "in",
      "not",   "and",     "or",        "parent",   "child", "position", "power",   "up",    "ray",
      "pin",   "between", "==",        "<",        ">",     "terminal", "initial", "str",   "sort",
      "\"x\"", "line",    "-->",       "echo",     "($s",   "$t)",      "ply"};
  std::uint32_t seed = 777;
  int parsed = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string q;
    int n = 1 + int(seed % 9);
    for (int i = 0; i < n; ++i) {
      seed = seed * 1103515245u + 12345u;
      q += pieces[(seed >> 8) % (sizeof pieces / sizeof *pieces)];
      q += ' ';
    }
    auto r = parse(q);
    auto* p = std::get_if<Program>(&r);
    if (!p) continue;
    ++parsed;
    Evaluator e(*p);
    GameResult result = e.run(g, {});
    CHECK(result.matched_positions.size() <= g.nodes.size());
  }
  CHECK(parsed > 1000);
}

TEST_CASE("Imagine changes the board for its filter only", "[cql][imagine]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, "imagine sidetomove reverse : btm") == "true");
  CHECK(eval_text(g, 0, "imagine piece _ --> [Qq] : power A") == "30");
  CHECK(eval_text(g, 0, "imagine swap e1 d1 : Qe1") == "e1");
  CHECK(eval_text(g, 0, "imagine piece _ --> [Qq] : wtm") == "true");
  CHECK(eval_text(g, 0, "Qd1") == "d1");
  // Black's king in check with White to move cannot be held: None.
  CHECK_FALSE(matches(g, 0, "imagine piece Q --> e7 : true"));
}

TEST_CASE("Imagine keeps a Chess960 castling right with its rook when another rook stands further out",
          "[cql][imagine][chess960]") {
  // The start position of game 1 of python-chess's cutechess-fischerrandom.pgn
  // ([Variant "fischerandom"]): king e1, castling rooks d1 and g1 (KQkq).
  Game g = game_from({}, "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1");
  // Chess960 rules: castling puts the king on g1 (c1) and the rook on f1 (d1);
  // every square they cross or land on, but their own, must be empty.
  CHECK(matches(g, 0, "imagine piece _ --> f1 : move legal o-o"));
  CHECK(matches(g, 0, "imagine piece _ --> c1 : move legal o-o-o"));
  // A rook placed outside the castling rook never had a castling right: the
  // rights stay with g1 and d1, so castling is as legal as before.
  CHECK(matches(g, 0, "imagine piece _ --> f1 piece R --> h1 : move legal o-o"));
  CHECK(matches(g, 0, "imagine piece _ --> c1 piece R --> a1 : move legal o-o-o"));
  CHECK(matches(g, 0, "imagine piece _ --> f8 piece r --> h8 sidetomove black : move legal o-o"));
  CHECK(matches(g, 0, "imagine piece _ --> c8 piece r --> a8 sidetomove black : move legal o-o-o"));
  // Without its rook a right is gone.
  CHECK_FALSE(matches(g, 0, "imagine piece _ --> [f1,g1] piece R --> h1 : move legal o-o"));
}

TEST_CASE("A comment right after a move filter lands after the move", "[cql][comments]") {
  Game g = game_from({"e4", "e5", "Nf3"});
  GameResult r = Query("move to f3 comment(\"knight out\") (comment \"before\")").run(g);
  REQUIRE(r.matched_positions == std::vector<int>{2});
  REQUIRE(r.comments.size() == 2);
  CHECK(r.comments[0] == GameResult::Comment{3, "knight out"});
  CHECK(r.comments[1] == GameResult::Comment{2, "before"});
}

TEST_CASE("Persistent variables survive from game to game", "[cql][variables]") {
  Game a = game_from({"e4", "e5"});
  Game b = game_from({"d4"});
  Query q("persistent $positions += 1 persistent quiet $hidden = 1 check or true");
  Evaluator e(q.program);
  e.run(a, {});
  e.run(b, {});
  CHECK(e.persistent_values() == std::vector<std::string>{"$positions = 5"});
  auto bad = parse("$x = 1 persistent $x += 1");
  CHECK(std::get<ParseError>(bad).message == "variable $x is already an ordinary variable");
}

TEST_CASE("Dictionaries: read, write, autovivify on compound assignment, iterate", "[cql][variables]") {
  Game g = game_from({});
  CHECK(eval_text(g, 0, "dictionary $D $D[\"a\"] = \"x\" $D[\"a\"]") == "x");
  CHECK_FALSE(matches(g, 0, "dictionary $D $D[\"missing\"]"));
  CHECK(eval_text(g, 0, "dictionary str --> int $C $C[\"k\"] += 2 $C[\"k\"] += 3 $C[\"k\"]") == "5");
  CHECK(eval_text(g, 0, "dictionary int --> set $S $S[1] = a1 $S[2] = h8 #$S") == "2");
  CHECK(eval_text(g, 0,
                  "dictionary int --> int $S $S[1] = 5 $S[2] = 7 $t = 0 key $k in $S { $t += $S[$k] } $t") ==
        "12");
  CHECK(eval_text(g, 0, "dictionary $D $D[\"a\"] = \"x\" unbind $D[\"a\"] #$D") == "0");
  // Dictionaries are persistent: a count like this one runs over all games.
  CHECK(Query("dictionary str --> int $first initial $first[str(move from . legal)] += 1")
            .program.has_persistent());
}

TEST_CASE("Traps of section 30 behave as the reference says", "[cql][traps]") {
  Game g = game_from({"e4", "d5", "exd5"});
  // 2: an empty set is in every set; a captured piece's variable is the empty set.
  CHECK(eval_text(g, 0, "[] in a1") == "true");
  CHECK(eval_text(g, 0, "piece $p = Pe2 position 3 : $p in a-h8") == "false");  // on d5
  CHECK(eval_text(g, 0, "piece $p = pd7 position 3 : $p in a-h8") == "true");   // captured: []
  CHECK(eval_text(g, 0, "piece $p = pd7 position 3 : $p & a-h8") == "[]");
  // 5: $D[a2] is the dictionary and then a separate designator; spaces make it a subscript.
  CHECK(eval_text(g, 0, "dictionary set --> int $D $D [ a2 ] = 3 $D[ a2 ]") == "3");
  CHECK(parse("dictionary set --> int $D $D[a2]").index() == 0);
  // 21: != is true when a side is None.
  CHECK(eval_text(g, 0, "parent != position 0") == "true");
  // 28: integer division.
  CHECK(eval_text(g, 0, "10 / 3") == "3");
  // 3: =? with an empty set leaves the variable and fails.
  CHECK(eval_text(g, 0, "$x = a1 if not ($x =? []) then $x") == "true");
}

TEST_CASE("consecutivemoves counts the longest run of moves two lines share", "[cql][tree]") {
  // 1.e4 (1.d4 Nf6 2.e4 e5) Nf6 2.d4 e5: the lines e4 Nf6 d4 e5 and d4 Nf6 e4 e5 share runs of one move.
  GameBuilder b;
  REQUIRE_FALSE(b.begin(""));
  REQUIRE_FALSE(b.add_san("e4"));
  REQUIRE(b.begin_variation());
  for (const char* m : {"d4", "Nf6", "Nc3", "e5"}) REQUIRE_FALSE(b.add_san(m));
  b.end_variation();
  for (const char* m : {"Nf6", "Nc3", "e5"}) REQUIRE_FALSE(b.add_san(m));
  Game g = b.finish(1);
  // IDs: 0 start, 1 e4, 2 Nf6, 3 Nc3, 4 e5, 5 d4, 6 Nf6, 7 Nc3, 8 e5.
  REQUIRE(g.nodes.size() == 9);
  auto with_variations = [&](const std::string& q) { return Query(q).text_at(g, 0, EvalOptions{true}); };
  CHECK(with_variations("consecutivemoves(position 4 position 8)") == "3");  // Nf6 Nc3 e5
  CHECK(with_variations("consecutivemoves 4 9 (position 4 position 8)") == "");
  CHECK(with_variations("consecutivemoves(position 0 position 8)") == "");  // one is the LCA
  CHECK(eval_text(g, 0, "position 8") == "");                               // variations are off by default
}

TEST_CASE("Only the comments of a sort's best evaluation are kept", "[cql][comments]") {
  Game g = game_from({"e4", "e5", "Nf3", "Nc6"});
  GameResult r = Query("sort \"ply\" { comment(\"at \" ply) ply }").run(g);
  REQUIRE(r.comments.size() == 1);
  CHECK(r.comments[0] == GameResult::Comment{4, "at 4"});
  REQUIRE(r.sort_values[0]);
  CHECK(std::get<std::int64_t>(*r.sort_values[0]) == 4);
}

TEST_CASE("A line comments where its sequence starts and ends unless quiet", "[cql][comments][line]") {
  Game g = game_from({"e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"});
  GameResult r = Query("line --> move to e4 --> move to e5").run(g);
  REQUIRE(r.comments.size() == 2);
  CHECK(r.comments[0] == GameResult::Comment{0, "Start line that ends at move 1(btm)", true});
  CHECK(r.comments[1] == GameResult::Comment{1, "End line of length 2 that starts at move 1(wtm)", true});
  CHECK(Query("line quiet --> move to e4 --> move to e5").run(g).comments.empty());
}

TEST_CASE("evaluate_at on one evaluator is not banned by a line of an earlier call", "[cql][line]") {
  // nestban bars a line from starting inside one it matched before, in one
  // game; each evaluate_at is a fresh evaluation (the UCI book filter calls
  // it again and again on one evaluator).
  Game g = game_from({"e4", "e5", "Nf3", "Nc6"});
  Query q("line nestban --> . {2,}");
  const bool fresh = q.at(g, 1).matches();
  REQUIRE(fresh);
  Evaluator e(q.program);
  REQUIRE(e.evaluate_at(g, 0).matches());
  CHECK(e.evaluate_at(g, 1).matches() == fresh);
}
