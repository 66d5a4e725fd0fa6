// The command line of graphbook and of the executables beside it that run
// some of its subcommands (helper.h): one name, one description, one way
// to parse and one exit status scheme.
#pragma once

#include <CLI/CLI.hpp>

namespace gb::cli {

inline constexpr const char* kAppDescription =
    "graphbook: a transposition-aware opening book for chess, built from PGN into LMDB";
inline constexpr const char* kAppName = "graphbook";

// Parses argv into app, whose subcommands' callbacks set exit_status, and
// returns the process's exit status: exit_status, 0 for --help, 2 for a
// usage error (README, "Exit status"), which CLI11 has printed.
int parse_and_run(CLI::App& app, int argc, char** argv, const int& exit_status);

}  // namespace gb::cli
