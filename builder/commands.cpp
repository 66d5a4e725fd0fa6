#include "builder/commands.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "book/cql/query_source.h"
#include "book/store/shard_manifest.h"
#include "builder/book_check.h"
#include "builder/book_info.h"
#include "builder/book_merge.h"
#include "builder/book_retract.h"
#include "builder/book_upgrade.h"
#include "builder/build.h"
#include "builder/mpi_build.h"
#include "builder/new_book_file.h"
#include "builder/orphan_files.h"
#include "builder/polyglot_export.h"
#include "builder/polyglot_import.h"
#include "builder/run_file.h"
#include "command/filter_options.h"

namespace gb::builder {

namespace {

// The largest --max-ply: plies are 16-bit in the book (min_ply).
constexpr int kMaxPly = 65535;

// "512M", "2G", "1500000" -> bytes; nullopt when malformed.
std::optional<std::size_t> parse_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (...) {
    return std::nullopt;
  }
  std::string unit = text.substr(pos);
  double mult = 1;
  if (unit == "K" || unit == "KB" || unit == "k")
    mult = 1 << 10;
  else if (unit == "M" || unit == "MB" || unit == "m")
    mult = 1 << 20;
  else if (unit == "G" || unit == "GB" || unit == "g")
    mult = double(1 << 30);
  else if (!unit.empty())
    return std::nullopt;
  // Above 1 TiB is a typo (and past 2^64 the conversion is undefined).
  if (!(v > 0) || v * mult > double(std::uint64_t(1) << 40)) return std::nullopt;
  return std::size_t(v * mult);
}

Side parse_side(const std::string& s) {
  return s == "white" ? Side::White : s == "black" ? Side::Black : Side::Both;
}

// The --filter query (its text, or a .cql file). nullopt with error set
// (Input) when it does not load or cannot filter a build; a parse error is
// rendered on stderr first, with the query's line and a caret.
std::optional<cql::LoadedQuery> load_filter(const std::string& filter, bool index_games, BuildError* error) {
  auto fail = [&](std::string message) -> std::optional<cql::LoadedQuery> {
    *error = BuildError::input(std::move(message));
    return std::nullopt;
  };
  cql::QueryLoadError load_error;
  std::error_code ignored;
  const bool is_file = std::filesystem::is_regular_file(filter, ignored) ||
                       std::filesystem::is_regular_file(filter + ".cql", ignored);
  auto query = cql::load_query(
      is_file ? cql::QuerySource{.texts = {}, .file = filter, .prefix = ""}
              : cql::QuerySource{.texts = {filter}, .file = "", .prefix = "", .text_name = "--filter"},
      &load_error);
  if (!query) {
    if (load_error.code != cql::QueryLoadError::Code::Parse) return fail("--filter: " + load_error.message());
    std::fputs(load_error.message().c_str(), stderr);
    return fail("--filter: the query does not parse");
  }
  if (query->program.has_persistent())
    return fail(
        "--filter: a query with persistent variables or dictionaries depends on the order the threads read "
        "the games in: it cannot filter a build");
  if (index_games) return fail("--filter cannot be combined with --index-games yet");
  return query;
}

// build --mpi where the executable does not link Open MPI.
std::optional<BuildReport> mpi_refused(BuildError* error, int* rank) {
  *rank = 0;
  *error = BuildError::input(
      "--mpi: this graphbook was built without MPI (install Open MPI, libopenmpi-dev, and configure with "
      "-DGRAPHBOOK_MPI=ON; scripts/setup.sh does both)");
  std::cerr << "graphbook build: " << error->message << std::endl;
  return std::nullopt;
}

void add_build(CLI::App& app, int& exit_status, MpiBuild mpi_build) {
  struct Options {
    std::string book;
    std::vector<std::string> inputs;
    int max_ply = 40;
    std::int64_t min_games = 1;  // signed, so that -3 is out of range rather than unconvertible
    int min_elo = 0;
    std::string since, until, color = "both", memory = "16M";
    int threads = int(std::min(256u, std::max(1u, std::thread::hardware_concurrency())));
    bool no_dedup = false, json = false, quiet = false;
    bool index_games = false;
    bool mpi = false;  // --mpi: one build on the ranks of mpirun, into a sharded book
    bool buckets = false, by_month = false;
    std::string filter;  // --filter: query text or file
    std::string player;  // --player NAME
    std::string source;  // --source NAME
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("build", "Build a book from PGN games, or add games to an existing book");
  cmd->add_option("book", opt->book, "The book file (created when absent)")->required();
  cmd->add_option("inputs", opt->inputs, "PGN files: .pgn, .pgn.zst, or - for stdin")->required();
  cmd->add_option(
         "--max-ply", opt->max_ply,
         "Plies of each game that become edges; 0 = the whole game. The default 40 (20 moves) covers the "
         "opening, where a book is used, and keeps the book small. Every build into one book uses the same: "
         "left out, it is the book's")
      ->check(CLI::Range(0, kMaxPly));
  cmd->add_option("--min-games", opt->min_games,
                  "Leave out moves and positions seen in fewer games (their counts are kept apart, so that a "
                  "later build adds to them). Every build into one book uses the same: left out, it is the "
                  "book's")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(UINT32_MAX)));
  cmd->add_option("--min-elo", opt->min_elo, "Only games whose players are both rated at least this")
      ->check(CLI::Range(0, 4000));
  cmd->add_option("--since", opt->since,
                  "Only games played on or after this date (2012, 2012-03, 2012.03.15)");
  cmd->add_option("--until", opt->until, "Only games played on or before this date");
  cmd->add_option(
         "--color", opt->color,
         "A one-sided repertoire: only this side's moves become edges. Every build into one book uses "
         "the same: left out, it is the book's")
      ->check(CLI::IsMember({"white", "black", "both"}));
  cmd->add_option(
      "--player", opt->player,
      "A player's repertoire: only the games NAME plays (a White or Black tag containing NAME, as "
      "graphbook cql --player matches), the player's moves and all replies; with --color, only "
      "that colour's games");
  cmd->add_option("--threads", opt->threads, "Parse threads (default: all cores)")->check(CLI::Range(1, 256));
  cmd->add_option(
      "--memory", opt->memory,
      "Memory for the build (default 16M; e.g. 512M, 2G): the aggregation tables of all threads get what "
      "the rest of the build and the duplicate check leave (at least 16M); beyond it sorted runs spill to "
      "disk (beside the book) and are merged at the end. The duplicate check's fingerprints take at most a "
      "quarter of what is left and spill to sorted runs past it. Small budgets cost little time");
  cmd->add_flag("--no-dedup", opt->no_dedup, "Count duplicate games again (no fingerprint check)");
  cmd->add_flag("--index-games", opt->index_games,
                "Also store the games added and an index of their positions, for graphbook match");
  cmd->add_flag("--buckets", opt->buckets,
                "A new book that also counts by rating, speed, period and source, so that probe and export "
                "can filter (--ratings, --speeds, --since, --until) without a rebuild; about twice the size "
                "and build time. A book that has them keeps counting them");
  cmd->add_flag(
      "--by-month", opt->by_month,
      "Buckets by month, not by year (implies --buckets; a new book; later builds take the book's)");
  cmd->add_option(
      "--filter", opt->filter,
      "Only the games this CQL query matches, as graphbook cql decides (query text, or a .cql file)");
  cmd->add_option(
      "--source", opt->source,
      "The source these inputs belong to, a name several files (and builds) can share: info lists "
      "it, retract takes it back out (default: each file is a source of its own, named by its "
      "path)");
  cmd->add_flag("--json", opt->json, "Print the summary as JSON");
  cmd->add_flag("--quiet", opt->quiet, "No progress line");
  cmd->add_flag("--mpi", opt->mpi,
                "Run as one rank of `mpirun -np N graphbook build --mpi BOOK INPUT...`: BOOK is a new "
                "directory, a sharded book of one LMDB book per key range (docs/SCALE.md, Past one machine)");
  cmd->footer(
      "Examples:\n  graphbook build games.book twic0920.pgn\n"
      "  graphbook build games.book twic09*.pgn --source twic --buckets   (then: graphbook retract "
      "games.book "
      "twic)\n"
      "  zstd -dc big.pgn.zst | graphbook build games.book - --max-ply 30 --min-elo 2400 --memory 2G\n"
      "  graphbook build white.book mine.pgn --color white --since 2020\n"
      "  graphbook build carlsen.book twic*.pgn --player Carlsen   (add --color white for his White games)\n"
      "  graphbook build carlsen.book twic*.pgn --filter 'player black \"Carlsen\"'  (or --filter "
      "najdorf.cql)\n"
      "  graphbook build games.book twic0920.pgn --index-games   (then: graphbook match games.book "
      "mygame.pgn)\n"
      "Adding games to a book: --max-ply, --min-games and --color are the book's (a build that gives another "
      "value is refused), so that a book built in steps is the book one build of all the inputs makes.");
  cmd->callback([opt, cmd, mpi_build, &exit_status] {
    BuildOptions o;
    o.max_ply = opt->max_ply;
    o.min_games = std::uint32_t(opt->min_games);
    o.min_elo = opt->min_elo;
    o.side = parse_side(opt->color);
    o.max_ply_given = cmd->count("--max-ply") > 0;
    o.min_games_given = cmd->count("--min-games") > 0;
    o.side_given = cmd->count("--color") > 0;
    o.threads = unsigned(opt->threads);
    o.dedup = !opt->no_dedup;
    o.index_games = opt->index_games;
    o.buckets = opt->buckets || opt->by_month;
    o.by_month = opt->by_month;
    o.by_month_given = opt->by_month;
    o.player = opt->player;
    o.source = opt->source;
    o.progress = !opt->quiet;
    auto mem = parse_size(opt->memory);
    auto since = opt->since.empty() ? std::optional<int>(0) : parse_date_bound(opt->since, false);
    auto until = opt->until.empty() ? std::optional<int>(0) : parse_date_bound(opt->until, true);
    auto bad = [&](const std::string& what) {
      std::fprintf(stderr, "graphbook build: %s\n", what.c_str());
      exit_status = 2;
    };
    if (!mem) return bad("--memory " + opt->memory + ": not a size (use e.g. 512M or 2G, at most 1T)");
    auto not_a_date = [](const char* name, const std::string& text) {
      return std::string(name) + " " + text +
             ": not a date (use YYYY, YYYY.MM or YYYY.MM.DD, with '-' or '.' between; month 1-12, day 1-31)";
    };
    if (!since) return bad(not_a_date("--since", opt->since));
    if (!until) return bad(not_a_date("--until", opt->until));
    if (*since && *until && *since > *until)
      return bad("--since " + opt->since + " is after --until " + opt->until + ": no game could pass");
    o.memory = *mem;
    o.since = *since;
    o.until = *until;
    std::optional<cql::LoadedQuery> filter;
    if (!opt->filter.empty()) {
      BuildError error;
      filter = load_filter(opt->filter, opt->index_games, &error);
      if (!filter) return bad(error.message);
      o.filter = &filter->program;
    }
    BuildError error;
    int rank = 0;  // --mpi: only rank 0 reports
    auto report = !opt->mpi   ? run_build(opt->book, opt->inputs, o, std::cerr, &error)
                  : mpi_build ? mpi_build(opt->book, opt->inputs, o, std::cerr, &error, &rank)
                              : mpi_refused(&error, &rank);
    if (!report) {  // --mpi said why on rank 0
      if (!opt->mpi) std::fprintf(stderr, "graphbook build: %s\n", error.message.c_str());
      exit_status = rank == 0 ? exit_status_for(error) : store::kExitSuccess;
      return;
    }
    if (rank != 0) {
      exit_status = store::kExitSuccess;
      return;
    }
    const InputReport& t = report->total;
    if (opt->json) {
      nlohmann::json inputs = nlohmann::json::array();
      for (const auto& i : report->inputs)
        inputs.push_back({{"name", i.name},
                          {"games_read", i.games_read},
                          {"added", i.added},
                          {"duplicates", i.duplicates},
                          {"skipped", i.skipped},
                          {"filtered", i.filtered},
                          {"warnings", i.warnings},
                          {"binary", i.binary},
                          {"already_in_book", i.already_in_book},
                          {"error", i.error}});
      nlohmann::json j = {{"games_read", t.games_read},
                          {"games_added", t.added},
                          {"duplicates", t.duplicates},
                          {"skipped", t.skipped},
                          {"filtered", t.filtered},
                          {"filtered_by_query", t.filtered_by_query},
                          {"warnings", t.warnings},
                          {"nodes_written", report->commit.nodes_written},
                          {"edges_written", report->commit.edges_written},
                          {"key_collisions", report->collisions},
                          {"spilled_runs", report->spills},
                          {"commit_slices", report->commit.slices},
                          {"bucket_keys_written", report->commit.bucket_keys_written},
                          {"bucket_spilled_runs", report->bucket_spills},
                          {"fingerprint_spilled_runs", report->fingerprint_spills},
                          {"seconds", report->seconds},
                          {"parse_seconds", report->parse_seconds},
                          {"commit_seconds", report->commit_seconds},
                          {"inputs", inputs}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf(
          "games read %llu, added %llu, duplicates %llu, skipped (bad) %llu, filtered %llu, warnings %llu\n",
          (unsigned long long)t.games_read, (unsigned long long)t.added, (unsigned long long)t.duplicates,
          (unsigned long long)t.skipped, (unsigned long long)t.filtered, (unsigned long long)t.warnings);
      if (o.filter)
        std::printf("filtered out by --filter %llu of %llu games\n", (unsigned long long)t.filtered_by_query,
                    (unsigned long long)(t.games_read - t.skipped));
      std::printf("nodes written %llu, edges written %llu, key collisions %llu, %.2f s\n",
                  (unsigned long long)report->commit.nodes_written,
                  (unsigned long long)report->commit.edges_written, (unsigned long long)report->collisions,
                  report->seconds);
    }
    // Last, after the summary: an input with warnings, and one that is not PGN at all.
    std::fflush(stdout);
    for (const auto& i : report->inputs)
      if (i.warnings)
        std::fprintf(stderr, "warning: %s: %llu %s%s\n", i.name.c_str(), (unsigned long long)i.warnings,
                     i.warnings == 1 ? "warning" : "warnings",
                     i.binary ? "; it holds binary data: it does not look like a PGN file" : "");
    bool input_error = false;
    for (const auto& i : report->inputs) input_error |= !i.error.empty();
    exit_status = input_error ? store::kExitBadInput : store::kExitSuccess;
  });
}

void add_info(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("info", "Show what a book holds: nodes, edges, games, transpositions, sources");
  cmd->add_option("book", opt->book, "The book file, or a sharded book's directory (build --mpi)")
      ->required();
  cmd->add_flag("--json", opt->json, "JSON output");
  cmd->footer("Example:\n  graphbook info games.book --json");
  cmd->callback([opt, &exit_status] {
    // What builds killed with SIGKILL left beside the book (a build removes
    // its own files when interrupted otherwise, and the next build these).
    if (!store::is_sharded_book(opt->book)) {
      remove_orphans(dir_of(opt->book), std::string(kRunFilePrefix));
      remove_new_book_orphans(opt->book);
    }
    store::BookError be;
    auto book = store::Book::open(opt->book, store::OpenMode::ReadOnly, &be);
    if (!book) {
      std::fprintf(stderr, "graphbook info: %s\n", be.message.c_str());
      exit_status = store::exit_status_for(be);
      return;
    }
    BuildError error;
    auto info = book_info(*book, &error);
    if (!info) {  // the book opened, and LMDB failed reading it
      std::fprintf(stderr, "graphbook info: %s\n", error.message.c_str());
      exit_status = exit_status_for(error);
      return;
    }
    if (opt->json)
      std::printf("%s\n", to_json(*info).dump(2).c_str());
    else
      std::printf("%s", to_text(*info).c_str());
    exit_status = 0;
  });
}

void add_export(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book, out, color = "both";
    int max_ply = 0;
    std::int64_t min_games = 1;  // signed, so that -3 is out of range rather than unconvertible
    bool uniform = false, eval_learn = false;
    command::FilterOptions filter;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("export", "Write the book as a Polyglot .bin (entries as polyglot make-book's)");
  cmd->add_option("book", opt->book, "The book file")->required();
  cmd->add_option("out", opt->out, "The .bin to write")->required();
  cmd->add_option("--max-ply", opt->max_ply, "Only moves played before this ply (0 = all)")
      ->check(CLI::Range(0, kMaxPly));
  cmd->add_option("--min-games", opt->min_games,
                  "Only moves played at least this often (make-book's -min-game)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(UINT32_MAX)));
  cmd->add_option("--color", opt->color, "Only this side's moves (make-book's -only-white/-only-black)")
      ->check(CLI::IsMember({"white", "black", "both"}));
  cmd->add_flag("--uniform", opt->uniform, "Every weight 1 (make-book's -uniform)");
  cmd->add_flag("--eval-learn", opt->eval_learn,
                "Put the move's engine evaluation (graphbook analyse) in the learn field: cp + 2^31, 0 for "
                "none (docs/FORMAT.md)");
  command::add_filter_options(cmd, opt->filter);
  cmd->footer(
      "Example (the same entries as 'polyglot make-book -pgn twic.pgn -max-ply 16 -min-game 3'):\n"
      "  graphbook build twic.book twic.pgn --max-ply 16 --no-dedup && graphbook export twic.book twic.bin "
      "--max-ply 16 --min-games 3\n"
      "(make-book counts duplicate games again, hence --no-dedup; it counts a move every time a game plays "
      "it,\n"
      "which is what --min-games counts here)");
  cmd->callback([opt, &exit_status] {
    std::optional<store::BucketFilter> filter;
    if (opt->filter.given()) {
      store::FilterError why;
      filter = opt->filter.parse(&why);
      if (!filter) {
        std::fprintf(stderr, "graphbook export: %s\n", why.message.c_str());
        exit_status = store::kExitBadInput;
        return;
      }
    }
    store::BookError be;
    auto book = store::Book::open(opt->book, store::OpenMode::ReadOnly, &be);
    if (!book) {
      std::fprintf(stderr, "graphbook export: %s\n", be.message.c_str());
      exit_status = store::exit_status_for(be);
      return;
    }
    if (filter)
      if (auto unknown = store::resolve_weights(*filter, book->sources())) {
        std::fprintf(stderr, "graphbook export: %s: %s\n", opt->book.c_str(), unknown->message.c_str());
        exit_status = store::kExitBadInput;
        return;
      }
    const ExportOptions o{.max_ply = opt->max_ply,
                          .min_games = std::uint32_t(opt->min_games),
                          .side = parse_side(opt->color),
                          .uniform = opt->uniform,
                          .eval_learn = opt->eval_learn,
                          .filter = filter ? &*filter : nullptr};
    BuildError error;
    auto entries = export_entries(*book, o, &error);
    if (!entries) {  // the book opened, and LMDB failed reading it
      std::fprintf(stderr, "graphbook export: %s\n", error.message.c_str());
      exit_status = exit_status_for(error);
      return;
    }
    if (auto e = store::write_polyglot_file(opt->out, *entries)) {
      std::fprintf(stderr, "graphbook export: %s\n", e->message().c_str());
      exit_status = store::kExitBadInput;  // an output that cannot be written
      return;
    }
    std::printf("%zu entries written to %s\n", entries->size(), opt->out.c_str());
    exit_status = 0;
  });
}

void add_import(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book, in;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("import", "Add a Polyglot .bin book to a book (positions recovered from the start)");
  cmd->add_option("book", opt->book, "The book file (created when absent)")->required();
  cmd->add_option("in", opt->in, "The Polyglot .bin")->required();
  cmd->footer(
      "Example:\n  graphbook import performance.book performance.bin && graphbook info performance.book");
  cmd->callback([opt, &exit_status] {
    BuildError error;
    auto report = import_polyglot(opt->book, opt->in, &error);
    if (!report) {
      std::fprintf(stderr, "graphbook import: %s\n", error.message.c_str());
      exit_status = exit_status_for(error);
      return;
    }
    if (report->already_in_book) {
      std::printf("%s is already in the book; nothing added\n", opt->in.c_str());
    } else {
      std::printf("%llu entries: %llu on %llu positions reached from the start, %llu kept by key only\n",
                  (unsigned long long)report->entries, (unsigned long long)report->edges_reached,
                  (unsigned long long)report->positions_reached, (unsigned long long)report->key_only);
    }
    exit_status = 0;
  });
}

void add_upgrade(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "upgrade",
      "Rewrite a book of format 2 to 6 as format 7 (a section per position, edges sharing their node's "
      "fields, sections grouped several to an LMDB record, one-game positions packed, game fingerprints in "
      "blocks), keeping all it holds");
  cmd->add_option("book", opt->book, "The book file (replaced by the new one when done)")->required();
  cmd->add_flag("--json", opt->json, "JSON output");
  cmd->footer("Example:\n  graphbook upgrade games.book   (learning, fingerprints and sources are kept)");
  cmd->callback([opt, &exit_status] {
    BuildError error;
    auto report = upgrade_book(opt->book, &error);
    if (!report) {
      std::fprintf(stderr, "graphbook upgrade: %s\n", error.message.c_str());
      exit_status = exit_status_for(error);
      return;
    }
    const bool done = report->from_version != store::kFormatVersion;
    if (opt->json) {
      nlohmann::json j = {{"book", opt->book},
                          {"from_version", report->from_version},
                          {"to_version", store::kFormatVersion},
                          {"upgraded", done},
                          {"positions", report->positions},
                          {"nodes", report->nodes},
                          {"edges", report->edges},
                          {"other_records", report->other_records}};
      std::printf("%s\n", j.dump(2).c_str());
    } else if (done) {
      std::printf("%s: format %u -> %u: %llu positions (%llu nodes, %llu edges), %llu other records kept\n",
                  opt->book.c_str(), unsigned(report->from_version), unsigned(store::kFormatVersion),
                  (unsigned long long)report->positions, (unsigned long long)report->nodes,
                  (unsigned long long)report->edges, (unsigned long long)report->other_records);
    } else {
      std::printf("%s: already format %u, nothing to do\n", opt->book.c_str(),
                  unsigned(store::kFormatVersion));
    }
    exit_status = 0;
  });
}

}  // namespace

void add_commands(CLI::App& app, int& exit_status, MpiBuild mpi_build) {
  add_build(app, exit_status, mpi_build);
  add_info(app, exit_status);
  add_export(app, exit_status);
  add_import(app, exit_status);
  add_upgrade(app, exit_status);
  add_merge_command(app, exit_status);
  add_retract_command(app, exit_status);
  add_check_command(app, exit_status);
}

}  // namespace gb::builder
