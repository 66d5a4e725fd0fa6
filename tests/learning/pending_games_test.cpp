// The store of pending games (book/learning/pending_games.h) through its API: what
// `graphbook uci` records when a game ends without a result on the board,
// and how a tournament's games resolve it. The expected matches follow the
// header's rules; the games are textbook openings that TWIC 920 holds.
#include "book/learning/pending_games.h"

#include <catch2/catch.hpp>

#include "book/chess/notation.h"
#include "probe/probe_helpers.h"

using namespace gb;
using namespace gb::test;

namespace {

learning::PlayedGame game_of(std::initializer_list<const char*> ucis) {
  learning::PlayedGame g;
  Position pos;
  for (const char* uci : ucis) {
    Move m = *parse_uci(pos, uci);
    g.moves.push_back(m);
    UndoInfo undo;
    pos.do_move(m, undo);
  }
  return g;
}

learning::FinishedGame finished(std::initializer_list<const char*> ucis, pgn::Outcome result) {
  return {{{"Event", "pending test"}, {"White", "a"}, {"Black", "b"}}, game_of(ucis), result};
}

store::LearnRecord learned(store::Book& book, std::initializer_list<const char*> before, const char* uci) {
  Position pos;
  for (const char* u : before) {
    UndoInfo undo;
    pos.do_move(*parse_uci(pos, u), undo);
  }
  return book.learning(pos.key(), *parse_uci(pos, uci)).value_or(store::LearnRecord{});
}

}  // namespace

TEST_CASE("Pending games resolve by their moves, for the side the adapter played, and only once",
          "[learning]") {
  auto book = store::Book::open(twic_book_copy("pending-api.book"), store::OpenMode::ReadWrite, nullptr);
  REQUIRE(book);
  CHECK(learning::pending_games(*book).empty());
  // The adapter's last move (Nf3) was its own bestmove, never played: White resigned before.
  REQUIRE_FALSE(learning::record_pending_game(*book, game_of({"e2e4", "c7c5", "g1f3"}), Color::White, true));
  // The adapter played Black; the game went one move further than it saw.
  REQUIRE_FALSE(learning::record_pending_game(*book, game_of({"d2d4", "d7d5"}), Color::Black, false));
  // No finished game has these moves.
  REQUIRE_FALSE(learning::record_pending_game(*book, game_of({"g1f3"}), Color::White, false));
  // The finished game has no result.
  REQUIRE_FALSE(learning::record_pending_game(*book, game_of({"c2c4", "e7e5"}), Color::White, false));
  auto pending = learning::pending_games(*book);
  REQUIRE(pending.size() == 4);

  std::vector<learning::FinishedGame> tournament = {
      finished({"e2e4", "c7c5"}, pgn::Outcome::WhiteWins),
      finished({"d2d4", "d7d5", "c2c4"}, pgn::Outcome::Draw),
      finished({"c2c4", "e7e5"}, pgn::Outcome::Unknown),
  };
  learning::ResolveSummary summary;
  REQUIRE_FALSE(learning::resolve_pending_games(*book, tournament, &summary));
  CHECK(summary.resolved == 2);
  CHECK(summary.learned == 2);
  CHECK(summary.still_pending == 2);
  CHECK(learning::pending_games(*book).size() == 2);

  CHECK(learned(*book, {}, "e2e4").wins == 1);
  CHECK(learned(*book, {"e2e4"}, "c7c5").losses == 0);  // Black's move: not the adapter's
  CHECK(learned(*book, {"d2d4"}, "d7d5").draws == 1);
  CHECK(learned(*book, {}, "d2d4").draws == 0);  // White's move: not the adapter's
  CHECK(learned(*book, {}, "c2c4").wins + learned(*book, {}, "c2c4").losses == 0);

  // The same games again: nothing is pending for them any more.
  REQUIRE_FALSE(learning::resolve_pending_games(*book, tournament, &summary));
  CHECK(summary.resolved == 0);
  CHECK(summary.still_pending == 2);
  CHECK(learned(*book, {}, "e2e4").wins == 1);
}
