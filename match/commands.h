// The match component's subcommands for the graphbook executable: `match` and
// `novelty` (commands.cpp).
#pragma once

#include <CLI/CLI.hpp>

namespace gb::match {

// Registers `match` and `novelty`; their callbacks set exit_status.
void add_commands(CLI::App& app, int& exit_status);

}  // namespace gb::match
