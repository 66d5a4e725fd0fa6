// `mpirun -np N graphbook build --mpi BOOK INPUT...`: one build on N MPI ranks
// that writes a sharded book (book/store/shard_manifest.h), each rank the shard of its key
// range; the counts are exactly those of `graphbook build BOOK INPUT...` on one
// machine (docs/SCALE.md "Past one machine", docs/FORMAT.md "Sharded books").
//
// 1. The inputs are cut into N contiguous shares in input order (files, or byte
//    ranges of a file cut at game boundaries; a .zst file is read whole), one per rank.
// 2. Pass 1: each rank reads its share, fingerprints its games and writes the
//    games it accepted to a file; MPI_Exscan gives each game its ordinal in
//    the whole input, and the fingerprints go (MPI_Alltoallv) to the rank of
//    their range, which keeps the first copy in input order and sends the
//    later copies' ordinals back as duplicates.
// 3. Pass 2: each rank reads its games back and aggregates them but the
//    duplicates with the build's Aggregator (all keys, within --memory).
// 4. Each rank merges its runs into one stream in key order and sends every
//    node and edge to the rank of its key range, in rounds of MPI_Alltoallv of
//    bounded size; a rank keeps what it receives from each rank as a run file,
//    and the runs, in rank order (input order), are merged and committed into
//    its shard by the build's own commit (book_writer.h).
// 5. Rank 0 writes manifest.json last: the book exists once it is there.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "builder/build.h"

namespace gb::builder {

// (Linked by graphbook-mpi alone, the executable beside graphbook that runs
// build --mpi: cli/helper.h. It exists when CMake found Open MPI.)
// Runs the build on every rank of MPI_COMM_WORLD (initialising MPI when it is
// not, and finalising it when it did). *rank is set to this process's rank:
// only rank 0's report holds the build's totals. Refusals (options --mpi does
// not support, a BOOK that exists, an input that cannot be read, a graphbook
// built without MPI) are a BuildError::input on every rank, nothing written,
// said on errors by rank 0 (a rank other than 0 then exits 0, so that mpirun
// does not end the job before rank 0 has spoken).
// A failure on one rank after the start (a file or LMDB error) is reported by
// that rank, which then aborts every rank (MPI_Abort, exit status 3).
[[nodiscard]] std::optional<BuildReport> run_mpi_build(const std::string& book_path,
                                                       const std::vector<std::string>& inputs,
                                                       const BuildOptions& options, std::ostream& errors,
                                                       BuildError* error, int* rank);
// run_mpi_build, for the builder's commands to call where it is linked.
using MpiBuild = decltype(&run_mpi_build);

}  // namespace gb::builder
