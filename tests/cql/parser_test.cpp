#include "book/cql/parser.h"

#include <catch2/catch.hpp>

using namespace gb::cql;

namespace {

Program must_parse(const std::string& text) {
  auto r = parse(text);
  if (auto* e = std::get_if<ParseError>(&r)) FAIL(e->render(text, "query"));
  return std::move(std::get<Program>(r));
}

ParseError must_fail(const std::string& text) {
  auto r = parse(text);
  REQUIRE(std::holds_alternative<ParseError>(r));
  return std::get<ParseError>(r);
}

// The tree without the root block, one line per filter.
std::string tree(const std::string& text) {
  Program p = must_parse(text);
  const Node& root = *p.root;
  return root.args.size() == 1 ? print_tree(*root.args[0]) : print_tree(root);
}

}  // namespace

TEST_CASE("Power binds tighter than minus, minus tighter than a comparison", "[cql][parser]") {
  CHECK(tree("power A - power a >= 10") ==
        "compare >= : Numeric\n"
        "  - : Numeric\n"
        "    power : Numeric\n"
        "      designator [PNBRQK]. : Set\n"
        "    power : Numeric\n"
        "      designator [pnbrqk]. : Set\n"
        "  number 10 : Numeric\n");
}

TEST_CASE("Precedence vitiation widens a left operand of the wrong type", "[cql][parser]") {
  // Section 28: '# str a1 * 5' is '#(str a1) * 5'.
  CHECK(tree("# str a1 * 5") ==
        "* : Numeric\n"
        "  # : Numeric\n"
        "    str : String\n"
        "      designator [a1] : Set\n"
        "  number 5 : Numeric\n");
  // 'position 0 : wtm' is '(position 0) : wtm'.
  CHECK(tree("position 0 : wtm") ==
        ": : Boolean\n"
        "  position : Position\n"
        "    number 0 : Numeric\n"
        "  wtm : Boolean\n");
  // 'int "24" + 1' and 'int "24" + "1"' both parse.
  CHECK(tree("int \"24\" + 1").rfind("+ : Numeric\n  int : Numeric\n", 0) == 0);
  CHECK(tree("int \"24\" + \"1\"").rfind("int : Numeric\n  +(string) : String\n", 0) == 0);
}

TEST_CASE("Attacks binds tighter than cardinality and comparison", "[cql][parser]") {
  CHECK(tree("square $sq in . { #A attacks $sq > a attacks $sq }")
            .find("compare > : Numeric\n"
                  "    # : Numeric\n"
                  "      attacks : Set\n") != std::string::npos);
}

TEST_CASE("Comparisons chain right to left and yield their left operand's type", "[cql][parser]") {
  CHECK(tree("2000 <= year <= 2005") ==
        "compare <= : Numeric\n"
        "  number 2000 : Numeric\n"
        "  compare <= : Numeric\n"
        "    year : Numeric\n"
        "    number 2005 : Numeric\n");
  CHECK(tree("A != 3") == "!= : Boolean\n  designator [PNBRQK]. : Set\n  number 3 : Numeric\n");
}

TEST_CASE("With-position is right associative", "[cql][parser]") {
  CHECK(tree("parent : parent : check") ==
        ": : Boolean\n  parent : Position\n  : : Boolean\n    parent : Position\n    check : Boolean\n");
}

TEST_CASE("A range is grabbed greedily: find 1 10 -3 is find [1] of 10 - 3", "[cql][parser]") {
  CHECK(tree("find 1 10 -3") ==
        "find : Numeric\n  - : Numeric\n    number 10 : Numeric\n    number 3 : Numeric\n");
}

TEST_CASE("The move filter's type depends on its first parameter and count", "[cql][parser]") {
  CHECK(tree("move from . previous").rfind("move previous result from : Set", 0) == 0);
  CHECK(tree("move previous from b4").rfind("move previous result : Boolean", 0) == 0);
  CHECK(tree("move legal count").rfind("move legal result count : Numeric", 0) == 0);
  CHECK(must_fail("move castle o-o").message == "at most one castling parameter");
  CHECK(must_fail("move from a1 from a2").message == "move parameter 'from' given twice");
  CHECK(must_fail("move legal previous").message == "at most one of previous, legal, pseudolegal");
}

TEST_CASE("Comments, braces and the cql header are accepted", "[cql][parser]") {
  Program p = must_parse(
      "cql(variations quiet matchcount 2 5) // a comment\n/* block\n comment */ { mate } ( check )");
  CHECK(p.header.variations);
  CHECK(p.header.quiet);
  REQUIRE(p.header.matchcount);
  CHECK(p.header.matchcount->lo == 2);
  CHECK(p.header.matchcount->hi == 5);
  CHECK(p.root->args.size() == 2);
}

