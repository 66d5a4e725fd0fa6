// The error of the adapter's calls that can fail (docs/DESIGN.md, "Errors: one
// convention per layer"): the engine that does not start, the BookFilter query
// that does not compile. The session itself never fails: it turns either into
// an `info string` for the GUI and goes on. The message is what the user reads.
#pragma once

#include <string>

namespace gb::uci_adapter {

struct AdapterError {
  enum class Code {
    Engine,  // the engine's process could not be started ("cannot run 'x': No such file or directory")
    Filter,  // the BookFilter query: the CQL parser's message ("BookFilter:1:5: error: ...")
  };
  Code code;
  std::string message;
};

}  // namespace gb::uci_adapter
