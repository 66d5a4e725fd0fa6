// Helpers of the match end-to-end tests: run the real binary, write small
// hand-written PGN files into a temporary directory.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_graphbook.h"
#include "temp_dir.h"
#include "test_data.h"

namespace gb::test {

inline const std::string& match_temp_dir() {
  static const TempDir dir("graphbook-match-test");
  return dir.path;
}

// Writes text to a file of that name in the temporary directory; its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = match_temp_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace gb::test
