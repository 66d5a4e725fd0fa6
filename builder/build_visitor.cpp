#include "builder/build_visitor.h"

#include <cassert>
#include <cstdint>

#include "book/store/position_hash.h"

namespace gb::builder {

namespace {

// A position of the game, and the move played from it (none: the last).
PlyRecord ply_record(const Position& pos, Move move) {
  return {pos.key(), std::uint32_t(store::position_hash(pos)), move};  // (32 bits: position_hash.h)
}

store::Result to_result(pgn::Outcome o) {
  switch (o) {
    case pgn::Outcome::WhiteWins: return store::Result::WhiteWins;
    case pgn::Outcome::BlackWins: return store::Result::BlackWins;
    case pgn::Outcome::Draw: return store::Result::Draw;
    case pgn::Outcome::Unknown: return store::Result::Unknown;
  }
  return store::Result::Unknown;
}

}  // namespace

void BuildVisitor::begin_game(const pgn::GameLocation&) {
  white_.clear();
  black_.clear();
  date_.clear();
  round_.clear();
  event_.clear();
  white_elo_ = black_elo_ = date_value_ = 0;
  speed_ = store::Speed::Unknown;
  first_ = out_.plies.size();
  moves_.clear();
  cut_ = false;
}

void BuildVisitor::tag(std::string_view name, std::string_view value) {
  if (name == "White")
    white_.assign(value);
  else if (name == "Black")
    black_.assign(value);
  else if (name == "Date")
    date_.assign(value);
  else if (name == "UTCDate" && date_.empty())
    date_.assign(value);
  else if (name == "Round")
    round_.assign(value);
  else if (name == "Event")
    event_.assign(value);
  else if (name == "WhiteElo")
    white_elo_ = parse_elo(value);
  else if (name == "BlackElo")
    black_elo_ = parse_elo(value);
  else if (name == "TimeControl")
    speed_ = store::speed_of(value);
}

pgn::Control BuildVisitor::begin_movetext(const Position& start) {
  date_value_ = parse_pgn_date(date_).value_or(0);
  bool keep = true;
  if (options_.min_elo > 0 && (white_elo_ < options_.min_elo || black_elo_ < options_.min_elo)) keep = false;
  if (options_.since && (date_value_ == 0 || date_value_ < options_.since)) keep = false;
  if (options_.until && (date_value_ == 0 || date_value_ > options_.until)) keep = false;
  std::optional<Side> player_side;
  if (keep && !options_.player.empty()) {
    player_side = builder::player_side(white_, black_, options_.player, options_.side);
    keep = player_side.has_value();
  }
  if (!keep) {
    ++counts_.filtered;
    return pgn::Control::Skip;
  }
  facts_ = GameFacts{};
  facts_.side = player_side.value_or(Side::Both);
  facts_.white_elo = white_elo_;
  facts_.black_elo = black_elo_;
  facts_.year = date_value_ / 10000;
  facts_.date = date_value_;
  facts_.speed = speed_;
  facts_.first_mover = start.side_to_move();
  facts_.first_ply = start.game_ply();
  return pgn::Control::Continue;
}

pgn::Control BuildVisitor::move(const pgn::MoveEvent& e) {
  if (e.depth > 0) return pgn::Control::Skip;
  if (options_.max_ply > 0 && int(out_.plies.size() - first_) >= options_.max_ply) {
    // The position after the last counted move closes the game's path.
    out_.plies.push_back(ply_record(e.before, Move()));
    cut_ = true;
    return pgn::Control::Skip;
  }
  out_.plies.push_back(ply_record(e.before, e.move));
  if (options_.dedup) moves_.push_back(e.move.raw());
  return pgn::Control::Continue;
}

Fingerprint BuildVisitor::fingerprint() {
  Key start = out_.plies.size() > first_ ? out_.plies[first_].key : 0;
  return store::game_fingerprint({white_, black_, date_, round_, event_}, start, moves_, scratch_);
}

void BuildVisitor::end_game(const pgn::GameEnd& end) {
  if (end.skipped != pgn::SkipReason::None) {  // bad or filtered games are counted elsewhere
    out_.plies.resize(first_);
    return;
  }
  ++counts_.games;
  if (!cut_) out_.plies.push_back(ply_record(end.final_position, Move()));
  facts_.result = to_result(end.outcome);
  PendingGame& g = out_.games.emplace_back();
  g.facts = facts_;
  if (options_.dedup) g.fingerprint = fingerprint();
  // (A PartGames holds one block of the input at most: far fewer plies than 2^32.)
  assert(out_.plies.size() <= UINT32_MAX);
  g.first = std::uint32_t(first_);
  g.n = std::uint32_t(out_.plies.size() - first_);
}

void BuildVisitor::drop_last_game() {
  assert(!out_.games.empty() && counts_.games > 0);
  out_.plies.resize(out_.games.back().first);
  out_.games.pop_back();
  --counts_.games;
  ++counts_.filtered_by_query;
}

}  // namespace gb::builder
