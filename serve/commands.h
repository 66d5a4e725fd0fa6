// `graphbook serve`: registered on the command line by cli/main.cpp.
#pragma once

#include <CLI/CLI.hpp>

namespace gb::serve {

void add_commands(CLI::App& app, int& exit_status);

}  // namespace gb::serve
