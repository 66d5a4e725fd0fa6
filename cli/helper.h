// Subcommands that another executable beside graphbook runs: `serve` needs
// cpp-httplib, which brings OpenSSL, zlib and brotli, and the dynamic
// loader's work on them (and OpenSSL's start-up) was half of the start of
// every subcommand. graphbook-serve (cli/serve_main.cpp) links them and
// registers `serve` the same way; graphbook hands it its arguments unchanged.
// Likewise `build --mpi` runs in graphbook-mpi (cli/mpi_main.cpp), the one
// executable that links Open MPI, whose libraries are many.
#pragma once

#include <optional>

namespace gb::cli {

// The executable beside graphbook that runs the subcommand of argv
// (argv[1]); nullopt for graphbook's own.
std::optional<const char*> helper_for(int argc, char** argv);

// Runs the helper in this process (execv, argv unchanged: its argv[0] stays
// graphbook's, its output and exit status are the subcommand's); returns
// only when it cannot be started, with the exit status for that (2, after
// saying why on stderr).
int run_helper(const char* helper, char** argv);

}  // namespace gb::cli
