// `graphbook export`: the book's edges as Polyglot entries, the way
// `polyglot make-book` weighs them (docs/FORMAT.md, "Polyglot export").
#pragma once

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "book/store/book.h"
#include "book/store/buckets.h"
#include "book/store/evaluation.h"
#include "book/store/polyglot.h"
#include "builder/aggregator.h"
#include "builder/build_error.h"

namespace gb::builder {

struct ExportOptions {
  int max_ply = 0;              // only moves first played before this ply; 0 = all
  std::uint32_t min_games = 1;  // occurrences of the move (make-book's -min-game)
  Side side = Side::Both;       // -only-white / -only-black
  bool uniform = false;         // every weight 1 (make-book's -uniform)
  // Only the moves of these positions (graphbook query --export); nullptr: all.
  const std::unordered_set<Key>* positions = nullptr;
  // learn = the move's engine evaluation for the mover (docs/FORMAT.md, "Polyglot export"): minus the
  // stored evaluation of the position it leads to, in centipawns (a mate +-32000), plus 2^31; 0 where
  // that position was not analysed. Off: the imported learn field, or 0.
  bool eval_learn = false;
  // Only the games of these buckets (--ratings, --speeds, --since, --until;
  // book/store/buckets.h): each move's occurrences, score, min_ply and rank
  // of first play summed over its selected buckets; moves without buckets
  // (imported) left out. nullptr: the totals. A book without buckets, or
  // a filter finer than its periods, is refused (BuildError::input).
  const store::BucketFilter* filter = nullptr;
};

// The learn field of a move whose resulting position the engine scored cp for its own side to move.
std::uint32_t eval_learn_field(const store::Evaluation& child);

// Entries sorted by key, higher weight first, then by polyglot_rank (the
// order the games first played the moves, as make-book keeps it, or the
// imported file's order), then by move (docs/FORMAT.md, "Polyglot export").
// nullopt and a BuildError::book when LMDB fails reading the book.
[[nodiscard]] std::optional<std::vector<store::PolyglotEntry>> export_entries(store::Book& book,
                                                                              const ExportOptions& options,
                                                                              BuildError* error);

}  // namespace gb::builder
