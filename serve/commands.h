// `graphbook serve`: registered on the command line by cli/serve_main.cpp
// (graphbook-serve, which graphbook runs for it: cli/helper.h).
#pragma once

#include <CLI/CLI.hpp>

namespace gb::serve {

// What `graphbook --help` says of it (graphbook lists it; graphbook-serve,
// which runs it, registers it: cli/helper.h).
inline constexpr const char* kDescription =
    "An opening explorer over a book: lichess-compatible JSON API and a web page";

void add_commands(CLI::App& app, int& exit_status);

}  // namespace gb::serve
