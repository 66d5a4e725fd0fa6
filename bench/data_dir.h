// Where the benchmarks find their inputs: the larger collections kept beside
// the repository (GRAPHBOOK_SHARED_DATA_DIR, by default <repo>/../shared/data,
// which a clone does not have) and the repository's own test data
// (tests/data). A benchmark whose default input is absent says which file is
// missing and exits 0: a skip, not a failure.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#ifndef GRAPHBOOK_SHARED_DATA_DIR_FOR_BENCH
#define GRAPHBOOK_SHARED_DATA_DIR_FOR_BENCH "../shared/data"  // run from the repository root
#endif
#ifndef GRAPHBOOK_TEST_DATA_DIR_FOR_BENCH
#define GRAPHBOOK_TEST_DATA_DIR_FOR_BENCH "tests/data"  // run from the repository root
#endif

namespace gb::bench {

inline std::string shared_data(const std::string& relative) {
  return std::string(GRAPHBOOK_SHARED_DATA_DIR_FOR_BENCH) + "/" + relative;
}
inline std::string test_data(const std::string& relative) {
  return std::string(GRAPHBOOK_TEST_DATA_DIR_FOR_BENCH) + "/" + relative;
}

// Ends the benchmark with status 0 after "BENCH: skipped: missing PATH" when
// path is not a file.
inline void skip_unless_present(const char* bench, const std::string& path) {
  if (std::filesystem::is_regular_file(path)) return;
  std::printf("%s: skipped: missing %s\n", bench, path.c_str());
  std::exit(0);
}

}  // namespace gb::bench