TEST_CASE("Header file names are paths, with or without quotes", "[cql][parser]") {
  // The reference (section 2) writes cql(variations input games.pgn output hits.pgn matchcount 5 100).
  Program p = must_parse("cql(variations input games.pgn output out/mates-1.pgn matchcount 5 100) mate");
  CHECK(p.header.input == "games.pgn");
  CHECK(p.header.output == "out/mates-1.pgn");
  CHECK(p.header.variations);
  REQUIRE(p.header.matchcount);
  CHECK(p.header.matchcount->hi == 100);
  Program q = must_parse("cql(input \"my games.pgn\") check");
  CHECK(q.header.input == "my games.pgn");
  CHECK(!must_fail("cql(input)").message.empty());
}

TEST_CASE("Piece designators combine a type part and a square part", "[cql][parser]") {
  CHECK(tree("[Kk][a1,a8,h1,h8]") == "designator [Kk][a1,h1,a8,h8] : Set\n");
  CHECK(tree("d-e4-5") == "designator [d4,e4,d5,e5] : Set\n");
  CHECK(tree("Ra-h8") == "designator [R][a8,b8,c8,d8,e8,f8,g8,h8] : Set\n");
  CHECK(tree("[]") == "designator [] : Set\n");
  CHECK(tree("_") == "designator [_]. : Set\n");
}

TEST_CASE("Transforms expand into distinct rewritten copies", "[cql][parser]") {
  // Section 21: 'rotate90 a1' and 'flip a1' both give the four corners.
  CHECK(tree("flip a1").find("(4 variants)") != std::string::npos);
  CHECK(tree("rotate90 a1").find("(4 variants)") != std::string::npos);
  CHECK(tree("flipcolor { wtm K }").find("btm") != std::string::npos);
  CHECK(tree("reversecolor currenttransform").find("currenttransform \"invertcolor\"") != std::string::npos);
  // 'shift K' has no square designator to move: only the identity remains.
  CHECK(tree("shift K").find("(1 variants)") != std::string::npos);
}

TEST_CASE("An unknown filter is an error with line, column, caret and what was expected", "[cql][parser]") {
  std::string q = "mate\n  check foo";
  ParseError e = must_fail(q);
  CHECK(e.line == 2);
  CHECK(e.column == 9);
  CHECK(e.message == "unknown filter 'foo'");
  CHECK(e.render(q, "q.cql") ==
        "q.cql:2:9: error: unknown filter 'foo'\n"
        "    check foo\n"
        "          ^~~\n"
        "  expected a filter (see the filter index of the CQL reference)\n");
}

TEST_CASE("An unterminated /* comment is placed where it opens, whatever lines it runs over",
          "[cql][parser]") {
  // Found by fuzz/cql_fuzz.cpp: the error took the line of the text's end
  // and a column counted from the start of that line (q.cql:3:-8).
  std::string q = "mate\n  check /* first\nsecond";
  ParseError e = must_fail(q);
  CHECK(e.message == "unterminated /* comment");
  CHECK(e.line == 2);
  CHECK(e.column == 9);
  CHECK(e.render(q, "q.cql") ==
        "q.cql:2:9: error: unterminated /* comment\n"
        "    check /* first\n"
        "          ^\n");
}

TEST_CASE("Nested transforms that would make too many filters are refused at the transform",
          "[cql][parser]") {
  // Found by fuzz/cql_fuzz.cpp: three nested shifts and flips took minutes
  // and gigabytes to parse. Here the innermost shift makes at most 225
  // copies of a1, the middle one at most 225 of that, and the outer one
  // would make millions: it is the one refused.
  std::string q = "shift shift shift a1";
  ParseError e = must_fail(q);
  CHECK(e.line == 1);
  CHECK(e.column == 1);
  CHECK(e.message.find("nested transforms multiply") != std::string::npos);
  CHECK(e.render(q, "q").find("\n  ^~~~~\n") != std::string::npos);
  // Nested transforms of the usual kind stay well inside the limit.
  must_parse("flipcolor flip shift a1");
  must_parse("shift shift a1");
}

TEST_CASE("Nested function calls that would make too many filters are refused", "[cql][parser]") {
  // Each function calls the one before twice, and a call parses the body in
  // place: the last of n functions makes over 2^n filters. Twenty took 12 s.
  auto name = [](int i) { return std::string("f") + char('a' + i); };  // fa, fb...: not squares
  auto chain = [&](int n) {
    std::string q = "function fa(){a1 a2} ";
    for (int i = 1; i <= n; ++i)
      q += "function " + name(i) + "(){" + name(i - 1) + "() " + name(i - 1) + "()} ";
    return q + name(n) + "()";
  };
  ParseError e = must_fail(chain(20));
  CHECK(e.message.find("function calls and transforms copy their bodies") != std::string::npos);
  CHECK(e.line == 1);
  must_parse(chain(8));  // far inside the limit
}

