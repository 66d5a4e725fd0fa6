// Running J engines over a list of positions and storing what they say:
// the work of `graphbook analyse` (docs/VALUES.md).
//
// Positions whose stored evaluation is already as deep (--depth) or searched
// as many nodes (--nodes) are skipped, so a second run continues the first.
// Results are committed in batches, each one LMDB write transaction: a run
// killed at any moment loses at most the batch not yet committed, and the
// book stays whole. A result replaces a stored one only when it is deeper.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis/uci_engine.h"
#include "book/store/book.h"

namespace gb::analysis {

struct AnalyseOptions {
  std::vector<std::string> engine;                                  // the command line
  std::vector<std::pair<std::string, std::string>> engine_options;  // setoption name value
  SearchLimit limit;
  int jobs = 1;              // engine processes
  std::size_t batch = 32;    // results per write transaction
  double batch_seconds = 2;  // ... or as many as came in this long
};

struct AnalyseProgress {
  std::size_t done = 0;   // positions analysed (and stored or committed soon) in this run
  std::size_t total = 0;  // positions this run has to analyse
  double seconds = 0;     // since the engines started
};

struct AnalyseSummary {
  std::size_t positions = 0;  // listed
  std::size_t skipped = 0;    // already analysed as deep
  std::size_t analysed = 0;   // searched and committed in this run
  std::size_t stored = 0;     // of those, written (deeper than what the book held)
  bool interrupted = false;
  std::string engine;  // its id name
  double seconds = 0;
};

enum class AnalyseFailure { Engine, Book };
struct AnalyseError {
  AnalyseFailure kind;
  std::string message;
};

// Analyses positions with options.jobs engines. Stops taking new positions
// once stop is true (the searches running finish and are committed).
// progress is called from this thread about twice a second.
[[nodiscard]] std::optional<AnalyseError> analyse_positions(
    store::Book& book, std::span<const Position> positions, const AnalyseOptions& options,
    const std::atomic<bool>& stop, AnalyseSummary& summary,
    const std::function<void(const AnalyseProgress&)>& progress);

}  // namespace gb::analysis
