#include "uci-adapter/game_end.h"

#include <algorithm>

#include "book/chess/movegen.h"

namespace gb::uci_adapter {

std::string_view to_string(Termination t) {
  switch (t) {
    case Termination::None: return "none";
    case Termination::Checkmate: return "checkmate";
    case Termination::Stalemate: return "stalemate";
    case Termination::InsufficientMaterial: return "insufficient material";
    case Termination::FiftyMoves: return "fifty-move rule";
    case Termination::Threefold: return "threefold repetition";
  }
  return "none";
}

Termination termination(const Position& pos, std::span<const Key> history) {
  if (count_legal(pos) == 0) return pos.in_check() ? Termination::Checkmate : Termination::Stalemate;
  if (pos.insufficient_material()) return Termination::InsufficientMaterial;
  if (pos.halfmove_clock() >= 100) return Termination::FiftyMoves;
  // Positions before the last irreversible move cannot repeat the current one.
  std::size_t reversible = std::min<std::size_t>(history.size(), std::size_t(pos.halfmove_clock()) + 1);
  auto recent = history.last(reversible);
  if (std::count(recent.begin(), recent.end(), pos.key()) >= 3) return Termination::Threefold;
  return Termination::None;
}

Outcome outcome_for(const Position& pos, Termination t, Color side) {
  if (t != Termination::Checkmate) return Outcome::Draw;
  return pos.side_to_move() == side ? Outcome::Loss : Outcome::Win;
}

}  // namespace gb::uci_adapter
