#include "builder/interrupt_cleanup.h"

#include <pthread.h>
#include <unistd.h>

namespace gb::builder {

InterruptCleanup::InterruptCleanup(std::function<void()> cleanup) : cleanup_(std::move(cleanup)) {
  sigemptyset(&signals_);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals_, sig);
  pthread_sigmask(SIG_BLOCK, &signals_, &old_mask_);
  watcher_ = std::thread([this] { watch(); });
}

InterruptCleanup::~InterruptCleanup() {
  done_ = true;
  pthread_kill(watcher_.native_handle(), SIGTERM);  // blocked in it: its sigwait takes it
  watcher_.join();
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

void InterruptCleanup::watch() {
  int sig = 0;
  if (sigwait(&signals_, &sig) != 0 || done_) return;
  cleanup_();
  // Dies by the signal, as without this (the shell reports 128 + sig).
  ::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);
}

}  // namespace gb::builder
