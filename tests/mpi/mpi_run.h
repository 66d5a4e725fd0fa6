// The MPI tests' way of running `mpirun -np N graphbook build --mpi`, and of
// making the single build's book beside the sharded one.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "builder/process.h"
#include "temp_dir.h"
#include "test_data.h"

namespace gb::test {

// The command line of `mpirun -np ranks graphbook build --mpi ARGS... --quiet`;
// as root too (CI runs as root), and in a container: the shared-memory
// transport's single-copy mode needs ptrace between processes, which
// containers often deny. In a sanitizer build (scripts/test-debug.sh) the
// ranks run without leak checks: LeakSanitizer reports what Open MPI itself
// still holds at its finalize, in components it has unloaded (no frame to
// suppress by). The build's own code is leak-checked by the builder's tests,
// which run it without MPI; address and undefined-behaviour checks stay on here.
inline std::vector<std::string> mpi_build_argv(int ranks, const std::vector<std::string>& args) {
  const char* asan = std::getenv("ASAN_OPTIONS");
  std::vector<std::string> argv = {
      GRAPHBOOK_MPIEXEC,
      "--oversubscribe",
      "--allow-run-as-root",
      "--mca",
      "btl_vader_single_copy_mechanism",
      "none",
      "-x",
      std::string("ASAN_OPTIONS=") + (asan ? std::string(asan) + ":" : "") + "detect_leaks=0",
      "-np",
      std::to_string(ranks),
      graphbook_binary(),
      "build",
      "--mpi"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--quiet");
  return argv;
}

inline Output mpi_build(int ranks, const std::vector<std::string>& args) {
  return run(mpi_build_argv(ranks, args));
}

// dir/one.book built by one process and dir/sharded.book by mpirun on
// ranks, both from ARGS (inputs and options).
inline void build_both(const TempDir& dir, const std::vector<std::string>& args, int ranks) {
  std::vector<std::string> one = {dir.file("one.book")}, sharded = {dir.file("sharded.book")};
  one.insert(one.end(), args.begin(), args.end());
  sharded.insert(sharded.end(), args.begin(), args.end());
  build(one);
  Output o = mpi_build(ranks, sharded);
  INFO(o.err);
  REQUIRE(o.status == 0);
}

}  // namespace gb::test
