// The probe component's subcommands for the graphbook executable: `probe`,
// `pick` and `tree`. Two functions, so that cli/main.cpp keeps the order of
// `graphbook --help` (learn and unlearn come between pick and tree).
#pragma once

#include <CLI/CLI.hpp>

namespace gb::probe {

// Registers `probe` and `pick`; their callbacks set exit_status.
void add_probe_commands(CLI::App& app, int& exit_status);
// Registers `tree`.
void add_tree_command(CLI::App& app, int& exit_status);

}  // namespace gb::probe
