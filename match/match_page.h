// `graphbook match --html`: one self-contained page (inline SVG, CSS and
// script, nothing fetched) that steps through a submitted game and a stored
// game on one board. The games are aligned on the run (a step shows the
// submitted game at ply i and the stored game at ply i + stored_start -
// submitted_start); each square where the two positions differ is washed in
// the colour of the game standing a piece there, split between both colours
// where each stands a different piece. A timeline shows the two lanes with
// the run marked, and a two-column move list steps alongside, marking the
// moves just played (those that led to the board shown).
#pragma once

#include <string>
#include <vector>

#include "book/chess/position.h"
#include "match/match.h"

namespace gb::match {

struct PageGame {
  std::string name;                 // "White – Black, Event Round"
  std::vector<Position> positions;  // positions[p] at ply p
  std::vector<std::string> sans;    // sans[p] the move played from positions[p]
};

std::string match_page(const PageGame& submitted, const PageGame& stored, const MatchRun& run);

}  // namespace gb::match
