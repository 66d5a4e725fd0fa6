// `graphbook retract BOOK SOURCE` (book_retract.h, docs/RETRACT.md).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "builder/book_retract.h"

namespace gb::builder {

void add_retract_command(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book, source;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "retract", "Take a source's games back out of a book: what a build of its other inputs would hold");
  cmd->add_option("book", opt->book, "The book (built with --buckets and --index-games)")->required();
  cmd->add_option("source", opt->source,
                  "The source: a build --source NAME, or an input's path as graphbook info lists it")
      ->required();
  cmd->add_flag("--json", opt->json, "Print the summary as JSON");
  cmd->footer(
      "Examples:\n"
      "  graphbook build games.book twic*.pgn --source twic --buckets --index-games\n"
      "  graphbook build games.book bots.pgn --source bots\n"
      "  graphbook retract games.book bots      (the book 'graphbook build games.book twic*.pgn' makes)\n"
      "Counts, buckets, fingerprints and stored games of the source go, in one transaction; learning stays,\n"
      "backed-up values are dropped (run graphbook values again). A book without buckets, or with\n"
      "fingerprints but no stored games, is refused (exit 2). See docs/RETRACT.md.");
  cmd->callback([opt, &exit_status] {
    BuildError error;
    auto report = retract_source(opt->book, opt->source, &error);
    if (!report) {
      std::fprintf(stderr, "graphbook retract: %s\n", error.message.c_str());
      exit_status = exit_status_for(error);
      return;
    }
    const RetractReport& r = *report;
    if (opt->json) {
      nlohmann::json j = {{"book", opt->book},
                          {"source", r.source},
                          {"files", r.files},
                          {"games", r.games},
                          {"duplicates", r.duplicates},
                          {"positions", r.positions},
                          {"nodes_removed", r.nodes_removed},
                          {"edges_removed", r.edges_removed},
                          {"stored_games", r.stored_games},
                          {"fingerprints", r.fingerprints},
                          {"learn_records_kept", r.learn_records},
                          {"values_dropped", r.values_dropped}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf(
          "%s: retracted '%s' (%llu files): %llu games out of %llu positions (%llu nodes and %llu edges had "
          "no other game), %llu stored games and %llu fingerprints removed\n",
          opt->book.c_str(), r.source.c_str(), (unsigned long long)r.files, (unsigned long long)r.games,
          (unsigned long long)r.positions, (unsigned long long)r.nodes_removed,
          (unsigned long long)r.edges_removed, (unsigned long long)r.stored_games,
          (unsigned long long)r.fingerprints);
      if (r.learn_records)
        std::printf("learning left as it was (%llu records): learned games are not a source's\n",
                    (unsigned long long)r.learn_records);
      if (r.values_dropped) std::printf("backed-up values dropped: run graphbook values again\n");
    }
    exit_status = 0;
  });
}

}  // namespace gb::builder
