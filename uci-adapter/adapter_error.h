// The error of the adapter's calls that can fail (docs/DESIGN.md, "Errors: one
// convention per layer"): the engine that does not start, the BookFilter query
// that does not compile, an option or configuration line with a bad value, a
// game that could not be learned. The session itself never fails: it turns
// each into an `info string` for the GUI and goes on. The message is what the
// user reads.
#pragma once

#include <optional>
#include <string>

namespace gb::uci_adapter {

struct AdapterError {
  enum class Code {
    Engine,  // the engine's process could not be started ("cannot run 'x': No such file or directory")
    Filter,  // the BookFilter query: the CQL parser's message ("BookFilter:1:5: error: ...")
    Option,  // an option's value, or a configuration file's line ("sf.conf:3: unknown key 'boook'")
    Learn,   // learning a finished game failed (learning's message, naming the book)
  };
  Code code;
  std::string message;
};

// The result of a call without a value: empty on success (store::Status's form).
using AdapterStatus = std::optional<AdapterError>;

}  // namespace gb::uci_adapter
