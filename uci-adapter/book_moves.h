// The adapter's questions to the book: which moves a position has, and which
// one the policy plays. The choice itself is book/explore's choose() — the same code
// as `graphbook pick`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "book/chess/position.h"
#include "book/explore/move_choice.h"
#include "book/store/book.h"
#include "book/store/buckets.h"
#include "uci-adapter/book_filter.h"

namespace gb::uci_adapter {

// The book's legal moves of pos as probe candidates, results from the mover's
// side (unfinished games counted as draws, as Polyglot does). Edges whose
// move is not legal here (a key collision) are left out.
// With a bucket filter (BookRatings, ...; the book has buckets, store::
// filter_refusal): the moves of the selected games only, with their counts
// (explore::filter_report, as `graphbook probe --ratings ...` shows them).
std::vector<explore::Candidate> book_candidates(store::Book& book, const Position& pos,
                                                const store::BucketFilter* buckets = nullptr);

struct BookAnswer {
  Move move;
  Move ponder;  // the book's best reply, null when it has none
  explore::Candidate stats;
  explore::Weighing weighing;
  std::size_t candidates = 0;  // how many moves the book has here
  std::uint32_t position_games = 0;
};

// The book-exit guard (docs/UCI.md): moves left out before the policy chooses.
struct ExitGuard {
  int margin_cp = 0;            // BookExitMargin: 0 off
  int lookahead = 0;            // BookLookahead: 0 off
  std::uint32_t min_games = 1;  // BookMinGames, which each move of the lookahead's line needs
  bool active() const { return margin_cp > 0 || lookahead > 0; }
};

// Why the guard leaves move out at pos ("e2e4 backs up to -1.20, 1.55 below
// the position's evaluation +0.35 (BookExitMargin 100)"), nullopt when it
// does not. The margin needs the position's stored evaluation (`graphbook
// analyse`) and the move's backed-up value (`graphbook values`; else the
// resulting position's own evaluation): without them it leaves nothing out.
std::optional<std::string> exit_guard_reason(store::Book& book, const Position& pos, Move move,
                                             const ExitGuard& guard, bool chess960);

// The policy's move for pos among the book moves the filter and the guard
// allow, nullopt when the book has none that may play; then, when the guard
// left out every move that would have played, *left_because says why.
std::optional<BookAnswer> book_answer(store::Book& book, const Position& pos,
                                      const explore::PickOptions& options, explore::Rng& rng,
                                      const BookFilter& filter = {}, const ExitGuard& guard = {},
                                      std::string* left_because = nullptr, bool chess960 = false,
                                      const store::BucketFilter* buckets = nullptr);

// "book e2e4: 1234 games, +40% =30% -30% for the mover; learned +1 =0 -0; 20 book moves, 5000 games
// here; policy best, probability 0.45"; a move of an imported .bin without games: "book e2e4: weight
// 120 (imported, no games); ...". Never " score " (GUIs read it as an evaluation).
std::string describe(const BookAnswer& a, const Position& pos, explore::Policy policy, bool chess960);
// "book moves: e2e4 (1234 games, 56%) d2d4 (...)" for analysis mode; an imported move without games
// "e2e4 (weight 120, imported)".
std::string describe_all(const std::vector<explore::Candidate>& candidates, bool chess960);

}  // namespace gb::uci_adapter
