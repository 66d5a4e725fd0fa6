#include "book/cql/game_reader.h"

namespace gb::cql {

void GameTreeVisitor::begin_game(const pgn::GameLocation& loc) {
  builder_.reset();
  game_number_ = loc.game_number;
  started_ = false;
}

void GameTreeVisitor::tag(std::string_view name, std::string_view value) {
  builder_.add_tag(std::string(name), std::string(value));
}

pgn::Control GameTreeVisitor::begin_movetext(const Position& start) {
  builder_.begin(start);
  started_ = true;
  return pgn::Control::Continue;
}

pgn::Control GameTreeVisitor::move(const pgn::MoveEvent& e) {
  builder_.add_move(e.move, !e.move);
  return pgn::Control::Continue;
}

void GameTreeVisitor::comment(std::string_view text) {
  if (started_) builder_.add_comment(std::string(text));
}

void GameTreeVisitor::nag(int n) {
  if (started_) builder_.add_nag(n);
}

pgn::Control GameTreeVisitor::begin_variation() {
  return builder_.begin_variation() ? pgn::Control::Continue : pgn::Control::Skip;
}

void GameTreeVisitor::end_variation() { builder_.end_variation(); }

void GameTreeVisitor::end_game(const pgn::GameEnd& end) {
  if (end.skipped != pgn::SkipReason::None || !started_) {
    builder_.reset();
    return;
  }
  builder_.set_result(pgn::to_string(end.outcome));
  Game g = builder_.finish(std::int64_t(game_number_));
  callback_(g);
}

pgn::ReadOptions cql_read_options() {
  pgn::ReadOptions o;
  o.keep_null_move_games = true;
  return o;
}

}  // namespace gb::cql
