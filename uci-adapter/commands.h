// The uci-adapter component's subcommands for the graphbook executable.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

namespace gb::uci_adapter {

// Registers this component's subcommands; their callbacks set exit_status.
void add_commands(CLI::App& app, int& exit_status);

// For GUIs that start the adapter without arguments: when graphbook runs with
// no argument at all and a configuration exists (the file named by
// GRAPHBOOK_UCI_CONFIG, or "<executable>.conf" beside a renamed copy or link
// of graphbook), runs the adapter with it and returns its exit status.
// Otherwise returns nullopt and the normal command line applies.
[[nodiscard]] std::optional<int> run_from_configuration(int argc, char** argv);

}  // namespace gb::uci_adapter
