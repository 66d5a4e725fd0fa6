// Runs a CQL program over a PGN input (plain, .zst or stdin) and writes the
// matching games as PGN, in input order (or sorted by the query's sort keys)
// whatever the number of threads.
//
// The input is cut at game boundaries into batches of about a megabyte; the
// main thread counts each batch's games with a movetext-skipping read (so game
// numbers are exact before any batch is evaluated) and worker threads read,
// build and evaluate the games of a batch.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/cql/evaluator.h"
#include "book/cql/game_writer.h"
#include "book/cql/parser.h"
#include "book/pgn/summary.h"

namespace gb::cql {

struct RunConfig {
  std::string input;  // path, "-" for stdin
  EvalOptions eval;
  std::optional<Range> gamenumber;
  std::optional<std::uint64_t> limit;  // stop after this many games written
  Range matchcount{1, INT64_MAX};
  bool sort_matchcount = false;
  WriteOptions write;
  int threads = 1;
  bool write_games = true;  // false: only count (benchmarks)
};

struct RunSummary {
  std::uint64_t games_read = 0;     // kept by the PGN reader and in the game-number range
  std::uint64_t games_written = 0;  // matched (within matchcount) and written
  std::uint64_t positions_matched = 0;
  pgn::ReadSummary read;                // the reader's counts and errors
  std::string fatal;                    // an input or assert failure that stopped the run
  std::vector<std::string> persistent;  // final "name = value" of persistent variables
};

// A query with persistent variables runs on one thread, so that their
// accumulation is deterministic.
//
// Calls write for each output game's PGN text, in order. Messages of message
// filters go to messages (in game order).
RunSummary run_query(const Program& program, const RunConfig& config,
                     const std::function<void(std::string_view)>& write, std::FILE* messages);

}  // namespace gb::cql
