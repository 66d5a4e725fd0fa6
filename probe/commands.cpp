#include "probe/commands.h"

namespace gb::probe {

void add_commands(CLI::App&, int&) {}

}  // namespace gb::probe
