// `graphbook upgrade BOOK`: a book of format 2 or 3 rewritten as format 4
// (docs/FORMAT.md). Format 2 kept a position's node and its edges in two
// databases, one LMDB record each; format 3 keeps them in one value, the
// position's section; format 4 lets an edge share its node's fields there.
// The records are decoded and encoded again, so nothing is lost: every other
// database (learning, fingerprints, sources, collisions, stored games and
// their index, pending games) and the meta records are copied as they are
// (format 3's pruned counts, sections too, are written again). The new file is written beside the
// book and renamed over it (new_book_file.h): killed at any moment, the book
// is the old one or the new one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "builder/build_error.h"

namespace gb::builder {

struct UpgradeReport {
  std::uint32_t from_version = 0;  // the book's format before (the current one: nothing was done)
  std::uint64_t positions = 0, nodes = 0, edges = 0;
  std::uint64_t other_records = 0;  // copied from the other databases
};

// A sharded book (a directory, build --mpi) is upgraded shard by shard.
// Errors (nullopt, *error names the file): not a book, a format other than 2,
// 3 or the current one, a damaged record, LMDB and file errors.
[[nodiscard]] std::optional<UpgradeReport> upgrade_book(const std::string& path, BuildError* error);

}  // namespace gb::builder
