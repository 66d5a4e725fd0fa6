// Game ends on the board, from positions whose verdict is textbook chess.
#include "uci-adapter/game_end.h"

#include <catch2/catch.hpp>

#include "book/chess/notation.h"

using namespace gb;
using namespace gb::uci_adapter;

namespace {

// Plays UCI moves from the start; returns the position and the key history.
std::pair<Position, std::vector<Key>> play(std::initializer_list<const char*> moves, std::string fen = "") {
  Position pos = fen.empty() ? Position() : *Position::from_fen(fen);
  std::vector<Key> keys{pos.key()};
  for (const char* text : moves) {
    auto m = parse_uci(pos, text);
    REQUIRE(m);
    UndoInfo undo;
    pos.do_move(*m, undo);
    keys.push_back(pos.key());
  }
  return {pos, keys};
}

}  // namespace

TEST_CASE("Fool's mate is checkmate, a loss for White", "[uci-adapter]") {
  auto [pos, keys] = play({"f2f3", "e7e5", "g2g4", "d8h4"});
  CHECK(termination(pos, keys) == Termination::Checkmate);
  CHECK(outcome_for(pos, Termination::Checkmate, Color::White) == Outcome::Loss);
  CHECK(outcome_for(pos, Termination::Checkmate, Color::Black) == Outcome::Win);
}

TEST_CASE("A king with no move and no check is stalemate", "[uci-adapter]") {
  auto pos = *Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
  std::vector<Key> keys{pos.key()};
  CHECK(termination(pos, keys) == Termination::Stalemate);
}

TEST_CASE("King and bishop against king is insufficient material", "[uci-adapter]") {
  auto pos = *Position::from_fen("8/8/4k3/8/8/3BK3/8/8 w - - 0 1");
  std::vector<Key> keys{pos.key()};
  CHECK(termination(pos, keys) == Termination::InsufficientMaterial);
}

TEST_CASE("A hundred plies without capture or pawn move end the game", "[uci-adapter]") {
  auto pos = *Position::from_fen("8/8/4k3/8/8/3RK3/8/8 w - - 100 80");
  std::vector<Key> keys{pos.key()};
  CHECK(termination(pos, keys) == Termination::FiftyMoves);
}

TEST_CASE("Knights out and back twice repeat the start position three times", "[uci-adapter]") {
  auto [pos, keys] = play({"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"});
  CHECK(termination(pos, keys) == Termination::None);
  auto [pos2, keys2] = play({"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"});
  CHECK(termination(pos2, keys2) == Termination::Threefold);
}
