// `graphbook match` and `graphbook novelty` (match_command.cpp).
#pragma once

#include <CLI/CLI.hpp>

namespace gb::probe {

void add_match_commands(CLI::App& app, int& exit_status);

}  // namespace gb::probe
