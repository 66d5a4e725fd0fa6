// `graphbook merge OUT BOOK1 BOOK2 ...`: one new book holding what a build of
// all the books' inputs would hold (docs/MERGE.md). The books are read in
// key order, database by database, and OUT is written from scratch beside its
// path and renamed into place (new_book_file.h): killed at any moment, there
// is no OUT, or the whole of it.
//
// A game in two books (the same fingerprint) counts once, as a build of both
// inputs counts it: the copy in the later book is taken out again by
// replaying it, from that book's stored games (build --index-games), through
// the build's own visitor and aggregator. A book without the stored games of
// its shared games is refused, with their number.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "builder/book_shape.h"
#include "builder/build_error.h"

namespace gb::builder {

struct MergeOptions {
  // --min-games of OUT; nullopt: the books' (which must then agree).
  std::optional<std::uint32_t> min_games;
  bool progress = false;  // a progress line on stderr when it is a terminal
};

struct MergeReport {
  BookShape shape;              // OUT's
  std::uint64_t positions = 0;  // sections written to positions
  std::uint64_t nodes = 0, edges = 0;
  std::uint64_t pruned_nodes = 0, pruned_edges = 0;  // below --min-games, kept in pruned
  std::uint64_t games = 0;                           // OUT's games (stats)
  std::uint64_t shared_games = 0;                    // in more than one book: counted once
  std::uint64_t sources = 0;                         // OUT's sources
  std::uint64_t shared_sources = 0;  // the same file (xxh3) in more than one book: recorded once
  std::uint64_t stored_games = 0;
  std::uint64_t learn_records = 0;
  std::uint64_t evaluations = 0;
  std::uint64_t collisions = 0;  // positions whose key two books hold with different positions
  bool values_dropped = false;   // a book held backed-up values (graphbook values recomputes them)
};

// Errors (nullopt, *error names the file): Input when OUT exists, a book
// cannot be opened as one, two books were built with another --max-ply,
// --color or --player (or --min-games, unless options.min_games is given),
// or they share games that no book stores; Book for a damaged book, LMDB or
// file errors. Nothing is left at OUT on any error.
[[nodiscard]] std::optional<MergeReport> merge_books(const std::string& out,
                                                     const std::vector<std::string>& books,
                                                     const MergeOptions& options, BuildError* error);

// Registers `graphbook merge` (merge_command.cpp).
void add_merge_command(CLI::App& app, int& exit_status);

}  // namespace gb::builder
