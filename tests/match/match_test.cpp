// The longest-run search over hand-made index rows (match/match.h): the
// expected runs are read off the rows by hand.
#include "match/match.h"

#include <catch2/catch.hpp>

using gb::Move;
using gb::match::longest_runs;
using gb::match::MatchRun;
using gb::store::IndexRow;
using Rows = std::vector<std::vector<IndexRow>>;

namespace {

constexpr Move kMoveA(std::uint16_t(1 << 6 | 2));
constexpr Move kMoveB(std::uint16_t(3 << 6 | 4));

}  // namespace

TEST_CASE("A run is the stretch where the stored ply less the submitted ply stays the same", "[match]") {
  // Stored game 5 reaches the submitted positions 2, 3, 4 at its plies 6, 7, 8
  // (another move order, four plies later), then plays kMoveB from ply 8.
  Rows rows(6);
  rows[2] = {{5, 6, kMoveA}};
  rows[3] = {{5, 7, kMoveA}};
  rows[4] = {{5, 8, kMoveB}};
  auto runs = longest_runs(rows, 0);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0] == MatchRun{5, 3, 2, 6, kMoveB});
  CHECK(runs[0].submitted_end_ply() == 4);
  CHECK(runs[0].stored_end_ply() == 8);
}

TEST_CASE("A group is split where the submitted plies stop following one another", "[match]") {
  // Game 1 shares plies 0-1 and 3-5 at the same difference (0): two runs, the
  // second (3 positions) is its best.
  Rows rows(6);
  rows[0] = {{1, 0, kMoveA}};
  rows[1] = {{1, 1, kMoveA}};
  rows[3] = {{1, 3, kMoveA}};
  rows[4] = {{1, 4, kMoveA}};
  rows[5] = {{1, 5, Move()}};
  auto runs = longest_runs(rows, 0);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0] == MatchRun{1, 3, 3, 3, Move()});
}

TEST_CASE("A stored game repeating a position carries two differences at once", "[match]") {
  // The submitted position 0 stands at the stored plies 0 and 4 (the stored
  // game went back to its start); plies 1-2 follow only the second.
  Rows rows(3);
  rows[0] = {{2, 0, kMoveA}, {2, 4, kMoveB}};
  rows[1] = {{2, 5, kMoveB}};
  rows[2] = {{2, 6, kMoveA}};
  auto runs = longest_runs(rows, 0);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0] == MatchRun{2, 3, 0, 4, kMoveA});
}

TEST_CASE("Equal runs go to the earliest start in the submitted game, before index order", "[match]") {
  // Game 0 (first in the index) shares plies 3-4, game 9 plies 1-2: both
  // two positions long; game 9 starts earlier in the submitted game.
  Rows rows(5);
  rows[1] = {{9, 1, kMoveA}};
  rows[2] = {{9, 2, kMoveB}};
  rows[3] = {{0, 3, kMoveA}};
  rows[4] = {{0, 4, kMoveA}};
  auto runs = longest_runs(rows, 0);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].game == 9);
  CHECK(runs[1].game == 0);
}

TEST_CASE("Equal runs with the same start go to the game the index holds first", "[match]") {
  Rows rows(3);
  rows[0] = {{7, 0, kMoveA}, {3, 0, kMoveA}, {4, 0, kMoveA}};  // not in index order: sorted by the finder
  rows[1] = {{3, 1, kMoveB}, {4, 1, kMoveA}, {7, 1, kMoveA}};
  auto runs = longest_runs(rows, 0);
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].game == 3);
  CHECK(runs[1].game == 4);
  CHECK(runs[2].game == 7);
  CHECK(runs[0].parting_move == kMoveB);
  CHECK(longest_runs(rows, 1).size() == 1);
}

TEST_CASE("The longest run wins over an earlier start and over index order", "[match]") {
  Rows rows(6);
  rows[0] = {{0, 0, kMoveA}};
  rows[3] = {{8, 0, kMoveA}};
  rows[4] = {{8, 1, kMoveA}};
  auto runs = longest_runs(rows, 0);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0] == MatchRun{8, 2, 3, 0, kMoveA});
  CHECK(runs[1] == MatchRun{0, 1, 0, 0, kMoveA});
}

TEST_CASE("A submitted game that shares nothing has no runs", "[match]") {
  Rows rows(4);
  CHECK(longest_runs(rows, 0).empty());
  CHECK(longest_runs(Rows{}, 3).empty());
}

TEST_CASE("A run finder reused for a second game forgets the first", "[match]") {
  gb::match::RunFinder finder;
  std::vector<IndexRow> a = {{1, 0, kMoveA}}, b = {{1, 1, kMoveA}}, c = {{2, 5, kMoveB}};
  finder.add_ply(0, a);
  finder.add_ply(1, b);
  CHECK(finder.best(0) == std::vector<MatchRun>{{1, 2, 0, 0, kMoveA}});
  finder.clear();
  finder.add_ply(0, c);
  CHECK(finder.best(0) == std::vector<MatchRun>{{2, 1, 0, 5, kMoveB}});
}