TEST_CASE("Type errors name the operand type that was expected", "[cql][parser]") {
  CHECK(must_fail("power 3").message == "power needs a Set, this is a Numeric");
  CHECK(must_fail("\"a\" < 3").message == "cannot compare a String with a Numeric");
  CHECK(must_fail("$x").message == "variable $x is used before it is assigned");
  CHECK(must_fail("$x = check").message == "a variable cannot hold a Boolean");
  CHECK(must_fail("{ mate").message == "missing '}'");
  CHECK(must_fail("\"abc").message == "unterminated string literal");
  CHECK(must_fail("\"abc\" ~~ \"(\"").message.rfind("malformed regular expression", 0) == 0);
}

TEST_CASE("What graphbook does not implement is a parse error, never silently ignored", "[cql][parser]") {
  // docs/CQL.md, "Not implemented yet": each of these is a CQLi keyword or form.
  const char* unsupported[] = {"cqlbegin { mate }",
                               "cqlend { mate }",
                               "readfile \"x.txt\"",
                               "writefile (\"x.txt\" \"y\")",
                               "import \"x.cql\"",
                               "commandpipe",
                               "saveposition",
                               "currentmutation",
                               "reachableposition",
                               "hhdb",
                               "variant",
                               "variantwin",
                               "variantend",
                               "line nolinearize --> check",
                               "line keepallbest --> check",
                               "line verbose --> check",
                               "line title \"t\" --> check",
                               "while (\"ABC\" ~~ \".\") { message \\0 }"};
  for (const char* q : unsupported) {
    INFO(q);
    CHECK(must_fail(q).message.find("not implemented") != std::string::npos);
  }
  std::string q = "check line verbose --> check";
  CHECK(must_fail(q).render(q, "q") ==
        "q:1:12: error: line parameter 'verbose' is not implemented yet\n"
        "  check line verbose --> check\n"
        "             ^~~~~~~\n");
  // Named groups are not lexed at all.
  CHECK_FALSE(must_fail("\"ab\" ~~ \"(a)\" \\{x}").message.empty());
  // Accepted because graphbook already behaves so: line updates variables
  // non-atomically, and dictionaries run on one thread (no merge needed).
  must_parse("line nonatomic --> check");
  must_parse("dictionary (max) int --> int $d $d[1] = 2");
}

TEST_CASE("Functions are inlined, take arguments by reference and cannot recurse", "[cql][parser]") {
  must_parse("function XOR($a $b) { ($a & ~$b) | ($b & ~$a) } XOR(. attackedby A . attackedby a)");
  CHECK(must_fail("function f() { f() } f()").message ==
        "function f calls itself; CQL functions cannot recurse");
  CHECK(must_fail("function f($a) { $a } f(1 2)").message == "function f takes 1 arguments, given 2");
}

TEST_CASE("Sort keys with the same description are one key", "[cql][parser]") {
  Program p = must_parse("sort \"n\" movenumber sort min \"m\" ply sort \"n\" ply");
  REQUIRE(p.sorts.size() == 2);
  CHECK(p.sorts[1].minimize);
}

TEST_CASE("The parser never crashes on garbage or deep nesting", "[cql][parser][robustness]") {
  CHECK(must_fail(std::string(5000, '(') + "mate" + std::string(5000, ')')).message ==
        "the query nests too deeply (more than 400 levels)");
  const char* pieces[] = {"mate", "(",        ")",    "{",     "}",      "[",    "]",         "move",
                          "from", "to",       ":",    "$x",    "=",      "+",    "-",         "\"s\"",
                          "1",    "a1",       "line", "-->",   "<--",    "find", "flipcolor", "#",
                          "~",    "in",       "not",  "piece", "square", "all",  "if",        "then",
                          "else", "function", "f",    "echo",  "sort",   "?",    ","};
  std::uint32_t seed = 12345;
  int programs = 0, errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string q;
    int n = 1 + int(seed % 12);
    for (int i = 0; i < n; ++i) {
      seed = seed * 1103515245u + 12345u;
      q += pieces[(seed >> 8) % (sizeof pieces / sizeof *pieces)];
      q += ' ';
    }
    auto r = parse(q);  // either a program or an error that says where, never a crash
    if (auto* e = std::get_if<ParseError>(&r)) {
      INFO(q);
      CHECK_FALSE(e->message.empty());
      CHECK(e->line == 1);
      CHECK((e->offset >= 0 && std::size_t(e->offset) <= q.size()));
      ++errors;
    } else {
      ++programs;
    }
  }
  // The error path is what the garbage exercises: nearly every query is refused.
  CHECK(errors > 1000);
  CHECK(errors + programs == 3000);
}
