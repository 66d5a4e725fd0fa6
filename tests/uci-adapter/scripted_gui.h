// A scripted GUI for the adapter's end-to-end tests: starts a program with
// pipes (the adapter's own process layer), writes lines, and reads lines with
// timeouts, keeping every line it saw.
//
// The timeouts only stop a test that would hang: they are generous (kNoHang,
// 30 s) so that a loaded machine never fails a test, and a wait that runs out
// says on stderr what it waited for and the last lines it saw (stderr, not a
// Catch2 macro: the learning tests wait from several threads). Latency is
// measured in bench/uci.cpp, never asserted here.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "book/chess/types.h"
#include "polyglot_bin.h"
#include "test_data.h"
#include "twic_book.h"
#include "uci-adapter/engine_process.h"
#include "uci-adapter/line_reader.h"

namespace gb::test {

using namespace std::chrono_literals;

inline const char* kStockfish = "/usr/games/stockfish";
// The deadline of every wait for the adapter: long enough for any loaded machine.
inline constexpr std::chrono::milliseconds kNoHang = 30000ms;

class ScriptedGui {
 public:
  explicit ScriptedGui(const std::vector<std::string>& argv) {
    process_.emplace(std::move(*uci_adapter::EngineProcess::start(argv, nullptr)));
    reader_.emplace(process_->output_fd());
  }

  void send(const std::string& line) { (void)process_->send(line); }

  // The next line, or nullopt after timeout or at the end of output.
  std::optional<std::string> next_line(std::chrono::milliseconds timeout = kNoHang) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (queue_.empty() && !ended_) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{process_->output_fd(), POLLIN, 0};
      if (::poll(&p, 1, int(left.count())) <= 0) continue;
      auto r = reader_->read_available(queue_);
      if (r == uci_adapter::LineReader::Read::End || r == uci_adapter::LineReader::Read::Error) ended_ = true;
    }
    if (queue_.empty()) return std::nullopt;
    std::string line = queue_.front();
    queue_.erase(queue_.begin());
    seen_.push_back(line);
    return line;
  }

  // Lines up to and including the first that satisfies done; empty optional on
  // timeout or at the end of output, after saying on stderr that it waited for `what`.
  std::optional<std::vector<std::string>> until(const std::function<bool(const std::string&)>& done,
                                                const std::string& what = "the line the test expects",
                                                std::chrono::milliseconds timeout = kNoHang) {
    std::vector<std::string> out;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      auto line = next_line(std::max(left, 0ms));
      if (!line) {
        report_wait_failed(what, timeout, out);
        return std::nullopt;
      }
      out.push_back(*line);
      if (done(*line)) return out;
    }
  }
  std::optional<std::vector<std::string>> until_prefix(const std::string& prefix,
                                                       std::chrono::milliseconds timeout = kNoHang) {
    return until([&](const std::string& l) { return l.rfind(prefix, 0) == 0; },
                 "a line starting with '" + prefix + "'", timeout);
  }
  // Every line up to the end of the program's output; nullopt (said on stderr)
  // when the output has not ended within timeout.
  std::optional<std::vector<std::string>> until_end(std::chrono::milliseconds timeout = kNoHang) {
    std::vector<std::string> out;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      auto line = next_line(std::max(left, 0ms));
      if (!line) break;
      out.push_back(*line);
    }
    if (ended_ && queue_.empty()) return out;
    report_wait_failed("the end of the program's output", timeout, out);
    return std::nullopt;
  }
  // Every line that arrives within window (for "nothing more comes" checks).
  std::vector<std::string> drain(std::chrono::milliseconds window) {
    std::vector<std::string> out;
    auto deadline = std::chrono::steady_clock::now() + window;
    for (;;) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return out;
      auto line = next_line(left);
      if (!line) return out;
      out.push_back(*line);
    }
  }

  // Waits for the program to exit; nullopt (said on stderr) when it has not within timeout.
  std::optional<uci_adapter::ExitStatus> wait_exit(std::chrono::milliseconds timeout = kNoHang) {
    auto status = process_->wait_exit(int(timeout.count()));
    if (!status) report_wait_failed("the program to exit", timeout, {});
    return status;
  }
  void close_input() { process_->close_input(); }
  pid_t pid() const { return process_->pid(); }
  const std::vector<std::string>& seen() const { return seen_; }

 private:
  void report_wait_failed(const std::string& what, std::chrono::milliseconds timeout,
                          const std::vector<std::string>& got) const {
    std::string text = "scripted GUI: waited " + std::to_string(timeout.count() / 1000.0).substr(0, 4) +
                       " s for " + what + (ended_ ? " (the output ended)" : "") + "; the last lines:\n";
    for (std::size_t i = got.size() > 8 ? got.size() - 8 : 0; i < got.size(); ++i)
      text += "  " + got[i] + "\n";
    std::fputs(text.c_str(), stderr);
  }

  std::optional<uci_adapter::EngineProcess> process_;
  std::optional<uci_adapter::LineReader> reader_;
  std::vector<std::string> queue_, seen_;
  bool ended_ = false;
};

inline bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The opening of a session: uci until uciok, then isready until readyok.
inline void handshake(ScriptedGui& gui) {
  gui.send("uci");
  REQUIRE(gui.until_prefix("uciok"));
  gui.send("isready");
  REQUIRE(gui.until_prefix("readyok"));
}

// Removes this test run's temporary directories when the test program ends.
struct TempDirCleanup {
  ~TempDirCleanup() {
    std::string cmd = "rm -rf /tmp/graphbook-uci-test-" + std::to_string(::getpid()) + "-*";
    if (std::system(cmd.c_str()) != 0) return;
  }
};
inline TempDirCleanup temp_dir_cleanup;

// A fresh directory in /tmp for this test run, removed when the tests end.
inline std::string temp_dir(const std::string& name) {
  std::string dir = "/tmp/graphbook-uci-test-" + std::to_string(::getpid()) + "-" + name;
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) return "";
  return dir;
}

// The small test book: `graphbook build` over TWIC 920, the ctest fixture's, or made once
// per test process when the test runs outside ctest (twic_book.h).
inline const std::string& twic_book() {
  static const std::string path = fixture_or_build_twic_book(temp_dir("book"));
  return path;
}

// A copy of the test book that a test may write into.
inline std::string writable_book_copy(const std::string& name) {
  std::string dir = temp_dir(name);
  std::string copy = dir + "/book";
  std::string cmd = "cp '" + twic_book() + "' '" + copy + "'";
  if (std::system(cmd.c_str()) != 0) return "";
  return copy;
}

// The highest-weight move of a position in a Polyglot .bin, in UCI notation
// (standard castling unless chess960: then the king takes its rook, as stored), read with nothing but the
// format's description.
inline std::string polyglot_best_move(const std::string& bin, Key key, bool chess960 = false,
                                      const std::string& exclude = "") {
  std::string best;
  int best_weight = -1;
  for (const BinEntry& e : read_bin_entries(bin, key)) {
    std::string text = bin_move_uci(e.move, chess960);
    if (e.weight <= best_weight || text == exclude) continue;
    best_weight = e.weight;
    best = text;
  }
  return best;
}

inline bool process_exists(pid_t pid) {
  struct stat st;
  return ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0;
}

// The children of pid (from /proc/<pid>/task/<pid>/children).
inline std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> out;
  for (pid_t c; in >> c;) out.push_back(c);
  return out;
}

}  // namespace gb::test
