#include "uci-adapter/run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "uci-adapter/engine_process.h"
#include "uci-adapter/line_reader.h"
#include "uci-adapter/session.h"

namespace gb::uci_adapter {

namespace {

// Writes the outbox; false when the engine can no longer be written to.
bool deliver(Outbox& out, EngineProcess& engine) {
  if (!out.to_gui.empty()) {
    std::string text;
    for (const auto& line : out.to_gui) text += line, text += '\n';
    (void)write_all(STDOUT_FILENO, text);
  }
  bool engine_ok = true;
  for (const auto& line : out.to_engine) engine_ok = engine_ok && engine.send(line);
  out.to_gui.clear();
  out.to_engine.clear();
  return engine_ok;
}

}  // namespace

int run_adapter(const AdapterConfig& config) {
  ::signal(SIGPIPE, SIG_IGN);  // a dead engine shows as EPIPE on write, not as our death
  std::string error;
  auto engine = EngineProcess::start(config.engine, &error);
  if (!engine) {
    std::string line = "info string graphbook: cannot start the engine: " + error + "\n";
    (void)write_all(STDOUT_FILENO, line);
    std::fprintf(stderr, "graphbook uci: %s\n", error.c_str());
    return 1;
  }
  Session session(config.book);
  LineReader gui(STDIN_FILENO), from_engine(engine->output_fd());
  std::vector<std::string> lines;
  Outbox out;
  bool engine_gone = false, gui_open = true;
  while (!out.quit) {
    pollfd fds[2] = {{engine->output_fd(), POLLIN, 0}, {STDIN_FILENO, short(gui_open ? POLLIN : 0), 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) {
      lines.clear();
      auto r = from_engine.read_available(lines);
      for (const auto& line : lines) session.on_engine_line(line, out);
      if (r == LineReader::Read::End || r == LineReader::Read::Error) {
        engine_gone = true;
        session.on_engine_gone(engine->wait_exit(1000), out);
      }
      deliver(out, *engine);
      if (out.quit) break;
    }
    if (fds[1].revents) {
      lines.clear();
      auto r = gui.read_available(lines);
      for (const auto& line : lines) {
        session.on_gui_line(line, out);
        if (out.quit) break;
      }
      if (!out.quit && (r == LineReader::Read::End || r == LineReader::Read::Error)) {
        gui_open = false;
        session.on_gui_closed(out);
      }
      deliver(out, *engine);
    }
  }
  auto status = engine->shut_down(1000);
  (void)status;
  return engine_gone ? 1 : 0;
}

}  // namespace gb::uci_adapter
