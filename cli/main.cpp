#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "analysis/commands.h"
#include "builder/commands.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/helper.h"
#include "learning/commands.h"
#include "match/commands.h"
#include "probe/commands.h"
#include "query/commands.h"
#include "serve/commands.h"
#include "uci-adapter/commands.h"
#include "version.h"

namespace {

constexpr int kExitUsage = 2;  // README, "Exit status"

bool is_subcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(word)) return true;
  return false;
}

// "The subcommands:" and one line per subcommand with its description.
std::string subcommand_list(const CLI::App& app) {
  std::string out = "The subcommands:\n";
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    std::string name = sub->get_name();
    out += "  " + name + std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') + sub->get_description() +
           "\n";
  }
  return out + "Run 'graphbook SUBCOMMAND --help' for the options and an example of each.\n";
}

}  // namespace

int main(int argc, char** argv) {
  // A GUI that cannot pass arguments starts a renamed graphbook, or sets GRAPHBOOK_UCI_CONFIG.
  if (auto status = gb::uci_adapter::run_from_configuration(argc, argv)) return *status;
  if (auto helper = gb::cli::helper_for(argc, argv)) return gb::cli::run_helper(*helper, argv);
  CLI::App app{gb::cli::kAppDescription, gb::cli::kAppName};
  app.set_version_flag("--version", std::string("graphbook ") + GRAPHBOOK_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'graphbook SUBCOMMAND --help' for the options and an example of each subcommand.");
  int exit_status = 0;
  gb::cli::add_perft_command(app, exit_status);
  gb::cli::add_pgn_check_command(app, exit_status);
  gb::builder::add_commands(app, exit_status);
  // `graphbook --help` lists the subcommands in this order.
  gb::probe::add_probe_commands(app, exit_status);
  gb::learning::add_learn_commands(app, exit_status);
  gb::probe::add_tree_command(app, exit_status);
  gb::match::add_commands(app, exit_status);
  gb::learning::add_pending_command(app, exit_status);
  gb::uci_adapter::add_commands(app, exit_status);
  app.add_subcommand("serve", gb::serve::kDescription);  // run by graphbook-serve (cli/helper.h)
  gb::analysis::add_commands(app, exit_status);
  gb::cli::add_cql_command(app, exit_status);
  gb::query::add_commands(app, exit_status);
  // CLI11 takes an unknown first word for a stray argument and says only that
  // a subcommand is required: name the word and list the subcommands instead.
  if (argc < 2 || (argv[1][0] != '-' && !is_subcommand(app, argv[1]))) {
    if (argc < 2)
      std::fprintf(stderr, "graphbook: a subcommand is required\n");
    else
      std::fprintf(stderr, "graphbook: unknown subcommand '%s'\n", argv[1]);
    std::fprintf(stderr, "%s", subcommand_list(app).c_str());
    return kExitUsage;
  }
  return gb::cli::parse_and_run(app, argc, argv, exit_status);
}
