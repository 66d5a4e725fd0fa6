#include "builder/stored_game_replay.h"

#include "book/chess/movegen.h"

namespace gb::builder {

namespace {

store::Result result_of(std::string_view tag) {
  if (tag == "1-0") return store::Result::WhiteWins;
  if (tag == "0-1") return store::Result::BlackWins;
  if (tag == "1/2-1/2" || tag == "1/2") return store::Result::Draw;
  return store::Result::Unknown;
}

pgn::Outcome outcome_of(store::Result r) {
  switch (r) {
    case store::Result::WhiteWins: return pgn::Outcome::WhiteWins;
    case store::Result::BlackWins: return pgn::Outcome::BlackWins;
    case store::Result::Draw: return pgn::Outcome::Draw;
    case store::Result::Unknown: return pgn::Outcome::Unknown;
  }
  return pgn::Outcome::Unknown;
}

}  // namespace

bool replay(const store::StoredGame& g, const BuildOptions& options, PartGames& out) {
  BuildVisitor visitor(options, out);
  visitor.begin_game(pgn::GameLocation{"", 0, g.number});
  std::string_view result;
  bool chess960 = false;
  for (const auto& [name, value] : g.tags) {
    visitor.tag(name, value);
    if (name == "Result") result = value;
    if (name == "Variant" && value.find("960") != std::string::npos) chess960 = true;
  }
  std::optional<Position> start = g.start_fen.empty() ? Position() : Position::from_fen(g.start_fen);
  if (!start) return false;
  Position pos = *start;
  if (chess960) pos.set_chess960(true);
  if (visitor.begin_movetext(pos) == pgn::Control::Skip) return false;
  bool counting = true;
  int ply = 0;
  for (Move m : g.moves) {
    UndoInfo undo;
    if (m) {
      MoveList legal;
      generate_legal(pos, legal);
      if (!legal.contains(m)) return false;
    }
    if (counting && visitor.move(pgn::MoveEvent{"", m, pos, ply, 0, 0, 0}) == pgn::Control::Skip)
      counting = false;
    if (m)
      pos.do_move(m, undo);
    else
      pos.do_null_move(undo);
    ++ply;
  }
  visitor.end_game(pgn::GameEnd{pos, ply, outcome_of(result_of(result)), pgn::SkipReason::None, false});
  return out.games.size() == 1;
}

}  // namespace gb::builder
