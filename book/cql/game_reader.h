// Reads PGN into CQL game trees: a visitor for the PGN reader (book/pgn)
// that keeps variations, comments and NAGs, and hands over one Game per kept
// game. Skipped games (illegal moves, bad FEN, variants) are reported by the
// reader's summary, with file, line and game number.
#pragma once

#include <functional>

#include "book/cql/game.h"
#include "book/pgn/reader.h"

namespace gb::cql {

class GameTreeVisitor : public pgn::VisitorBase {
 public:
  // Called once per kept game; the Game may be moved from.
  using Callback = std::function<void(Game&)>;
  explicit GameTreeVisitor(Callback callback) : callback_(std::move(callback)) {}

  void begin_game(const pgn::GameLocation& loc);
  void tag(std::string_view name, std::string_view value);
  pgn::Control begin_movetext(const Position& start);
  pgn::Control move(const pgn::MoveEvent& e);
  void comment(std::string_view text);
  void nag(int n);
  pgn::Control begin_variation();
  void end_variation();
  void end_game(const pgn::GameEnd& end);

 private:
  Callback callback_;
  GameBuilder builder_;
  std::uint64_t game_number_ = 0;
  bool started_ = false;
};

// The reader options CQL uses: null moves are kept (CQL has "move null").
pgn::ReadOptions cql_read_options();

}  // namespace gb::cql
