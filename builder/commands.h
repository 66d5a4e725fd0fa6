// The builder component's subcommands for the graphbook executable.
#pragma once

#include <CLI/CLI.hpp>

namespace gb::builder {

// Registers this component's subcommands; their callbacks set exit_status.
void add_commands(CLI::App& app, int& exit_status);

}  // namespace gb::builder
