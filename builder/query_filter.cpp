#include "builder/query_filter.h"

namespace gb::builder {

QueryFilterVisitor::QueryFilterVisitor(const cql::Program& program, BuildVisitor& build)
    : build_(build),
      evaluator_(program),
      tree_([this](cql::Game& game) { matched_ = evaluator_.run(game, eval_).matched(); }) {
  eval_.variations = program.header.variations;
}

void QueryFilterVisitor::begin_game(const pgn::GameLocation& location) {
  matched_ = false;
  build_reads_moves_ = true;
  build_.begin_game(location);
  tree_.begin_game(location);
}

void QueryFilterVisitor::tag(std::string_view name, std::string_view value) {
  build_.tag(name, value);
  tree_.tag(name, value);
}

pgn::Control QueryFilterVisitor::begin_movetext(const Position& start) {
  // A game the build's own filters leave out needs no query.
  if (build_.begin_movetext(start) == pgn::Control::Skip) return pgn::Control::Skip;
  return tree_.begin_movetext(start);
}

pgn::Control QueryFilterVisitor::move(const pgn::MoveEvent& e) {
  // The build reads the mainline up to its ply limit; the tree reads it all.
  if (e.depth == 0 && build_reads_moves_ && build_.move(e) == pgn::Control::Skip) build_reads_moves_ = false;
  return tree_.move(e);
}

void QueryFilterVisitor::end_game(const pgn::GameEnd& end) {
  tree_.end_game(end);  // runs the query when the game was read whole
  const std::uint64_t accepted = build_.counts().games;
  build_.end_game(end);
  if (build_.counts().games > accepted && !matched_) build_.drop_last_game();
}

}  // namespace gb::builder
