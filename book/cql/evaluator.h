// Runs a parsed CQL program over one game: the whole query at every position
// in position-ID order (mainline only unless variations are on); the game
// matches when at least one position does.
//
// An Evaluator is not thread-safe; use one per thread. The Program must
// outlive it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "book/cql/book_view.h"
#include "book/cql/game.h"
#include "book/cql/parser.h"
#include "book/cql/value.h"

namespace gb::cql {

using SortValue = std::variant<std::int64_t, std::string>;

struct GameResult {
  std::vector<int> matched_positions;  // position IDs, increasing
  // Comments added by the query (comment filters, line's automatic ones),
  // kept under the Smart Comments rule, in the order they were added; those
  // of a sort's best evaluation come last.
  struct Comment {
    int position;
    std::string text;
    bool auxiliary = false;  // from line (not a comment filter): --quiet drops it
    bool operator==(const Comment&) const = default;
  };
  std::vector<Comment> comments;
  std::vector<std::optional<SortValue>> sort_values;  // best value per sort key; nullopt when never set
  // settag / removetag edits in order: (tag, value) or (tag, nullopt) to remove.
  std::vector<std::pair<std::string, std::optional<std::string>>> tag_edits;
  std::vector<int> removed_comments;          // positions whose original comments removecomment dropped
  std::string messages;                       // output of message filters, one per line
  std::optional<std::string> assert_failure;  // set when an assert failed: the run must stop

  bool matched() const { return !matched_positions.empty(); }
};

struct EvalOptions {
  bool variations = false;
  // The book behind the game (graphbook query): what the book statistics
  // filters read; nullptr outside a book, where they are None.
  const BookView* book = nullptr;
};

class Evaluator {
 public:
  explicit Evaluator(const Program& program);
  GameResult run(const Game& game, const EvalOptions& options);
  // The query at one position of the game only (a node of the book graph,
  // which graphbook query presents as a game reaching it): as run() with
  // every other position skipped, persistent variables carried over.
  GameResult run_at(const Game& game, int position_id, const EvalOptions& options);

  // The persistent variables that are not quiet, as "name = value", in declaration order.
  std::vector<std::string> persistent_values() const;

  // Evaluates the top-level filters in order at one position of a game and
  // returns the last one's value (None when an earlier one fails); for tests.
  Value evaluate_at(const Game& game, int position_id, const EvalOptions& options = {});

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// How str, comment and message portray a value (section 9 of the reference).
std::string portray(const Value& v, const Game* game);

}  // namespace gb::cql
