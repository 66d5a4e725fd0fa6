#include "uci-adapter/engine_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "uci-adapter/line_reader.h"

namespace gb::uci_adapter {

namespace {

ExitStatus from_wait_status(int status) {
  if (WIFSIGNALED(status)) return ExitStatus{true, WTERMSIG(status)};
  return ExitStatus{false, WIFEXITED(status) ? WEXITSTATUS(status) : 0};
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string ExitStatus::describe() const {
  if (signaled) return "killed by signal " + std::to_string(code) + " (" + strsignal(code) + ")";
  return "exited with code " + std::to_string(code);
}

EngineProcess::EngineProcess(EngineProcess&& o) noexcept
    : pid_(o.pid_), to_engine_(o.to_engine_), from_engine_(o.from_engine_), exit_(o.exit_) {
  o.pid_ = -1;
  o.to_engine_ = o.from_engine_ = -1;
}

EngineProcess::~EngineProcess() {
  if (pid_ > 0) shut_down(200);
  close_fd(to_engine_);
  close_fd(from_engine_);
}

std::optional<EngineProcess> EngineProcess::start(const std::vector<std::string>& argv, AdapterError* error) {
  auto fail = [&](const std::string& what) {
    if (error) *error = AdapterError{AdapterError::Code::Engine, what};
    return std::nullopt;
  };
  if (argv.empty()) return fail("no engine command given");
  int in_pipe[2], out_pipe[2], exec_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return fail(std::string("pipe: ") + strerror(errno));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]), ::close(in_pipe[1]);
    return fail(std::string("pipe: ") + strerror(errno));
  }
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) ::close(fd);
    return fail(std::string("pipe: ") + strerror(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], exec_pipe[0], exec_pipe[1]}) ::close(fd);
    return fail(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    ::dup2(in_pipe[0], STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::signal(SIGPIPE, SIG_DFL);
    ::execvp(args[0], args.data());
    int e = errno;
    ssize_t ignored = ::write(exec_pipe[1], &e, sizeof e);
    (void)ignored;
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(exec_pipe[1]);
  EngineProcess engine;
  engine.pid_ = pid;
  engine.to_engine_ = in_pipe[1];
  engine.from_engine_ = out_pipe[0];
  // exec succeeded when the close-on-exec pipe closes without data.
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  if (n == sizeof exec_errno) {
    engine.wait_exit(1000);
    return fail("cannot run '" + argv[0] + "': " + strerror(exec_errno));
  }
  ::fcntl(engine.from_engine_, F_SETFL, ::fcntl(engine.from_engine_, F_GETFL) | O_NONBLOCK);
  return engine;
}

bool EngineProcess::send(std::string_view line) {
  if (to_engine_ < 0) return false;
  std::string text(line);
  text += '\n';
  return write_all(to_engine_, text);
}

void EngineProcess::close_input() { close_fd(to_engine_); }

std::optional<ExitStatus> EngineProcess::wait_exit(int timeout_ms) {
  if (exit_) return exit_;
  if (pid_ <= 0) return std::nullopt;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_ = from_wait_status(status);
      pid_ = -1;
      return exit_;
    }
    if (r < 0 && errno != EINTR) {  // not our child any more (ECHILD): treat as gone
      exit_ = ExitStatus{};
      pid_ = -1;
      return exit_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

ExitStatus EngineProcess::shut_down(int grace_ms) {
  close_input();
  if (auto s = wait_exit(grace_ms)) return *s;
  ::kill(pid_, SIGTERM);
  if (auto s = wait_exit(500)) return *s;
  ::kill(pid_, SIGKILL);
  if (auto s = wait_exit(5000)) return *s;
  return ExitStatus{true, SIGKILL};
}

}  // namespace gb::uci_adapter
