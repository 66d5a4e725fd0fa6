// The threads of a build, started once and kept for all its blocks.
//
// A build parses, deduplicates and counts each block of its input on all
// threads, two jobs a block with short serial work between them. Threads
// started per job cost more than their start: on a virtual machine the idle
// core sleeps between two blocks and can take some hundred microseconds to
// wake, which a short build pays at every block (bench/build.sh's tcec case
// at --max-ply 40 is such a build). A pool's helpers wait for the next job
// spinning for a short while, so that a core between two jobs is still
// awake, and only then sleep.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace gb::builder {

class WorkerPool {
 public:
  // threads: how many run a job, the caller of run() included (at least 1).
  explicit WorkerPool(std::size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  std::size_t threads() const { return helpers_.size() + 1; }

  // Runs work(thread, part) once for every part in [0, parts), each part on
  // whichever thread is free (thread in [0, threads())), and returns when all
  // have run. Once a call returns false the parts not yet started are not
  // started, and run() returns false. Not reentrant: one job at a time.
  [[nodiscard]] bool run(std::size_t parts,
                         const std::function<bool(std::size_t thread, std::size_t part)>& work);
  // The same, with serial work of the caller's that the job does not touch:
  // the calling thread does alone first (while the helpers start on the
  // parts), then takes parts too (a build reads its next block so).
  [[nodiscard]] bool run(std::size_t parts,
                         const std::function<bool(std::size_t thread, std::size_t part)>& work,
                         const std::function<void()>& alone_first);

 private:
  void help(std::size_t thread);
  void take_parts(std::size_t thread);

  std::vector<std::thread> helpers_;
  const std::function<bool(std::size_t, std::size_t)>* work_ = nullptr;
  std::size_t parts_ = 0;
  std::atomic<std::size_t> next_{0};          // the next part to start
  std::atomic<bool> ok_{true};                // no part returned false
  std::atomic<std::uint32_t> generation_{0};  // +1 for each new job (and for the stop)
  std::atomic<std::uint32_t> busy_{0};        // helpers still on the current job
  std::atomic<bool> stop_{false};
};

}  // namespace gb::builder
