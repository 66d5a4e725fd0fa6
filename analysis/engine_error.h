// The error of analysis/uci_engine.h's calls (docs/DESIGN.md, "Errors: one
// convention per layer"). Its own type rather than uci-adapter's AdapterError:
// that one says only Engine or Filter, for a session that never fails, while
// analysis stops a run and reports why the engine failed (it did not start,
// it hung, it died, it answered nonsense). The message is what the user reads.
#pragma once

#include <string>

namespace gb::analysis {

struct EngineError {
  enum class Code {
    Start,     // the process could not be started ("cannot run 'x': No such file or directory")
    Timeout,   // no uciok or readyok within the deadline
    Died,      // the engine ended or closed its input
    Protocol,  // it answered, but nothing usable: no score, an illegal best move
    System,    // poll(2) failed
  };
  Code code;
  std::string message;
};

}  // namespace gb::analysis
