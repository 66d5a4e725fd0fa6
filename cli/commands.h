// The subcommands of the graphbook executable. Each add_* function registers
// one subcommand on the application; its callback stores the process exit
// status in exit_status (0 success, 1 "nothing found"/"games skipped",
// 2 bad input or unreadable file).
#pragma once

#include <CLI/CLI.hpp>

namespace gb::cli {

void add_perft_command(CLI::App& app, int& exit_status);
void add_pgn_check_command(CLI::App& app, int& exit_status);
void add_cql_command(CLI::App& app, int& exit_status);

}  // namespace gb::cli
