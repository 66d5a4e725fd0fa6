// Where the tests find the shared data and the built binary (passed in by
// CMake), and reading a file whole.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace gb::test {

inline std::string data_path(const std::string& relative) {
  return std::string(GRAPHBOOK_DATA_DIR) + "/" + relative;
}
inline std::string graphbook_binary() { return GRAPHBOOK_BINARY; }

// The bytes of a file ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace gb::test
