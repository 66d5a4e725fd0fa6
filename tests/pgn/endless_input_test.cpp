// Inputs without a game boundary for hundreds of kilobytes: one game with a
// long comment, random bytes, a program given as PGN by mistake. Every reader
// path (build, pgn-check, cql, learn) must finish on them. Each command runs
// under `timeout 120`: a deadline that only stops a hang (the inputs take well
// under a second), and the test says which command it waited for. The expected
// counts are those of the game as written here: one game, 1. e4 e5, 1-0.
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <string>

#include "run_graphbook.h"
#include "temp_dir.h"

using gb::test::quote;

namespace {

constexpr int kDeadlineSeconds = 120;

// Runs graphbook ARGS under timeout(1), stderr merged into out; fails the test
// when the deadline stopped it.
gb::test::Run run_with_deadline(const std::string& args) {
  std::string command = "timeout " + std::to_string(kDeadlineSeconds) + " '" + gb::test::graphbook_binary() +
                        "' " + args + " 2>&1";
  gb::test::Run r = gb::test::run_shell(command);
  INFO("graphbook " << args);
  if (r.status == 124)
    FAIL("graphbook " << args << " did not finish within " << kDeadlineSeconds
                      << " s: it was waited for to read an input without a game boundary");
  return r;
}

// One game whose comment holds `pairs` times "a ": no line end, no boundary.
std::string long_comment_game(std::size_t pairs) {
  std::string comment;
  for (std::size_t i = 0; i < pairs; ++i) comment += "a ";
  return "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 {" + comment + "} e5 1-0\n";
}

// The last line of text (the command's summary), for the failure message.
std::string tail(const std::string& text) {
  return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

// build, pgn-check, cql and learn each finish on the one game of pgn (made
// by long_comment_game) and read it whole.
void require_every_reader_finishes(gb::test::TempDir& dir, const std::string& pgn) {
  const std::string book = dir.file("big.book");

  auto build = run_with_deadline("build " + quote(book) + " " + quote(pgn));
  INFO(tail(build.out));
  CHECK(build.status == 0);
  CHECK(build.out.find("games read 1, added 1, duplicates 0, skipped (bad) 0") != std::string::npos);

  auto check = run_with_deadline("pgn-check " + quote(pgn));
  INFO(tail(check.out));
  CHECK(check.status == 0);
  CHECK(check.out.find("1 games, 1 kept, 0 skipped, 2 plies, 0 errors") != std::string::npos);

  // wtm holds in the start position and after 1...e5: the one game matches.
  auto cql = run_with_deadline("cql -i " + quote(pgn) + " --cql wtm -o " + quote(dir.file("out.pgn")));
  INFO(tail(cql.out));
  CHECK(cql.status == 0);
  CHECK(cql.out.find("1 games, 1 matched") != std::string::npos);

  auto learn = run_with_deadline("learn " + quote(book) + " " + quote(pgn));
  INFO(tail(learn.out));
  CHECK(learn.status == 0);
  CHECK(learn.out.find("1 games read") != std::string::npos);
}

}  // namespace

TEST_CASE("Every reader finishes on a 530 KB game without a boundary, the issue's repro", "[pgn][endless]") {
  gb::test::TempDir dir;
  // The input: 265,000 "a " in one comment, more than a build block (512 KiB).
  require_every_reader_finishes(dir, dir.write("big.pgn", long_comment_game(265000)));
}

TEST_CASE("Every reader finishes on a 6 MB game without a boundary, longer than a CQL read block",
          "[pgn][endless]") {
  gb::test::TempDir dir;
  // 3,000,000 "a ": 6 MB, more than the CQL runner's 4 MB read and many build blocks.
  require_every_reader_finishes(dir, dir.write("huge.pgn", long_comment_game(3000000)));
}

TEST_CASE("Random bytes given as PGN end every reader with a binary-data warning", "[pgn][endless]") {
  gb::test::TempDir dir;
  std::mt19937 rng(14);  // fixed: the same bytes on every run
  std::string bytes(600 * 1024, '\0');
  for (char& c : bytes) c = char(rng() & 0xff);
  const std::string input = dir.write("random.pgn", bytes);
  const std::string book = dir.file("random.book");
  const std::string warning = "warning: binary data";

  auto build = run_with_deadline("build " + quote(book) + " " + quote(input));
  INFO(tail(build.out));
  CHECK(build.status == 0);
  CHECK(build.out.find(warning) != std::string::npos);
  CHECK(build.out.find("warning: " + input + ": ") != std::string::npos);
  CHECK(build.out.find("it does not look like a PGN file") != std::string::npos);

  auto check = run_with_deadline("pgn-check " + quote(input));
  CHECK(check.out.find(input + ":") != std::string::npos);
  CHECK(check.out.find(warning) != std::string::npos);

  auto cql = run_with_deadline("cql -i " + quote(input) + " --cql wtm -o " + quote(dir.file("out.pgn")));
  CHECK(cql.out.find(warning) != std::string::npos);

  auto learn = run_with_deadline("learn " + quote(book) + " " + quote(input));
  CHECK(learn.out.find(warning) != std::string::npos);
}

TEST_CASE("A program given to build as PGN finishes with a binary-data warning naming it", "[pgn][endless]") {
  const std::string program = "/usr/games/stockfish";
  gb::test::TempDir dir;
  const std::string book = dir.file("stockfish.book");
  auto build = run_with_deadline("build " + quote(book) + " " + program);
  INFO(tail(build.out));
  CHECK(build.status == 0);
  CHECK(build.out.find(program + ":1:1: game 1: warning: binary data") != std::string::npos);
  CHECK(build.out.find("warning: " + program + ": ") != std::string::npos);
  CHECK(build.out.find("it does not look like a PGN file") != std::string::npos);

  auto check = run_with_deadline("pgn-check --max-errors 1 " + program);
  CHECK(check.out.find(program + ":1:1: game 1: warning: binary data") != std::string::npos);
}
