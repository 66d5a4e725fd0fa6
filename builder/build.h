// `graphbook build`: PGN inputs -> counters aggregated on all threads ->
// one atomic commit into the book (see book_writer.h).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "builder/book_writer.h"
#include "builder/build_error.h"
#include "builder/game_filter.h"

namespace gb::builder {

struct InputReport {
  std::string name;
  std::uint64_t bytes = 0;
  std::uint64_t games_read = 0;  // games in the file
  std::uint64_t added = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t skipped = 0;            // bad games
  std::uint64_t filtered = 0;           // left out by --min-elo/--since/--until
  std::uint64_t filtered_by_query = 0;  // left out by --filter
  int first_date = 0, last_date = 0;    // yyyymmdd of the added games' dates; 0: none dated
  std::uint64_t warnings = 0;           // the reader's (book/pgn/summary.h): a missing result, binary data...
  bool binary = false;                  // one of them: the input holds binary data, it is not PGN
  bool already_in_book = false;         // the same content was added before: nothing read
  std::string error;                    // the input could not be read (fully)
};

struct BuildReport {
  std::vector<InputReport> inputs;
  InputReport total;
  std::uint64_t plies = 0;
  CommitResult commit;
  std::uint64_t collisions = 0;
  std::uint64_t spills = 0;
  std::uint64_t bucket_spills = 0;       // run files of the buckets
  std::uint64_t fingerprint_spills = 0;  // runs of the duplicate check (dedup_set.h)
  double seconds = 0;
  double parse_seconds = 0;       // reading, parsing and aggregating
  double commit_seconds = 0;      // the merge into the book and the commit
  std::uint64_t error_count = 0;  // bad games and bad variations, every one reported on the error stream
};

// Sums the reports of the inputs into report.total.
void add_up_inputs(BuildReport& report);

// Builds (or adds to) the book at book_path. Bad games are reported on
// errors as they are met ("file:line:col: game N: reason") and the build goes
// on; nullopt with error set when an input cannot be read, an option
// differs from the book's (Input: nothing was built), or the book, the
// build's files or the commit fail (Book).
[[nodiscard]] std::optional<BuildReport> run_build(const std::string& book_path,
                                                   const std::vector<std::string>& inputs,
                                                   const BuildOptions& options, std::ostream& errors,
                                                   BuildError* error);

// The build parameters as JSON text (stored with the book and each source).
std::string params_json(const BuildOptions& options);

}  // namespace gb::builder
