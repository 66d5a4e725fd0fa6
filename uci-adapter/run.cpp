#include "uci-adapter/run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
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

// After quit (or the end of the GUI's input) the engine has been sent "quit"
// but may still owe replies to commands sent before it: Stockfish answers
// "uci" and "isready" and ends a running search with its "bestmove" before it
// exits. Those lines, and the adapter's own held behind them (a book answer
// waits behind an owed "readyok"), still reach the GUI: the engine's output is
// read until it closes, as a GUI that pipes a whole script in expects. An
// engine that neither answers nor exits is given kQuitGraceMs, then ended.
constexpr int kQuitGraceMs = 5000;

void finish_engine(Session& session, LineReader& from_engine, EngineProcess& engine, Outbox& out) {
  engine.close_input();  // "quit" is sent; end of input is the engine's second hint
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kQuitGraceMs);
  std::vector<std::string> lines;
  for (;;) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd fd{engine.output_fd(), POLLIN, 0};
    int n = ::poll(&fd, 1, int(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    lines.clear();
    auto r = from_engine.read_available(lines);
    for (const auto& line : lines) session.on_engine_line(line, out);
    out.to_engine.clear();  // nothing more goes to an engine that was told to quit
    (void)deliver(out, engine);
    if (r == LineReader::Read::End || r == LineReader::Read::Error) break;
  }
  session.flush_held(out);
  (void)deliver(out, engine);
}

}  // namespace

int run_adapter(const AdapterConfig& config) {
  ::signal(SIGPIPE, SIG_IGN);  // a dead engine shows as EPIPE on write, not as our death
  AdapterError error;
  auto engine = EngineProcess::start(config.engine, &error);
  if (!engine) {
    std::string line = "info string graphbook: cannot start the engine: " + error.message + "\n";
    (void)write_all(STDOUT_FILENO, line);
    std::fprintf(stderr, "graphbook uci: %s\n", error.message.c_str());
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
  if (!engine_gone) finish_engine(session, from_engine, *engine, out);
  auto status = engine->shut_down(1000);
  (void)status;
  return engine_gone ? 1 : 0;
}

}  // namespace gb::uci_adapter
