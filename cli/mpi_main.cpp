// graphbook-mpi: `graphbook build --mpi`, which graphbook runs with its own
// arguments (cli/helper.h), on every rank of mpirun. Only this executable
// loads Open MPI.
#include <CLI/CLI.hpp>

#include "builder/commands.h"

int main(int argc, char** argv) {
  constexpr int kExitUsage = 2;  // README, "Exit status"
  CLI::App app{"graphbook: a transposition-aware opening book for chess, built from PGN into LMDB",
               "graphbook"};
  app.require_subcommand(1);
  int exit_status = 0;
  gb::builder::add_commands(app, exit_status, &gb::builder::run_mpi_build);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  return exit_status;
}
