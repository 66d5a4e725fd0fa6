// `graphbook build --index-games`: keeps each game the build adds (all its
// tags and its whole mainline, beyond --max-ply) and writes them with the
// game index in the build's own transaction (book/store/game_index.h).
//
// Each parse part fills its buffer through an IndexingVisitor that wraps the
// part's BuildVisitor, so the buffer holds exactly the games the build
// visitor accepted (filtered and bad games are not), one for each
// PendingGame. After the block's dedup decisions the parts are taken in file
// order without the duplicates, which gives the index the games' order
// within their source.
#pragma once

#include <cstdint>
#include <vector>

#include "book/pgn/visitor.h"
#include "book/store/game_index.h"
#include "builder/build_visitor.h"

namespace gb::builder {

class GameCollector {
 public:
  GameCollector() = default;
  // Parse parts of a block from now on.
  void set_parts(std::size_t parts) { parts_.resize(parts); }

  // Games taken from now on belong to the source with this index in
  // Book::sources() order.
  void begin_source(std::uint32_t source_index) { source_ = source_index; }
  // The part buffer one parse thread fills.
  std::vector<store::GameToIndex>& part(std::size_t i) { return parts_[i]; }
  // Moves the games of part i (read after games_before games of the source)
  // that decided does not mark duplicate to the end of the build's list,
  // numbering them within the source.
  void take_part(std::size_t i, std::uint64_t games_before, const PartGames& decided);

  const std::vector<store::GameToIndex>& games() const { return games_; }
  // Writes the kept games and their index rows (inside the commit batch).
  [[nodiscard]] store::Status write(store::WriteTxn& txn) const {
    return store::add_indexed_games(txn, games_);
  }

 private:
  std::vector<std::vector<store::GameToIndex>> parts_;
  std::vector<store::GameToIndex> games_;
  std::uint32_t source_ = 0;
};

// Forwards every event to the build's visitor and keeps the games it adds.
// Reads on past --max-ply (the build visitor stops being told there).
class IndexingVisitor : public pgn::VisitorBase {
 public:
  IndexingVisitor(BuildVisitor& build, std::vector<store::GameToIndex>& out) : build_(build), out_(out) {}

  void begin_game(const pgn::GameLocation& location);
  void tag(std::string_view name, std::string_view value);
  pgn::Control begin_movetext(const Position& start);
  pgn::Control move(const pgn::MoveEvent& e);
  void end_game(const pgn::GameEnd& end);

 private:
  BuildVisitor& build_;
  std::vector<store::GameToIndex>& out_;
  store::GameToIndex game_;
  bool build_done_ = false;  // the build visitor asked to skip the rest of the movetext
};

}  // namespace gb::builder
