// Running the real graphbook binary (and other tools) from the builder tests.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "test_data.h"

namespace gb::test {

struct Output {
  int status = -1;  // exit code, or 128 + signal
  std::string out, err;
};

// Starts argv[0] with stdout/stderr to files; returns the pid.
inline pid_t spawn(const std::vector<std::string>& argv, const std::string& out_path,
                   const std::string& err_path) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

inline int wait_status(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline Output run(const std::vector<std::string>& argv) {
  char tmpl[] = "/tmp/gb-run-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  Output o;
  o.status = wait_status(spawn(argv, dir + "/out", dir + "/err"));
  o.out = read_file(dir + "/out");
  o.err = read_file(dir + "/err");
  std::system(("rm -rf '" + dir + "'").c_str());
  return o;
}

// `graphbook ARGS...` with the binary under test.
inline Output graphbook(std::vector<std::string> args) {
  args.insert(args.begin(), graphbook_binary());
  return run(args);
}

// `graphbook info BOOK --json`, parsed.
inline nlohmann::json info_json(const std::string& book) {
  Output o = graphbook({"info", book, "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  return nlohmann::json::parse(o.out);
}

}  // namespace gb::test
