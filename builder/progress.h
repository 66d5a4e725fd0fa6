// The build's progress line on a terminal: games, games/s, MB/s and an ETA
// from the bytes read. Silent when stderr is not a terminal (isatty(2)).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace gb::builder {

class Progress {
 public:
  // enabled: the caller's wish (--progress/--quiet); the line is drawn only
  // when stderr is also a terminal. total_bytes 0: no ETA.
  Progress(bool enabled, std::uint64_t total_bytes);
  ~Progress();
  void add_bytes(std::uint64_t n) { bytes_ += n; }
  void add_games(std::uint64_t n) { games_ += n; }
  void finish();  // clears the line and stops drawing

 private:
  void draw();
  bool on_;
  std::uint64_t total_;
  std::atomic<std::uint64_t> bytes_{0}, games_{0};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gb::builder
