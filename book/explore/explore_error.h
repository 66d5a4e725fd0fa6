// The error of book/explore's calls (docs/DESIGN.md, "Errors: one convention
// per layer"): a POSITION that does not resolve or an opening table that does
// not read is the user's input (exit status 2); graphviz's dot missing or
// failing is the environment. The message is what the user reads: it names the
// file and line, the game and ply, or the move that failed, and why.
#pragma once

#include <optional>
#include <string>

namespace gb::explore {

struct ExploreError {
  enum class Code {
    Position,  // a bad FEN, an illegal move, a game or ply that does not exist
    Names,     // an opening table that cannot be read, or a line of it that does not replay
    Render,    // graphviz's dot is missing or failed
  };
  Code code;
  std::string message;
};

// The result of a call without a value: empty on success (store::Status's form).
using ExploreStatus = std::optional<ExploreError>;

}  // namespace gb::explore
