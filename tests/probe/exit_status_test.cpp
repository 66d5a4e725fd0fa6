// The exit statuses the README's table promises, for the prober's subcommands
// and for graphbook itself: 0 success, 1 nothing found, 2 a usage or input
// error, 3 a damaged book. Each case is made in the test: a small book built
// from a PGN written here, a missing path, a book cut short.
#include <catch2/catch.hpp>
#include <filesystem>

#include "probe_helpers.h"

using namespace gb;
using namespace gb::test;

namespace {

const TwoGameBooks& books() {
  static const TwoGameBooks made = make_two_game_books("exit", true);
  return made;
}

}  // namespace

TEST_CASE("An unknown subcommand is named, the subcommands are listed, and the status is 2",
          "[probe][exit]") {
  Run foo = graphbook("foo", true);
  CHECK(foo.status == 2);
  CHECK(foo.out.find("unknown subcommand 'foo'") != std::string::npos);
  for (const char* name : {"build", "probe", "pick", "match", "uci", "cql", "perft"})
    CHECK(foo.out.find("\n  " + std::string(name) + " ") != std::string::npos);
  Run none = graphbook("", true);
  CHECK(none.status == 2);
  CHECK(none.out.find("\n  probe ") != std::string::npos);
  Run bad_option = graphbook("probe " + quote(books().book) + " --no-such-option", true);
  CHECK(bad_option.status == 2);
}

TEST_CASE("Probe, pick, tree, match and novelty exit 0 found, 1 not found, 2 no book, 3 damaged book",
          "[probe][exit]") {
  const TwoGameBooks& b = books();
  const std::string game = " " + quote(b.pgn);
  struct Command {
    std::string name, found, not_found;  // arguments after the book
  };
  // Not found: a position no game reached; a game the book holds to its end (no novelty); a game
  // with no position in common (match: 1. b3 from a position set up by FEN, no shared key).
  std::string other = temp_dir() + "/exit-other.pgn";
  std::ofstream(other) << "[Event \"c\"]\n[FEN \"8/8/4k3/8/8/3RK3/8/8 w - - 0 80\"]\n[SetUp \"1\"]\n"
                          "[Result \"*\"]\n\n80. Rd4 Kf5 *\n";
  const std::string novel = temp_dir() + "/exit-novel.pgn";
  std::ofstream(novel) << "[Event \"d\"]\n[Result \"*\"]\n\n1. e4 c5 *\n";
  const std::vector<Command> commands = {
      {"probe", " --moves e4 --no-names", " --moves h4 --no-names"},
      {"pick", " --no-names --seed 1", " --moves h4 --no-names"},
      {"tree", " --moves e4 --no-names", " --moves h4 --no-names"},
      {"match", game, " " + quote(other)},
      {"novelty", " " + quote(novel), game},
  };
  for (const Command& c : commands) {
    INFO(c.name);
    CHECK(graphbook(c.name + " " + quote(b.book) + c.found, true).status == 0);
    CHECK(graphbook(c.name + " " + quote(b.book) + c.not_found, true).status == 1);
    Run missing = graphbook(c.name + " " + quote(temp_dir() + "/no-such.book") + c.found, true);
    CHECK(missing.status == 2);
    CHECK(missing.out.find("no-such.book") != std::string::npos);
    Run damaged = graphbook(c.name + " " + quote(b.damaged) + c.found, true);
    CHECK(damaged.status == 3);
    CHECK(damaged.out.find("exit-damaged.book") != std::string::npos);
  }
  // A bad argument: an illegal move, a game number past the file's end.
  CHECK(graphbook("probe " + quote(b.book) + " --moves 'e4 e4' --no-names", true).status == 2);
  CHECK(graphbook("pick " + quote(b.book) + " --moves 'Ke2' --no-names", true).status == 2);
  CHECK(graphbook("match " + quote(b.book) + game + " --game 9", true).status == 2);
  CHECK(graphbook("novelty " + quote(b.book) + game + " --game 9", true).status == 2);
}
