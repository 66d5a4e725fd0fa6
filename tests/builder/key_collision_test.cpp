// Two positions with one Polyglot key in one build: the second is a key
// collision, counted and never merged into the first's node (docs/FORMAT.md).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "book/store/book.h"
#include "book/store/position_hash.h"
#include "book_dump.h"
#include "process.h"

using namespace gb;
using gb::test::graphbook;
using gb::test::open_book;
using gb::test::Output;
using gb::test::TempDir;

namespace {

// The colliding pair of tests/store/book_test.cpp, where both keys are computed from the
// format's published constants.
const char* kCollidingA = "2r1k3/1R4b1/N3n1R1/2qB4/3r4/5Q1R/6N1/4K3 w - - 0 1";
const char* kCollidingB = "4k3/7N/8/2n1n3/5n2/nr6/8/4K3 w - - 0 1";

// A game without moves from fen (its Event tells the games apart for the duplicate check).
std::string game_from(const std::string& event, const std::string& fen, const std::string& result) {
  return "[Event \"" + event + "\"]\n[Result \"" + result + "\"]\n[SetUp \"1\"]\n[FEN \"" + fen + "\"]\n\n" +
         result + "\n\n";
}

}  // namespace

TEST_CASE("A position whose Polyglot key another position holds is a counted collision, never merged",
          "[builder]") {
  auto a = Position::from_fen(kCollidingA), b = Position::from_fen(kCollidingB);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(a->key() == b->key());
  REQUIRE(store::position_hash(*a) != store::position_hash(*b));
  TempDir dir;
  // A's game first, then B's: the node is A's, B's game is not counted on it.
  std::string pgn =
      dir.write("collide.pgn", game_from("A", kCollidingA, "1-0") + game_from("B", kCollidingB, "0-1"));
  Output o = graphbook({"build", dir.file("c.book"), pgn, "--threads", "1", "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  auto j = nlohmann::json::parse(o.out);
  CHECK(j["games_added"] == 2);
  CHECK(j["key_collisions"] == 1);
  auto book = open_book(dir.file("c.book"));
  CHECK(book.stats().collisions == 1);
  auto node = book.node(a->key());
  REQUIRE(node);
  CHECK(node->position_hash == store::position_hash(*a));
  CHECK(node->counters.games == 1);
  CHECK(node->counters.white_wins == 1);
  CHECK(node->counters.black_wins == 0);
}
