// The commit of a build: one LMDB write transaction that merges the
// aggregated runs into the book in key order (MDB_APPEND into an empty book),
// adds the game fingerprints, the sources and the totals. Either all of it is
// in the book afterwards or none of it, whenever the process dies.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "book/store/book.h"
#include "builder/run_merger.h"

namespace gb::builder {

using Fingerprint = std::array<std::uint64_t, 2>;  // XXH3-128, high then low

struct CommitInput {
  std::vector<Fingerprint> fingerprints;  // of the games added (sorted by commit)
  std::vector<store::SourceInfo> sources;
  store::BookStats added;  // games, duplicates, skipped, collisions to add
  std::string params_json;
  std::uint32_t min_games = 1;  // nodes and edges with fewer games are left out
  std::function<store::Status(store::WriteTxn&)> more_writes;  // in the same transaction (the game index)
};

struct CommitResult {
  std::uint64_t nodes_written = 0;
  std::uint64_t edges_written = 0;
  std::uint64_t collisions = 0;  // found while merging runs and against the book
  bool appended = false;         // the book was empty: MDB_APPEND was used
};

[[nodiscard]] store::Status commit_build(store::Book& book, RunMerger& merger, CommitInput& input,
                                         CommitResult& result);

}  // namespace gb::builder
