// The learning component's subcommands for the graphbook executable: `learn`
// and `unlearn` (results of played games per book move) and `uci-pending` (the
// games `graphbook uci` recorded without a result). Two functions, so that
// cli/main.cpp keeps the order of `graphbook --help`.
#pragma once

#include <CLI/CLI.hpp>

namespace gb::learning {

// `learn` and `unlearn`; their callbacks set exit_status.
void add_learn_commands(CLI::App& app, int& exit_status);
// `uci-pending`.
void add_pending_command(CLI::App& app, int& exit_status);

}  // namespace gb::learning
