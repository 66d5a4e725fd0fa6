// The commit of a build. Into a book that holds records: one LMDB write
// transaction that merges the aggregated runs into the book in key order, adds
// the game fingerprints, the sources and the totals. Into a book that holds
// nothing but meta (a new book): a new file beside it, BOOK.building-PID,
// written with MDB_APPEND in transactions of about 1 MB each (so memory does
// not grow with the book), synced and renamed over the book. Either way, all
// of it is in the book afterwards or none of it, whenever the process dies;
// new files that killed builds left are removed by the next commit.
//
// After a commit that renamed (CommitResult::renamed), the Book passed in
// still has the replaced file open: read the result by opening the path again
// (after closing it: LMDB allows one environment per file and process).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "book/store/book.h"
#include "book/store/fingerprint.h"
#include "builder/bucket_aggregator.h"
#include "builder/fingerprint_run.h"
#include "builder/run_merger.h"
#include "builder/section_slices.h"

namespace gb::builder {

using store::Fingerprint;
using store::FingerprintKey;

// The database of the counts a build left out for having fewer than
// --min-games games, kept so that a later build adds to them (docs/FORMAT.md):
// sections as in positions, of the nodes and edges below min_games.
inline constexpr const char* kPrunedDb = "pruned";

struct CommitInput {
  // Of the games added, in order: runs, each sorted, each after the one before.
  std::vector<FingerprintRun> fingerprints;
  std::vector<store::SourceInfo> sources;
  store::BookStats added;   // games, duplicates, skipped, collisions to add
  std::string params_json;  // the book's build parameters from now on; empty: kept as they are (import)
  // Nodes and edges with fewer games are left out of positions, their counts
  // kept in kPrunedDb (when above 1, or when the book has one).
  std::uint32_t min_games = 1;
  std::function<store::Status(store::WriteTxn&)> more_writes;  // in the same transaction (the game index)
  // The build's buckets, added to the book's buckets database (nullptr: the
  // build counts none), and the meta record that says the book has them
  // (written when not empty).
  BucketMerger* buckets = nullptr;
  std::string buckets_json;
  // The threads that merge and encode the sections of a new book (section_slices.h).
  unsigned threads = 2;
  // The runs' files are the build's temporaries: the merge of a new book
  // removes them once its last slice has opened them (SectionSlices).
  bool remove_run_files = false;
  // When set, a new book's sections come from the slices it makes, not from
  // the merger's runs: a build that counted into partitions
  // (ply_partitions.h), which only a new book can take (a book that holds
  // records is refused with ESTALE: another process wrote it meanwhile).
  std::function<std::unique_ptr<SliceMaker>()> slices = {};
  // When set, the book committed into is the placeholder of a book at this
  // path, where there was none (new_book_file.h: open_placeholder): the new
  // book is linked there, and nothing is written if a book came meanwhile.
  std::string link_at = {};
};

struct CommitResult {
  std::uint64_t nodes_written = 0;
  std::uint64_t edges_written = 0;
  std::uint64_t collisions = 0;           // found while merging runs and against the book
  std::uint64_t bucket_keys_written = 0;  // keys of the buckets database written
  std::uint64_t slices = 0;               // of the key space, merged apart into a new book (section_slices.h)
  bool appended = false;                  // the book was empty: MDB_APPEND was used
  bool renamed = false;                   // the book held nothing but meta: a new file was renamed over it
};

// Errors: LMDB and file errors; ESTALE when another build replaced the book
// file after this one opened it, or made one at link_at (nothing written).
[[nodiscard]] store::Status commit_build(store::Book& book, RunMerger& merger, CommitInput& input,
                                         CommitResult& result);

}  // namespace gb::builder
