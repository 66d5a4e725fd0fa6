// The process loop of `graphbook uci`: starts the engine, waits on the GUI
// (stdin) and the engine with poll(), feeds the session and writes what it
// says. The loop is the only writer of stdout.
#pragma once

#include "uci-adapter/options.h"

namespace gb::uci_adapter {

// Runs until quit, the end of the GUI's input, or the engine's exit. Returns
// the exit status: 0 after quit or end of input, 1 when the engine could not
// start or ended on its own. The engine is reaped before returning.
int run_adapter(const AdapterConfig& config);

}  // namespace gb::uci_adapter
