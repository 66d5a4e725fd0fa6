#include "builder/game_index_writer.h"

namespace gb::builder {

void GameCollector::take_part(std::size_t i, std::uint64_t games_before, const PartGames& decided) {
  for (std::size_t k = 0; k < parts_[i].size(); ++k) {
    if (decided.games[k].duplicate) continue;
    store::GameToIndex& g = parts_[i][k];
    g.game.source = source_;
    g.game.number += games_before;
    games_.push_back(std::move(g));
  }
  parts_[i].clear();
}

void IndexingVisitor::begin_game(const pgn::GameLocation& location) {
  game_.game = store::StoredGame{};
  game_.game.number = location.game_number;  // within the part; take_part adds the games before it
  game_.keys.clear();
  build_done_ = false;
  build_.begin_game(location);
}

void IndexingVisitor::tag(std::string_view name, std::string_view value) {
  game_.game.tags.emplace_back(name, value);
  build_.tag(name, value);
}

pgn::Control IndexingVisitor::begin_movetext(const Position& start) {
  if (start != Position() || start.chess960()) game_.game.start_fen = start.fen();
  return build_.begin_movetext(start);  // Skip: filtered out, not added
}

pgn::Control IndexingVisitor::move(const pgn::MoveEvent& e) {
  if (e.depth > 0) return pgn::Control::Skip;
  game_.keys.push_back(e.before.key());
  game_.game.moves.push_back(e.move);
  if (!build_done_ && build_.move(e) == pgn::Control::Skip) build_done_ = true;
  return pgn::Control::Continue;
}

void IndexingVisitor::end_game(const pgn::GameEnd& end) {
  std::uint64_t accepted_before = build_.counts().games;
  build_.end_game(end);
  if (build_.counts().games == accepted_before) return;
  game_.keys.push_back(end.final_position.key());
  out_.push_back(std::move(game_));
}

}  // namespace gb::builder
