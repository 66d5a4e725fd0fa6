// What the book says about one position: its own totals, its moves with
// their counters, learning and the resulting positions' totals, and the
// opening names — the data of `graphbook probe` and `pick`, and its text
// table and lichess-explorer-shaped JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "book/explore/book_reader.h"
#include "book/explore/move_choice.h"
#include "book/explore/opening_names.h"
#include "book/explore/position_arg.h"
#include "book/store/book.h"

namespace gb::explore {

struct MoveRow {
  Move move;
  std::string san;
  std::string uci;
  store::Counters counters;                      // games that played this move here
  std::optional<std::uint32_t> imported_weight;  // a move without games: the imported .bin's weight
  std::uint32_t polyglot_rank = 0;               // an imported entry's place in its .bin (ties)
  store::LearnRecord learning;                   // zero when never learned
  std::optional<store::NodeRecord> child;        // the resulting position's own totals (any move order)
  const OpeningName* opening = nullptr;          // of the resulting position, exact or inherited
  // The resulting position's backed-up value, from its own side to move
  // (`graphbook values`); the move's value for the mover is 1 - score.
  std::optional<store::BackedUpValue> child_value;

  // The resulting position was reached by games that did not play this move here.
  bool transposition() const { return child && child->counters.games != counters.games; }
};

struct PositionReport {
  Position position;
  std::optional<store::NodeRecord> node;
  store::LearnRecord node_learning;
  const OpeningName* opening = nullptr;  // exact or inherited along the line
  bool opening_exact = false;
  std::vector<MoveRow> moves;                 // most games first, then the heaviest (Polyglot weight)
  std::optional<store::Evaluation> eval;      // `graphbook analyse`'s, of the side to move
  std::optional<store::BackedUpValue> value;  // `graphbook values`'s, of the side to move
  bool in_book() const { return node.has_value() || !moves.empty(); }
};

// Reads everything about the position (names when table is not null).
[[nodiscard]] std::optional<PositionReport> make_report(BookReader& reader, const ResolvedPosition& where,
                                                        const OpeningTable* table, store::Error* error);

// A book move for move choice: the results from the mover's side (unknown
// results counted as draws, as Polyglot's make-book does), its learning, and
// the weight an imported .bin gave a move that has no games.
Candidate to_candidate(Move move, const store::EdgeRecord& edge, const store::LearnRecord& learning,
                       Color mover);
std::vector<Candidate> to_candidates(const PositionReport& report);

// The weight an imported Polyglot .bin gave a move the book has no games
// for; nullopt for a move with games (they decide) or one no .bin gave.
std::optional<std::uint32_t> imported_weight(const store::EdgeRecord& edge);

// Score of the side to move in percent over the games (unknown as draws).
double mover_score(const store::Counters& c, Color mover);
// The 95 % interval of that score (move_choice.h's wilson_interval), 0..1;
// nullopt without games.
std::optional<Interval> mover_interval(const store::Counters& c, Color mover);
// A move's backed-up value for the mover (1 - its child's), nullopt when the
// book holds none.
std::optional<store::BackedUpValue> move_value(const MoveRow& row);

std::string format_text(const PositionReport& report);
nlohmann::json format_json(const PositionReport& report);

}  // namespace gb::explore
