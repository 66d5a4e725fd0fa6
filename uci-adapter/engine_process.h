// The engine as a child process: its command line, two pipes, and its exit.
// The process layer knows nothing of UCI; it moves lines.
//
// The child's stdin and stdout are pipes (stderr is inherited). The parent's
// end of the engine's stdout is non-blocking so that one poll() loop can wait
// on the GUI and the engine at once. The destructor ends a running engine
// (closes its stdin, waits, then SIGTERM, then SIGKILL) and reaps it: no zombie
// outlives an EngineProcess.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uci-adapter/adapter_error.h"

namespace gb::uci_adapter {

struct ExitStatus {
  bool signaled = false;
  int code = 0;                  // the exit code, or the signal number when signaled
  std::string describe() const;  // "exited with code 0", "killed by signal 11 (Segmentation fault)"
};

class EngineProcess {
 public:
  EngineProcess(EngineProcess&& o) noexcept;
  EngineProcess& operator=(EngineProcess&&) = delete;
  EngineProcess(const EngineProcess&) = delete;
  ~EngineProcess();

  // Starts argv[0] (searched in PATH) with its arguments. nullopt and an
  // AdapterError::Code::Engine ("cannot run 'x': No such file or directory")
  // when it cannot be started; a failing exec is detected, not just a failing
  // fork. error may be nullptr.
  [[nodiscard]] static std::optional<EngineProcess> start(const std::vector<std::string>& argv,
                                                          AdapterError* error);

  int output_fd() const { return from_engine_; }  // non-blocking, for poll()
  // Sends one line (a "\n" is added). False when the engine is gone.
  [[nodiscard]] bool send(std::string_view line);
  // Closes the engine's stdin (it sees end of input).
  void close_input();

  // Reaps the child if it has exited, waiting up to timeout_ms (0: just check).
  std::optional<ExitStatus> wait_exit(int timeout_ms);
  // Asks the engine to end (close stdin, wait grace_ms, SIGTERM, wait, SIGKILL) and reaps it.
  ExitStatus shut_down(int grace_ms);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

 private:
  EngineProcess() = default;
  pid_t pid_ = -1;
  int to_engine_ = -1;
  int from_engine_ = -1;
  std::optional<ExitStatus> exit_;
};

}  // namespace gb::uci_adapter
