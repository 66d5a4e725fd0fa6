// The builder component's subcommands for the graphbook executable.
#pragma once

#include <CLI/CLI.hpp>

#include "builder/mpi_build.h"

namespace gb::builder {

// Registers this component's subcommands; their callbacks set exit_status.
// mpi_build: what runs build --mpi, run_mpi_build where the executable links
// Open MPI (graphbook-mpi); without it build --mpi is refused.
void add_commands(CLI::App& app, int& exit_status, MpiBuild mpi_build = nullptr);

}  // namespace gb::builder
