// The larger collections kept beside the repository (../shared/data: the
// 22,240 TCEC games, the opening-line books), which a clone does not have.
// Only tests tagged [slow] may read them; when a file is absent the test
// prints "SKIPPED: missing PATH" and returns, and ctest reports it skipped
// (SKIP_REGULAR_EXPRESSION on the slow tests in tests/CMakeLists.txt), never
// passed and never failed.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

namespace gb::test {

// Whether the test case running now carries the tag [slow].
inline bool current_test_is_slow() {
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  for (const Catch::TestCase& t : Catch::getRegistryHub().getTestCaseRegistry().getAllTests())
    if (t.name == name) return std::find(t.tags.begin(), t.tags.end(), "slow") != t.tags.end();
  return false;
}

// The path of `relative` in the shared collections, or "" after printing the
// skip line when it is absent: the caller returns at once. A default test
// that asks fails, with or without the shared data: the default suite reads
// only the repository (tests/data).
inline std::string shared_data_path(const std::string& relative) {
  INFO("only tests tagged [slow] read " << GRAPHBOOK_SHARED_DATA_DIR);
  REQUIRE(current_test_is_slow());
  const std::string path = std::string(GRAPHBOOK_SHARED_DATA_DIR) + "/" + relative;
  if (std::filesystem::is_regular_file(path)) return path;
  std::printf("SKIPPED: missing %s\n", path.c_str());
  std::fflush(stdout);
  return "";
}

}  // namespace gb::test
