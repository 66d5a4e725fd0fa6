// `graphbook merge OUT BOOK1 BOOK2 ...` (book_merge.h, docs/MERGE.md).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "book/store/shard_manifest.h"
#include "builder/book_merge.h"

namespace gb::builder {

void add_merge_command(CLI::App& app, int& exit_status) {
  struct Options {
    std::string out;
    std::vector<std::string> books;
    std::int64_t min_games = 0;  // signed, so that -3 is out of range rather than unconvertible
    bool json = false, quiet = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Write a new book that sums books: what one build of all their inputs would hold");
  cmd->add_option("out", opt->out, "The new book (must not exist)")->required();
  cmd->add_option(
         "books", opt->books,
         "The books to merge, in the order their inputs would be built; a sharded book (build --mpi) "
         "stands for its shards, so that `merge OUT SHARDED` makes it one book")
      ->required()
      ->expected(1, -1);
  cmd->add_option("--min-games", opt->min_games,
                  "The merged book's --min-games (needed when the books' differ: each keeps the counts below "
                  "its own, so any value is exact)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(UINT32_MAX)));
  cmd->add_flag("--json", opt->json, "Print the summary as JSON");
  cmd->add_flag("--quiet", opt->quiet, "No progress line");
  cmd->footer(
      "Examples:\n  graphbook build a.book part1.pgn && graphbook build b.book part2.pgn\n"
      "  graphbook merge all.book a.book b.book     (the book 'graphbook build all.book part1.pgn part2.pgn' "
      "makes)\n"
      "  graphbook merge all.book a.book b.book --min-games 3 --json\n"
      "  graphbook merge one.book sharded.book     (a sharded book of build --mpi as one book)\n"
      "The books must share --max-ply, --color and --player. A game in two books counts once: its later copy "
      "is\n"
      "taken out by replaying it from the stored games (build --index-games); without them such a merge is\n"
      "refused. Learning is summed, engine evaluations kept (the deeper one), backed-up values dropped (run\n"
      "graphbook values again). See docs/MERGE.md.");
  cmd->callback([opt, cmd, &exit_status] {
    MergeOptions o;
    if (cmd->count("--min-games")) o.min_games = std::uint32_t(opt->min_games);
    o.progress = !opt->quiet;
    BuildError error;
    // A sharded book is its shards in key order (book/store/shard_manifest.h): their keys
    // do not overlap, and only the global shard holds games and sources.
    std::vector<std::string> books;
    bool sharded = false;
    for (const std::string& b : opt->books) {
      if (!store::is_sharded_book(b)) {
        books.push_back(b);
        continue;
      }
      store::BookError be;
      auto manifest = store::read_manifest(b, &be);
      if (!manifest) {
        error = BuildError::opening(be);
        std::fprintf(stderr, "graphbook merge: %s\n", error.message.c_str());
        exit_status = exit_status_for(error);
        return;
      }
      for (const std::string& p : store::shard_paths(b, *manifest)) books.push_back(p);
      sharded = true;
    }
    if (books.size() < 2 && !sharded) {
      std::fprintf(stderr, "graphbook merge: give two books or more, or a sharded book (build --mpi)\n");
      exit_status = store::kExitBadInput;
      return;
    }
    auto report = merge_books(opt->out, books, o, &error);
    if (!report) {
      std::fprintf(stderr, "graphbook merge: %s\n", error.message.c_str());
      exit_status = exit_status_for(error);
      return;
    }
    const MergeReport& r = *report;
    if (opt->json) {
      nlohmann::json j = {{"book", opt->out},
                          {"books", opt->books},
                          {"positions", r.positions},
                          {"nodes", r.nodes},
                          {"edges", r.edges},
                          {"pruned_nodes", r.pruned_nodes},
                          {"pruned_edges", r.pruned_edges},
                          {"games", r.games},
                          {"shared_games", r.shared_games},
                          {"sources", r.sources},
                          {"shared_sources", r.shared_sources},
                          {"stored_games", r.stored_games},
                          {"learn_records", r.learn_records},
                          {"evaluations", r.evaluations},
                          {"key_collisions", r.collisions},
                          {"values_dropped", r.values_dropped},
                          {"max_ply", r.shape.max_ply},
                          {"min_games", r.shape.min_games}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s: %llu games (%llu in more than one book, counted once), %llu nodes, %llu edges",
                  opt->out.c_str(), (unsigned long long)r.games, (unsigned long long)r.shared_games,
                  (unsigned long long)r.nodes, (unsigned long long)r.edges);
      if (r.pruned_nodes || r.pruned_edges)
        std::printf(" (and %llu nodes, %llu edges below --min-games %u)", (unsigned long long)r.pruned_nodes,
                    (unsigned long long)r.pruned_edges, unsigned(r.shape.min_games));
      std::printf(", %llu sources, %llu stored games\n", (unsigned long long)r.sources,
                  (unsigned long long)r.stored_games);
      if (r.values_dropped)
        std::printf("backed-up values were not copied: run graphbook values %s\n", opt->out.c_str());
    }
    exit_status = store::kExitSuccess;
  });
}

}  // namespace gb::builder
