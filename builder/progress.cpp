#include "builder/progress.h"

#include <unistd.h>

#include <cstdio>

namespace gb::builder {

Progress::Progress(bool enabled, std::uint64_t total_bytes)
    : on_(enabled && ::isatty(2)), total_(total_bytes) {
  if (on_)
    thread_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) draw();
    });
}

Progress::~Progress() { finish(); }

void Progress::draw() {
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (s <= 0) return;
  double mb = double(bytes_) / 1e6, rate = mb / s;
  char eta[32] = "";
  if (total_ > 0 && bytes_ > 0 && bytes_ <= total_)
    std::snprintf(eta, sizeof eta, "  ETA %.0f s", double(total_ - bytes_) / double(bytes_) * s);
  std::fprintf(stderr, "\r%llu games  %.0f games/s  %.1f MB/s%s   ",
               static_cast<unsigned long long>(games_.load()), double(games_) / s, rate, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!on_) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  on_ = false;
}

}  // namespace gb::builder
