#include "cli/commands.h"

namespace gb::cli {

// Registered by the CQL engine once it exists.
void add_cql_command(CLI::App&, int&) {}

}  // namespace gb::cli
