#include "builder/worker_pool.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using gb::builder::WorkerPool;

TEST_CASE("A worker pool runs every part of a job exactly once", "[builder][pool]") {
  for (std::size_t threads : {1, 2, 4}) {
    WorkerPool pool(threads);
    REQUIRE(pool.threads() == threads);
    std::vector<std::atomic<int>> runs(100);
    std::atomic<std::size_t> bad_thread{0};
    REQUIRE(pool.run(runs.size(), [&](std::size_t thread, std::size_t part) {
      if (thread >= threads) ++bad_thread;
      ++runs[part];
      return true;
    }));
    for (const auto& r : runs) CHECK(r == 1);
    CHECK(bad_thread == 0);
  }
}

TEST_CASE("A worker pool runs many jobs in turn, each after the one before has ended", "[builder][pool]") {
  WorkerPool pool(2);
  std::atomic<int> total{0};
  for (int job = 0; job < 2000; ++job) {
    const int before = total;
    REQUIRE(pool.run(3, [&](std::size_t, std::size_t) {
      ++total;
      return true;
    }));
    REQUIRE(total == before + 3);  // every part of the job has run when run() returns
  }
}

TEST_CASE("A worker pool uses its helpers, not only the caller's thread", "[builder][pool]") {
  WorkerPool pool(2);
  std::set<std::thread::id> seen;
  std::mutex m;
  // Two parts that each wait until both have started can only end if two
  // threads run them at once.
  std::atomic<int> started{0};
  REQUIRE(pool.run(2, [&](std::size_t, std::size_t) {
    ++started;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    std::lock_guard lock(m);
    seen.insert(std::this_thread::get_id());
    return true;
  }));
  CHECK(started == 2);
  CHECK(seen.size() == 2);
}

TEST_CASE("A worker pool stops starting parts once one fails, and says so", "[builder][pool]") {
  WorkerPool pool(2);
  std::atomic<int> ran{0};
  CHECK_FALSE(pool.run(10000, [&](std::size_t, std::size_t part) {
    ++ran;
    return part != 5;
  }));
  CHECK(ran < 10000);
  // The pool is still usable after a failed job.
  CHECK(pool.run(4, [](std::size_t, std::size_t) { return true; }));
}

TEST_CASE("A worker pool whose helpers fell asleep wakes them for the next job", "[builder][pool]") {
  WorkerPool pool(2);
  REQUIRE(pool.run(2, [](std::size_t, std::size_t) { return true; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the spin: the helper sleeps
  std::atomic<int> started{0};
  REQUIRE(pool.run(2, [&](std::size_t, std::size_t) {
    ++started;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    return true;
  }));
  CHECK(started == 2);
}

TEST_CASE("A worker pool's caller does its own work first while the helpers start on the parts",
          "[builder][pool]") {
  WorkerPool pool(2);
  const auto caller = std::this_thread::get_id();
  std::atomic<int> by_caller{0}, by_helpers{0}, alone{0};
  int by_caller_when_alone = -1, by_helpers_when_alone_ended = -1;
  std::vector<std::atomic<int>> runs(20);
  REQUIRE(pool.run(
      runs.size(),
      [&](std::size_t, std::size_t part) {
        ++(std::this_thread::get_id() == caller ? by_caller : by_helpers);
        ++runs[part];
        return true;
      },
      [&] {
        ++alone;
        CHECK(std::this_thread::get_id() == caller);
        by_caller_when_alone = by_caller;
        // The helper takes parts meanwhile: wait for it (a deadline only stops a hang).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (by_helpers == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        by_helpers_when_alone_ended = by_helpers;
      }));
  CHECK(alone == 1);
  CHECK(by_caller_when_alone == 0);
  CHECK(by_helpers_when_alone_ended > 0);
  for (const auto& r : runs) CHECK(r == 1);
  CHECK(by_caller + by_helpers == 20);
}
