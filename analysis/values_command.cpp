#include <cstdio>
#include <nlohmann/json.hpp>

#include "analysis/backed_up_values.h"
#include "analysis/commands.h"
#include "command/support.h"

namespace gb::analysis {

void add_values_command(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book;
    std::uint32_t min_games = 1;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("values", "Backs values up through the book's graph (negamax) and stores them");
  cmd->add_option("book", opt->book, "The book file")->required();
  cmd->add_option("--min-games", opt->min_games,
                  "Only moves with at least this many games count (default 1)");
  cmd->add_flag("--json", opt->json, "Report as JSON");
  cmd->footer(
      "Example:\n"
      "  graphbook analyse twic.book --depth 18 --min-games 5 && graphbook values twic.book --min-games 5\n"
      "A position's value is the best of its moves' values (1 - the value of the position each leads\n"
      "to) mixed with its own (its engine evaluation, else its games' score); where the lines end,\n"
      "its own. A move back into a position on the path counts as a draw. Replaces the values stored\n"
      "before; run it again after analyse or build. probe shows them. docs/VALUES.md.\n"
      "Exit status: 0 done, 2 bad option or book, 3 a damaged book.");
  cmd->callback([opt, &exit_status] {
    auto book = command::open_book_or_report("values", opt->book, store::OpenMode::ReadWrite, exit_status);
    if (!book) return;
    ValuesSummary summary;
    store::Error e;
    auto values = back_up_values(*book, opt->min_games, summary, &e);
    store::Status failed = values ? store_values(*book, *values, opt->min_games) : store::Status(e);
    if (failed) {
      std::fprintf(stderr, "graphbook values: %s: %s\n", opt->book.c_str(), failed->message().c_str());
      exit_status = store::kExitDamagedBook;
      return;
    }
    if (opt->json)
      std::printf("%s\n", nlohmann::json{{"positions", summary.positions},
                                         {"valued", summary.valued},
                                         {"analysed", summary.analysed},
                                         {"repetitions", summary.repetitions},
                                         {"min_games", opt->min_games}}
                              .dump(2)
                              .c_str());
    else
      std::printf(
          "%s: %zu positions valued of %zu (%zu with an engine evaluation); %zu moves into a position "
          "on the path counted as draws\n",
          opt->book.c_str(), summary.valued, summary.positions, summary.analysed, summary.repetitions);
    exit_status = 0;
  });
}

}  // namespace gb::analysis
