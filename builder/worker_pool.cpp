#include "builder/worker_pool.h"

#include <chrono>

namespace gb::builder {

namespace {

// How long a thread spins for a job or for the end of one before it sleeps:
// longer than the serial work between two jobs of a build (reading the next
// block, well under a millisecond), short against a commit, when the helpers
// sleep.
constexpr auto kSpin = std::chrono::milliseconds(2);

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Returns the value of a once it differs from old: spins for up to kSpin
// (yielding now and then to threads that have work), then sleeps.
std::uint32_t wait_for_change(const std::atomic<std::uint32_t>& a, std::uint32_t old) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (std::uint32_t n = 1;; ++n) {
    std::uint32_t v = a.load(std::memory_order_acquire);
    if (v != old) return v;
    if (n % 64) {
      pause();
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::yield();
  }
  for (;;) {
    a.wait(old, std::memory_order_acquire);
    std::uint32_t v = a.load(std::memory_order_acquire);
    if (v != old) return v;
  }
}

}  // namespace

WorkerPool::WorkerPool(std::size_t threads) {
  for (std::size_t t = 1; t < threads; ++t) helpers_.emplace_back([this, t] { help(t); });
}

WorkerPool::~WorkerPool() {
  stop_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (auto& h : helpers_) h.join();
}

bool WorkerPool::run(std::size_t parts, const std::function<bool(std::size_t, std::size_t)>& work) {
  return run(parts, work, [] {});
}

bool WorkerPool::run(std::size_t parts, const std::function<bool(std::size_t, std::size_t)>& work,
                     const std::function<void()>& alone_first) {
  work_ = &work;
  parts_ = parts;
  next_.store(0, std::memory_order_relaxed);
  ok_.store(true, std::memory_order_relaxed);
  busy_.store(std::uint32_t(helpers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);  // publishes the job
  generation_.notify_all();
  alone_first();
  take_parts(0);
  for (std::uint32_t b; (b = busy_.load(std::memory_order_acquire)) != 0;) b = wait_for_change(busy_, b);
  return ok_.load(std::memory_order_relaxed);
}

void WorkerPool::help(std::size_t thread) {
  std::uint32_t seen = 0;
  for (;;) {
    seen = wait_for_change(generation_, seen);
    if (stop_.load(std::memory_order_relaxed)) return;
    take_parts(thread);
    busy_.fetch_sub(1, std::memory_order_acq_rel);
    busy_.notify_one();
  }
}

void WorkerPool::take_parts(std::size_t thread) {
  for (std::size_t i; ok_.load(std::memory_order_relaxed) && (i = next_.fetch_add(1)) < parts_;)
    if (!(*work_)(thread, i)) ok_.store(false, std::memory_order_relaxed);
}

}  // namespace gb::builder
