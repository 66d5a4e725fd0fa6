// Truncated PGN is read as a lenient reader (python-chess) reads it, and said:
// a game cut after a move is kept with what it has and a warning "missing
// result"; a game cut inside a tag gets "missing closing quote". Warnings are
// counted apart from errors, with file, line, column and game, in the
// reader's summary, so pgn-check, build, cql and learn all show them. Lines
// and columns are counted by hand in the texts below.
#include <catch2/catch.hpp>
#include <string>

#include "book/pgn/reader.h"
#include "run_graphbook.h"
#include "temp_dir.h"

using gb::test::quote;
using namespace gb::pgn;

namespace {

// Line 9 is "1. d4 d5 2. c4": its last move c4 stands at column 13.
const char* const kCutAfterMove =
    "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n"
    "[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 2. c4";

// Line 7 is `[Site "Lon`: the quote that is not closed stands at column 7.
const char* const kCutInTag = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n[Site \"Lon";

ReadSummary read(const std::string& text) {
  PgnReader reader(ByteSource::from_memory(text, "cut.pgn"));
  VisitorBase v;
  reader.read_all(v);
  return reader.summary();
}

}  // namespace

TEST_CASE("A file cut after a move keeps its last game and warns of the missing result", "[pgn][warnings]") {
  ReadSummary s = read(kCutAfterMove);
  // python-chess keeps both games: 1. e4 e5 and 1. d4 d5 2. c4.
  CHECK(s.games_read == 2);
  CHECK(s.games_kept == 2);
  CHECK(s.plies == 5);
  CHECK(s.errors == 0);  // a warning, not an error
  CHECK(s.warnings == 1);
  REQUIRE(s.stored_warnings.size() == 1);
  const ReadWarning& w = s.stored_warnings[0];
  CHECK(w.kind == WarningKind::MissingResult);
  CHECK(w.game_number == 2);
  CHECK(w.line == 9);
  CHECK(w.column == 13);
  CHECK(w.message() ==
        "cut.pgn:9:13: game 2: warning: missing result (no 1-0, 0-1, 1/2-1/2 or * ends the game)");
}

TEST_CASE("A file cut inside a tag warns of the missing closing quote and the missing result",
          "[pgn][warnings]") {
  ReadSummary s = read(kCutInTag);
  // python-chess keeps the second game too (a header of Event alone, no moves).
  CHECK(s.games_read == 2);
  CHECK(s.games_kept == 2);
  CHECK(s.errors == 0);
  CHECK(s.warnings == 2);
  REQUIRE(s.stored_warnings.size() == 2);
  CHECK(s.stored_warnings[0].kind == WarningKind::MissingClosingQuote);
  CHECK(s.stored_warnings[0].message() ==
        "cut.pgn:7:7: game 2: warning: missing closing quote in tag 'Site' (the value runs to the end of the "
        "line)");
  CHECK(s.stored_warnings[1].kind == WarningKind::MissingResult);
  CHECK(s.stored_warnings[1].game_number == 2);
}

TEST_CASE("Whole games give no warning, and a skipped game has its error and no warning too",
          "[pgn][warnings]") {
  ReadSummary whole = read("[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 1/2-1/2\n");
  CHECK(whole.games_kept == 2);
  CHECK(whole.warnings == 0);
  ReadSummary bad = read("[Event \"a\"]\n\n1. e4 Ke7 Kd6");  // Ke7: the e7 pawn stands there; skipped
  CHECK(bad.errors == 1);
  CHECK(bad.games_skipped == 1);
  CHECK(bad.warnings == 0);
}

TEST_CASE("A game ended by the next game's tags, not a result, is kept with a warning", "[pgn][warnings]") {
  // Line 3: "1. e4 e5" (e5 at column 7); the next game's tags follow on line 4.
  ReadSummary s = read("[Event \"a\"]\n\n1. e4 e5\n[Event \"b\"]\n\n1. d4 1-0\n");
  CHECK(s.games_kept == 2);
  CHECK(s.plies == 3);
  CHECK(s.errors == 0);
  REQUIRE(s.stored_warnings.size() == 1);
  CHECK(s.stored_warnings[0].message().rfind("cut.pgn:3:7: game 1: warning: missing result", 0) == 0);
}

TEST_CASE("pgn-check, build, cql and learn all show the warnings of a truncated file", "[pgn][warnings]") {
  gb::test::TempDir dir;
  const std::string cut = dir.write("cut.pgn", kCutAfterMove);
  const std::string tag = dir.write("tag.pgn", kCutInTag);
  const std::string missing = cut + ":9:13: game 2: warning: missing result";
  const std::string quote_warning = tag + ":7:7: game 2: warning: missing closing quote in tag 'Site'";

  auto check = gb::test::graphbook("pgn-check " + quote(cut) + " " + quote(tag));
  INFO(check.out);
  CHECK(check.status == 0);  // warnings do not change the exit status
  CHECK(check.out.find(missing) != std::string::npos);
  CHECK(check.out.find(quote_warning) != std::string::npos);
  CHECK(check.out.find(cut + ": 2 games, 2 kept, 0 skipped, 5 plies, 0 errors, 1 warnings") !=
        std::string::npos);
  CHECK(check.out.find("total: 4 games, 4 kept, 0 skipped, 7 plies, 0 errors, 3 warnings") !=
        std::string::npos);

  auto json = gb::test::graphbook("pgn-check --json " + quote(cut));
  CHECK(json.out.find("\"warnings\": 1") != std::string::npos);
  CHECK(json.out.find("\"kind\": \"missing result\"") != std::string::npos);

  const std::string book = dir.file("cut.book");
  auto build = gb::test::graphbook("build " + quote(book) + " " + quote(cut) + " " + quote(tag), true);
  INFO(build.out);
  CHECK(build.status == 0);
  CHECK(build.out.find(missing) != std::string::npos);
  CHECK(build.out.find(quote_warning) != std::string::npos);

  auto cql =
      gb::test::graphbook("cql -i " + quote(cut) + " --cql wtm -o " + quote(dir.file("out.pgn")), true);
  INFO(cql.out);
  CHECK(cql.out.find(missing) != std::string::npos);

  auto learn = gb::test::graphbook("learn " + quote(book) + " " + quote(cut), true);
  INFO(learn.out);
  CHECK(learn.out.find(missing) != std::string::npos);
}
