// A build interrupted by SIGINT, SIGTERM or SIGHUP (Ctrl-C, kill, a closed
// terminal) removes the files it keeps beside the book before it dies: its
// spill runs (graphbook-run-PID-...) and the new file of a build into a new
// book (BOOK.building-PID, as large as the book). The book needs nothing: a
// write transaction that did not commit is no part of it. SIGKILL cannot be
// caught: what a killed build leaves, the next build of the book or
// `graphbook info` removes (orphan_files.h).
//
// The signals are blocked in the thread that makes an InterruptCleanup and in
// every thread it starts afterwards, and taken by sigwait on a thread of its
// own, where removing files is ordinary code (a signal handler may not even
// open a directory).
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <thread>

namespace gb::builder {

class InterruptCleanup {
 public:
  // From now until the destructor, an interrupt runs cleanup (on another
  // thread, while the build's threads go on) and then ends the process by
  // the signal, as it would have ended without this.
  explicit InterruptCleanup(std::function<void()> cleanup);
  // Stops watching; the signals are unblocked again (one that came meanwhile
  // ends the process then).
  ~InterruptCleanup();
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;

 private:
  void watch();

  std::function<void()> cleanup_;
  sigset_t signals_{}, old_mask_{};
  std::atomic<bool> done_{false};
  std::thread watcher_;  // last: it starts once the rest exists
};

}  // namespace gb::builder
