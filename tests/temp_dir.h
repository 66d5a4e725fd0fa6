// A temporary directory that a test owns and that is removed with everything
// in it when the object is destroyed (for a static one: when the test process ends).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gb::test {

struct TempDir {
  std::string path;
  explicit TempDir(const char* prefix = "graphbook-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / prefix).string() + "-XXXXXX";
    path = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }
};

}  // namespace gb::test
