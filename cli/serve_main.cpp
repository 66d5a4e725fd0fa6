// graphbook-serve: `graphbook serve`, which graphbook runs with its own
// arguments (cli/helper.h). Only this executable loads cpp-httplib.
#include <CLI/CLI.hpp>

#include "cli/app.h"
#include "serve/commands.h"

int main(int argc, char** argv) {
  CLI::App app{gb::cli::kAppDescription, gb::cli::kAppName};
  app.require_subcommand(1);
  int exit_status = 0;
  gb::serve::add_commands(app, exit_status);
  return gb::cli::parse_and_run(app, argc, argv, exit_status);
}
