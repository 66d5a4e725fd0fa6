// The PGN visitor of a build: collects a game's positions (up to the ply
// limit), applies the per-game filters and fingerprints the game for dedup.
// It only collects: which copy of a duplicated game counts is decided
// afterwards in file order for a whole block (build.cpp), so that it never
// depends on which thread got there first, and then the kept games go to
// the thread's Aggregator.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "book/pgn/visitor.h"
#include "builder/aggregator.h"
#include "builder/book_writer.h"  // Fingerprint
#include "builder/dedup_set.h"
#include "builder/game_filter.h"

namespace gb::builder {

// A game a parse part accepted, waiting for the dedup decision.
struct PendingGame {
  GameFacts facts;
  Fingerprint fingerprint{};  // when dedup is on
  std::uint64_t ordinal = 0;  // its place among the book's games (buckets' first plays), when not a duplicate
  std::uint32_t first = 0, n = 0;  // its positions: PartGames::plies[first, first + n)
  bool duplicate = false;
};

// The games of one parse part, in file order.
struct PartGames {
  std::vector<PendingGame> games;
  std::vector<PlyRecord> plies;
};

struct VisitCounts {
  std::uint64_t games = 0;              // games the reader kept (legal) and the filters let through
  std::uint64_t filtered = 0;           // left out by --min-elo / --since / --until
  std::uint64_t filtered_by_query = 0;  // left out by --filter (query_filter.h)
};

class BuildVisitor : public pgn::VisitorBase {
 public:
  // Appends the games it accepts to out.
  BuildVisitor(const BuildOptions& options, PartGames& out) : options_(options), out_(out) {}

  void begin_game(const pgn::GameLocation&);
  void tag(std::string_view name, std::string_view value);
  pgn::Control begin_movetext(const Position& start);
  pgn::Control move(const pgn::MoveEvent& e);
  void end_game(const pgn::GameEnd& end);

  const VisitCounts& counts() const { return counts_; }
  // Takes back the game end_game just accepted (build --filter: the query
  // did not match it).
  void drop_last_game();

 private:
  Fingerprint fingerprint();  // of the game being read

  const BuildOptions& options_;
  PartGames& out_;
  VisitCounts counts_;

  // Per game
  std::string white_, black_, date_, round_, event_;
  int white_elo_ = 0, black_elo_ = 0, date_value_ = 0;
  store::Speed speed_ = store::Speed::Unknown;
  GameFacts facts_;
  std::size_t first_ = 0;             // the game's first position in out_.plies
  std::vector<std::uint16_t> moves_;  // every mainline move decoded (fingerprint)
  bool cut_ = false;                  // the ply limit was reached: the final position is recorded
  std::string scratch_;               // the fingerprint's input
};

}  // namespace gb::builder
