#include "cli/commands.h"

namespace gb::cli {

// Placeholder registration replaced by the PGN reader's pgn-check.
void add_pgn_check_command(CLI::App&, int&) {}

}  // namespace gb::cli
