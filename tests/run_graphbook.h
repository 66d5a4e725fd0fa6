// Runs the real graphbook binary from an end-to-end test and collects what it printed.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "temp_dir.h"
#include "test_data.h"

namespace gb::test {

struct Run {
  int status = -1;  // the exit status; -1 when the command could not run or was killed
  std::string out;  // standard output (and standard error when merged)
  std::string err;  // standard error, unless merged
};

// Runs a shell command line and collects its standard output (stderr as the
// command line redirects it) and exit status.
inline Run run_shell(const std::string& command) {
  Run r;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return r;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs `graphbook ARGS` (already shell-quoted where needed) through the
// shell; stderr goes to stdout when merge_stderr, else to err. env:
// "NAME=value" assignments for the command, when not empty.
inline Run graphbook(const std::string& args, bool merge_stderr = false, const std::string& env = "") {
  static TempDir dir("graphbook-run");
  static int serial = 0;
  const std::string err_file = dir.file("err" + std::to_string(serial++));
  std::string command = (env.empty() ? "" : "env " + env + " ") + "'" + graphbook_binary() + "' " + args +
                        (merge_stderr ? " 2>&1" : " 2>'" + err_file + "'");
  Run r = run_shell(command);
  if (!merge_stderr) {
    r.err = read_file(err_file);
    std::remove(err_file.c_str());
  }
  return r;
}

// A shell word for a path or argument (no single quotes inside).
inline std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace gb::test
