// The subcommands of the analysis component: `graphbook analyse` (engine
// evaluations of a book's positions) and `graphbook values` (values backed up
// through the book's graph). docs/VALUES.md.
#pragma once

#include <CLI/CLI.hpp>

namespace gb::analysis {

void add_commands(CLI::App& app, int& exit_status);

}  // namespace gb::analysis
