// Where the tests find the shared data and the built binary, passed in by CMake.
#pragma once

#include <string>

namespace gb::test {

inline std::string data_path(const std::string& relative) {
  return std::string(GRAPHBOOK_DATA_DIR) + "/" + relative;
}
inline std::string graphbook_binary() { return GRAPHBOOK_BINARY; }

}  // namespace gb::test
