#include <CLI/CLI.hpp>

#include "builder/commands.h"
#include "cli/commands.h"
#include "probe/commands.h"
#include "uci-adapter/commands.h"
#include "version.h"

int main(int argc, char** argv) {
  // A GUI that cannot pass arguments starts a renamed graphbook, or sets GRAPHBOOK_UCI_CONFIG.
  if (auto status = gb::uci_adapter::run_from_configuration(argc, argv)) return *status;
  CLI::App app{"graphbook: a transposition-aware opening book for chess, built from PGN into LMDB",
               "graphbook"};
  app.set_version_flag("--version", std::string("graphbook ") + GRAPHBOOK_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'graphbook SUBCOMMAND --help' for the options and an example of each subcommand.");
  int exit_status = 0;
  gb::cli::add_perft_command(app, exit_status);
  gb::cli::add_pgn_check_command(app, exit_status);
  gb::builder::add_commands(app, exit_status);
  gb::probe::add_commands(app, exit_status);
  gb::uci_adapter::add_commands(app, exit_status);
  gb::cli::add_cql_command(app, exit_status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return exit_status;
}
