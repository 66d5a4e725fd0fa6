// graphbook-mpi: `graphbook build --mpi`, which graphbook runs with its own
// arguments (cli/helper.h), on every rank of mpirun. Only this executable
// loads Open MPI.
#include <CLI/CLI.hpp>

#include "builder/commands.h"
#include "cli/app.h"

int main(int argc, char** argv) {
  CLI::App app{gb::cli::kAppDescription, gb::cli::kAppName};
  app.require_subcommand(1);
  int exit_status = 0;
  gb::builder::add_commands(app, exit_status, &gb::builder::run_mpi_build);
  return gb::cli::parse_and_run(app, argc, argv, exit_status);
}
