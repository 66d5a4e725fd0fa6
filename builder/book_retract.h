// `graphbook retract BOOK SOURCE`: takes a source's games back out of a
// book, exactly, so that it holds what a build of its other inputs would
// (docs/RETRACT.md). In one write transaction: killed at any moment, the book
// is as it was, or without the source.
//
// Exact because the book keeps what each source counted: its buckets (build
// --buckets: the counts of every node and edge per source, with the smallest
// ply, the years and the first play of its games) give every total anew
// without the source, and its stored games (build --index-games) give the
// fingerprints of the source's games, which a later build would otherwise
// skip as duplicates. A book without them is refused, saying which it lacks.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "builder/build_error.h"

namespace gb::builder {

struct RetractReport {
  std::string source;
  std::uint64_t files = 0;       // the source's records (inputs) marked retracted
  std::uint64_t games = 0;       // games taken out of the counts
  std::uint64_t duplicates = 0;  // the source's skipped duplicates, taken off the book's count
  std::uint64_t positions = 0;   // keys whose counts changed
  std::uint64_t nodes_removed = 0, edges_removed = 0;  // no game left
  std::uint64_t stored_games = 0, fingerprints = 0;    // removed
  std::uint64_t learn_records = 0;                     // left as they are (learning is not a source's)
  bool values_dropped = false;                         // backed-up values (graphbook values) are gone
};

// Errors (nullopt, *error names the book): Input when the book has no source
// of that name (the message lists those it has), was built without buckets,
// keeps fingerprints without stored games, or holds duplicates that may be
// copies of the source's games (a book without the source would count them,
// and the book does not keep them); Book when it is damaged or LMDB fails.
[[nodiscard]] std::optional<RetractReport> retract_source(const std::string& book_path,
                                                          const std::string& source, BuildError* error);

// Registers `graphbook retract`.
void add_retract_command(CLI::App& app, int& exit_status);

}  // namespace gb::builder
