// Running the real graphbook binary (and other tools) from the builder tests.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
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

// Starts argv[0] with stdout/stderr to files; returns the pid. A
// file_size_limit (bytes, 0: none) makes a write past it fail with EFBIG, as
// on a full disk (SIGXFSZ ignored).
inline pid_t spawn(const std::vector<std::string>& argv, const std::string& out_path,
                   const std::string& err_path, rlim_t file_size_limit = 0) {
  pid_t pid = ::fork();
  if (pid == 0) {
    // Catch2's handlers would report a signal that stops the child before its
    // exec as a failure of the test: the child dies as the program would.
    for (int sig : {SIGTERM, SIGINT, SIGSEGV, SIGABRT, SIGILL, SIGFPE}) ::signal(sig, SIG_DFL);
    if (file_size_limit > 0) {
      ::signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{file_size_limit, file_size_limit};
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
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

// The games of a PGN file, each with the text before the next "[Event ".
inline std::vector<std::string> games_of(const std::string& pgn) {
  std::vector<std::string> games;
  std::size_t at = pgn.find("[Event ");
  while (at != std::string::npos) {
    std::size_t next = pgn.find("\n[Event ", at + 1);
    games.push_back(pgn.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at));
    at = next == std::string::npos ? next : next + 1;
  }
  return games;
}

inline std::string join(const std::vector<std::string>& games, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) out += games[i];
  return out;
}

inline std::string exported(const std::string& book, const std::string& bin) {
  Output o = graphbook({"export", book, bin});
  INFO(o.err);
  REQUIRE(o.status == 0);
  return read_file(bin);
}

// What info says of a book that a build of the same games must say too (not
// the file's size, the times sources were added, the number of builds).
inline nlohmann::json counts(const std::string& book) {
  nlohmann::json j = info_json(book);
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& s : j["sources"]) sources.push_back({s["xxh3"], s["games_added"], s["size"]});
  return {{"nodes", j["nodes"]},
          {"edges", j["edges"]},
          {"games", j["games"]},
          {"games_at_start_position", j["games_at_start_position"]},
          {"duplicates_skipped", j["duplicates_skipped"]},
          {"bad_games_skipped", j["bad_games_skipped"]},
          {"transpositions", j["transpositions"]},
          {"depth_histogram", j["depth_histogram"]},
          {"max_ply", j["build_params"]["max_ply"]},
          {"min_games", j["build_params"]["min_games"]},
          {"sources", sources}};
}

// `graphbook build ARGS... --quiet`, which must succeed.
inline void build(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"build"};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back("--quiet");
  Output o = graphbook(all);
  INFO(o.err);
  REQUIRE(o.status == 0);
}

}  // namespace gb::test
