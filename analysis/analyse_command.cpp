#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "analysis/analyse_run.h"
#include "analysis/book_walk.h"
#include "analysis/commands.h"
#include "book/explore/position_arg.h"
#include "command/support.h"

namespace gb::analysis {

void add_values_command(CLI::App& app, int& exit_status);  // values_command.cpp

namespace {

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop = true; }

std::string duration_text(double seconds) {
  long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  return buf;
}

// The root of the walk: --from as a FEN (it holds a '/') or moves from the start.
std::optional<Position> resolve_root(const std::string& from) {
  explore::PositionSpec spec;
  (from.find('/') != std::string::npos ? spec.fen : spec.moves) = from;
  explore::ExploreError error;
  auto r = explore::resolve_position(spec, &error);
  if (!r) {
    std::fprintf(stderr, "graphbook analyse: --from: %s\n", error.message.c_str());
    return std::nullopt;
  }
  return r->position;
}

}  // namespace

void add_commands(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book, engine = "/usr/games/stockfish", from;
    int depth = 0, plies = 0, jobs = 1;
    std::uint64_t nodes = 0;
    std::uint32_t min_games = 1;
    std::vector<std::string> engine_options;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("analyse", "Evaluates the book's positions with a UCI engine and stores it");
  cmd->add_option("book", opt->book, "The book file")->required();
  cmd->add_option("--engine", opt->engine, "The UCI engine (default /usr/games/stockfish)");
  cmd->add_option("--depth", opt->depth, "Search each position to this depth (default 16)")
      ->check(CLI::Range(1, 255));
  cmd->add_option("--nodes", opt->nodes, "Search each position this many nodes instead")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--min-games", opt->min_games, "Only positions with at least this many games (default 1)");
  cmd->add_option("--from", opt->from, "Start at this position: a FEN, or moves from the start (\"e4 c5\")");
  cmd->add_option("--plies", opt->plies, "With or without --from: only this many plies below it (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--jobs", opt->jobs, "Engine processes searching at once (default 1)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--engine-option", opt->engine_options, "An engine option, Name=Value (repeatable)");
  cmd->footer(
      "Example:\n"
      "  graphbook analyse twic.book --engine /usr/games/stockfish --depth 18 --min-games 5 --jobs 2 \\\n"
      "      --engine-option Threads=1 --engine-option Hash=64\n"
      "Each position is searched after ucinewgame, on its own; a position already analysed as deep\n"
      "is skipped, so a second run continues the first. Results are committed every 32 positions or\n"
      "2 s; Ctrl-C stops taking positions and commits what was searched. docs/VALUES.md.\n"
      "Exit status: 0 done, 2 bad option or an engine that fails, 3 a damaged book, 130 interrupted\n"
      "(what was searched is stored).");
  cmd->callback([opt, &exit_status] {
    exit_status = store::kExitBadInput;
    if (opt->depth > 0 && opt->nodes > 0) {
      std::fprintf(stderr, "graphbook analyse: give --depth or --nodes, not both\n");
      return;
    }
    AnalyseOptions run;
    run.engine = {opt->engine};
    run.limit =
        SearchLimit{opt->depth > 0 || opt->nodes == 0 ? (opt->depth > 0 ? opt->depth : 16) : 0, opt->nodes};
    run.jobs = opt->jobs;
    for (const std::string& o : opt->engine_options) {
      auto eq = o.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "graphbook analyse: --engine-option %s: not Name=Value\n", o.c_str());
        return;
      }
      run.engine_options.emplace_back(o.substr(0, eq), o.substr(eq + 1));
    }
    auto root = opt->from.empty() ? Position::from_fen(Position::kStartFen) : resolve_root(opt->from);
    if (!root) return;
    auto book = command::open_book_or_report("analyse", opt->book, store::OpenMode::ReadWrite, exit_status);
    if (!book) return;
    store::Error e;
    auto positions = positions_below(*book, *root, {opt->plies, opt->min_games}, &e);
    if (!positions) {
      std::fprintf(stderr, "graphbook analyse: %s: %s\n", opt->book.c_str(), e.message().c_str());
      exit_status = store::kExitDamagedBook;
      return;
    }

    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &action, nullptr);
    ::signal(SIGPIPE, SIG_IGN);  // a dead engine shows as a failed write, not as our death

    const bool terminal = ::isatty(STDERR_FILENO);
    auto progress = [&](const AnalyseProgress& p) {
      if (!terminal || p.done == 0) return;
      double rate = p.done / std::max(p.seconds, 1e-3);
      std::fprintf(stderr, "\ranalysed %zu/%zu positions, %.1f positions/s, ETA %s   ", p.done, p.total, rate,
                   duration_text((p.total - p.done) / rate).c_str());
    };
    AnalyseSummary summary;
    auto failure = analyse_positions(*book, *positions, run, g_stop, summary, progress);
    if (terminal) std::fprintf(stderr, "\n");
    std::printf(
        "%s: %zu positions, %zu already analysed as deep, %zu analysed now (%zu stored) in %.1f s%s%s\n",
        opt->book.c_str(), summary.positions, summary.skipped, summary.analysed, summary.stored,
        summary.seconds, summary.engine.empty() ? "" : (" by " + summary.engine).c_str(),
        summary.interrupted ? "; interrupted: run it again to continue" : "");
    if (failure) {
      std::fprintf(stderr, "graphbook analyse: %s: %s\n",
                   failure->kind == AnalyseFailure::Book ? opt->book.c_str() : opt->engine.c_str(),
                   failure->message.c_str());
      exit_status = failure->kind == AnalyseFailure::Book ? store::kExitDamagedBook : store::kExitBadInput;
      return;
    }
    exit_status = summary.interrupted ? kExitInterrupted : 0;
  });
  add_values_command(app, exit_status);
}

}  // namespace gb::analysis
