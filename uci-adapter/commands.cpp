#include "uci-adapter/commands.h"

namespace gb::uci_adapter {

void add_commands(CLI::App&, int&) {}

}  // namespace gb::uci_adapter
