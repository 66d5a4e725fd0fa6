// When a game has ended on the board, and with what result.
#pragma once

#include <span>

#include "book/chess/position.h"

namespace gb::uci_adapter {

enum class Termination { None, Checkmate, Stalemate, InsufficientMaterial, FiftyMoves, Threefold };
std::string_view to_string(Termination t);

// history: the Polyglot keys of every position of the game so far, the
// current one last. Checkmate wins over the fifty-move rule (as FIDE 9.3).
Termination termination(const Position& pos, std::span<const Key> history);

// The result from the point of view of side.
enum class Outcome { Win, Draw, Loss };
// For a terminated position: checkmate loses for the side to move, the rest are draws.
Outcome outcome_for(const Position& pos, Termination t, Color side);

}  // namespace gb::uci_adapter
