// Helpers of the match end-to-end tests: run the real binary, write small
// hand-written PGN files into a temporary directory.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "temp_dir.h"
#include "test_data.h"

namespace gb::test {

struct Run {
  int status = -1;
  std::string out;
};

// Runs `graphbook ARGS`; stderr goes to stdout when merge_stderr, else is dropped.
inline Run run_graphbook(const std::string& args, bool merge_stderr = false) {
  std::string command = "'" + graphbook_binary() + "' " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  Run r;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return r;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

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

inline std::string q(const std::string& s) { return "'" + s + "'"; }

}  // namespace gb::test
