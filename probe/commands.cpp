#include "probe/commands.h"

#include <cstdio>
#include <fstream>
#include <random>

#include "book/chess/notation.h"
#include "book/explore/book_reader.h"
#include "book/explore/book_tree.h"
#include "book/explore/bucket_view.h"
#include "book/explore/move_choice.h"
#include "book/explore/position_report.h"
#include "command/filter_options.h"
#include "command/support.h"

namespace gb::probe {

// The commands present what book/explore computes, with the options every
// subcommand shares (command/support.h).
using command::add_filter_options;
using command::add_position_options;
using command::FilterOptions;
using command::kExitBadInput;
using command::kExitDamagedBook;
using command::kExitNotInBook;
using command::load_names;
using command::open_book_or_report;
using command::PositionOptions;
using command::resolve_filter;
using command::resolve_or_report;
using explore::BookReader;
using explore::BookTree;
using explore::Candidate;
using explore::Choice;
using explore::OpeningTable;
using explore::PickOptions;
using explore::Policy;
using explore::PositionReport;
using explore::ResolvedPosition;
using explore::Rng;
using explore::TreeOptions;
using explore::Weighing;

namespace {

// What probe, pick and tree start from: the position, its opening names and
// the book with a reader on it (reader empty and error set when it fails).
struct Probed {
  std::optional<store::Book> book;
  std::optional<ResolvedPosition> where;
  std::optional<OpeningTable> names;
  std::optional<BookReader> reader;
  store::Error error;
  std::optional<PositionReport> report;

  const OpeningTable* table() const { return names->empty() ? nullptr : &*names; }
};

// Resolves the position, loads the names and opens the book; false after
// printing the problem and setting exit_status.
bool open_position(const char* command, const std::string& book_path, const PositionOptions& o, Probed& p,
                   int& exit_status) {
  exit_status = kExitBadInput;
  p.where = resolve_or_report(command, o);
  if (!p.where) return false;
  p.names = load_names(command, o);
  if (!p.names) return false;
  p.book = open_book_or_report(command, book_path, store::OpenMode::ReadOnly, exit_status);
  if (!p.book) return false;
  if (auto reader = BookReader::open(*p.book, &p.error)) p.reader.emplace(std::move(*reader));
  return true;
}

// The position's report into p.report; prints the problem and sets exit_status
// when something fails.
bool probe_position(const char* command, const std::string& book_path, const PositionOptions& o, Probed& p,
                    int& exit_status) {
  if (!open_position(command, book_path, o, p, exit_status)) return false;
  if (p.reader) p.report = make_report(*p.reader, *p.where, p.table(), &p.error);
  if (!p.report) {
    std::fprintf(stderr, "graphbook %s: %s: %s\n", command, book_path.c_str(), p.error.message().c_str());
    exit_status = kExitDamagedBook;
    return false;
  }
  exit_status = 0;
  return true;
}

// Applies the filter to the probed report: false (and a message, exit
// status 2 for a refusal, 3 for a damaged book) when it cannot.
bool apply_filter(const char* command, const std::string& book_path, const FilterOptions& f, Probed& p,
                  int& exit_status) {
  bool refused = false;
  auto filter = resolve_filter(command, f, book_path, p.reader->bucket_params(), p.book->sources(), &refused);
  if (refused) {
    exit_status = kExitBadInput;
    return false;
  }
  if (!filter) return true;
  if (auto s = explore::filter_report(*p.reader, *p.report, *filter)) {
    std::fprintf(stderr, "graphbook %s: %s: %s\n", command, book_path.c_str(), s->message().c_str());
    exit_status = kExitDamagedBook;
    return false;
  }
  return true;
}

void add_probe(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book;
    PositionOptions position;
    FilterOptions filter;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("probe", "What the book says about a position: moves, results, names");
  cmd->add_option("book", opt->book, "The book file")->required();
  add_position_options(cmd, opt->position);
  add_filter_options(cmd, opt->filter);
  cmd->add_flag("--json", opt->json, "Answer as JSON shaped like the lichess opening explorer's");
  cmd->footer(
      "Examples:\n"
      "  graphbook probe twic.book --moves \"e4 c5 Nf3\"\n"
      "  graphbook probe twic.book --fen \"rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\" "
      "--json\n"
      "  graphbook probe twic.book --pgn games.pgn --game 3 --ply 12\n"
      "  graphbook probe lichess.book --moves e4 --ratings 2000,2200 --speeds blitz,rapid --since 2015 "
      "--until 2020-06\n"
      "Exit status: 0 found, 1 the position is not in the book (or no selected game reached it), 2 bad\n"
      "option, FEN, move, file or book (a filter on a book built without buckets), 3 a damaged book.");
  cmd->callback([opt, &exit_status] {
    Probed p;
    if (!probe_position("probe", opt->book, opt->position, p, exit_status)) return;
    if (!apply_filter("probe", opt->book, opt->filter, p, exit_status)) return;
    if (!p.report->in_book()) {
      if (opt->json)
        std::printf("%s\n",
                    nlohmann::json{{"in_book", false}, {"fen", p.report->position.fen()}}.dump(2).c_str());
      else
        std::printf("Not in the book: %s\n", p.report->position.fen().c_str());
      exit_status = kExitNotInBook;
      return;
    }
    if (opt->json) {
      auto j = format_json(*p.report);
      if (opt->filter.given()) j["filter"] = opt->filter.json();
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      if (opt->filter.given()) std::printf("Filter: %s\n", opt->filter.json().dump().c_str());
      std::fputs(format_text(*p.report).c_str(), stdout);
    }
  });
}

// A pick and what it was made from, for printing.
struct PickOutcome {
  const PositionReport& report;
  const std::vector<Candidate>& candidates;
  const std::vector<Weighing>& weighing;
  std::optional<Choice> choice;
  PickOptions options;
  std::string policy;
  std::uint64_t seed;
};

nlohmann::json pick_json(const PickOutcome& o, bool explain) {
  const auto& rows = o.report.moves;
  nlohmann::json j = {{"fen", o.report.position.fen()}, {"policy", o.policy}, {"seed", o.seed}};
  j["move"] = o.choice
                  ? nlohmann::json{{"uci", rows[o.choice->index].uci}, {"san", rows[o.choice->index].san}}
                  : nlohmann::json(nullptr);
  if (!explain) return j;
  j["candidates"] = nlohmann::json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Weighing& w = o.weighing[i];
    j["candidates"].push_back({{"uci", rows[i].uci},
                               {"san", rows[i].san},
                               {"games", o.candidates[i].source.games()},
                               {"weight", w.weight},
                               {"probability", w.probability},
                               {"expected", w.expected},
                               {"lower", w.lower},
                               {"upper", w.upper},
                               {"reason", to_string(w.reason)},
                               {"chosen", o.choice && o.choice->index == i}});
  }
  return j;
}

void print_pick(const PickOutcome& o, bool explain) {
  const auto& rows = o.report.moves;
  if (explain) {
    std::printf("policy %s, seed %llu, min-games %u, temperature %g\n", o.policy.c_str(),
                (unsigned long long)o.seed, o.options.min_games, o.options.temperature);
    std::printf("   %-8s %-6s %7s %10s %7s %9s %15s  %s\n", "move", "uci", "games", "weight", "prob%",
                "expected", "bounds", "reason");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Weighing& w = o.weighing[i];
      char bounds[32] = "";
      if (o.options.policy == Policy::Learned || o.options.policy == Policy::Lcb)
        std::snprintf(bounds, sizeof bounds, "[%.3f, %.3f]", w.lower, w.upper);
      std::printf("%s %-8s %-6s %7u %10.2f %7.2f %9.3f %15s  %s\n",
                  o.choice && o.choice->index == i ? "->" : "  ", rows[i].san.c_str(), rows[i].uci.c_str(),
                  o.candidates[i].source.games(), w.weight, 100 * w.probability, w.expected, bounds,
                  std::string(to_string(w.reason)).c_str());
    }
  }
  if (o.choice) std::printf("%s %s\n", rows[o.choice->index].uci.c_str(), rows[o.choice->index].san.c_str());
}

void add_pick(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book;
    PositionOptions position;
    std::string policy = "weighted";
    std::optional<std::uint64_t> seed;
    std::uint32_t min_games = 1;
    double temperature = 1.0;
    bool explain = false;
    bool json = false;
    FilterOptions filter;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("pick", "Let the book choose a move in a position");
  cmd->add_option("book", opt->book, "The book file")->required();
  add_position_options(cmd, opt->position);
  cmd->add_option("--policy", opt->policy, "best | weighted | uniform | learned | lcb (default weighted)")
      ->check(CLI::IsMember({"best", "weighted", "uniform", "learned", "lcb"}));
  cmd->add_option("--seed", opt->seed, "Seed of the random choice: the same seed gives the same move");
  cmd->add_option("--min-games", opt->min_games, "Moves with fewer games never play (default 1)");
  cmd->add_option("--temperature", opt->temperature, "Weights ^ (1/T); 0 takes the heaviest (default 1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--explain", opt->explain, "List every candidate with its weight and the reason");
  cmd->add_flag("--json", opt->json, "Answer as JSON");
  add_filter_options(cmd, opt->filter);
  cmd->footer(
      "Examples:\n"
      "  graphbook pick twic.book --moves \"e4 c5\" --policy weighted --seed 7 --explain\n"
      "  graphbook pick twic.book --policy learned --min-games 3 --json\n"
      "  graphbook pick lichess.book --moves e4 --ratings 2200,2500 --speeds blitz --since 2020 --explain\n"
      "The learned policy is described in docs/LEARNING.md; lcb (the best lower bound of the 95 %\n"
      "interval of the score) in docs/PROBE.md. A filter chooses among the moves of the selected games,\n"
      "weighed by their counts (a book built with --buckets).\n"
      "Exit status: 0 a move was chosen, 1 no book move (or none of the selected games), 2 bad option,\n"
      "FEN, move, file or book (a filter on a book built without buckets), 3 a damaged book.");
  cmd->callback([opt, &exit_status] {
    Probed p;
    if (!probe_position("pick", opt->book, opt->position, p, exit_status)) return;
    if (!apply_filter("pick", opt->book, opt->filter, p, exit_status)) return;
    PickOptions options{*explore::parse_policy(opt->policy), opt->min_games, opt->temperature};
    std::uint64_t seed = opt->seed ? *opt->seed : std::random_device{}();
    std::vector<Candidate> candidates = to_candidates(*p.report);
    std::vector<Weighing> weighing = weigh(candidates, options);
    Rng rng(seed);
    auto choice = choose(candidates, weighing, rng);
    const auto& rows = p.report->moves;
    PickOutcome outcome{*p.report, candidates, weighing, choice, options, opt->policy, seed};
    if (opt->json) {
      auto j = pick_json(outcome, opt->explain);
      if (opt->filter.given()) j["filter"] = opt->filter.json();
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      if (opt->filter.given() && opt->explain) std::printf("Filter: %s\n", opt->filter.json().dump().c_str());
      print_pick(outcome, opt->explain);
    }
    if (!choice) {
      if (!opt->json)
        std::printf("No book move%s: %s\n", rows.empty() ? "" : " passes the policy",
                    p.report->position.fen().c_str());
      exit_status = kExitNotInBook;
    }
  });
}

void add_tree(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book;
    PositionOptions position;
    TreeOptions tree;
    std::string format = "text";
    std::string output;
    FilterOptions filter;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("tree", "The graph of book moves below a position: text, JSON, DOT or SVG");
  cmd->add_option("book", opt->book, "The book file")->required();
  add_position_options(cmd, opt->position);
  cmd->add_option("--depth", opt->tree.depth, "Plies below the position (default 3)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--min-games", opt->tree.min_games, "Leave out moves with fewer games (default 1)");
  cmd->add_option("--max-nodes", opt->tree.max_nodes, "Stop adding positions beyond this many (default 400)");
  cmd->add_option("--format", opt->format, "text | json | dot | svg (svg needs graphviz's dot)")
      ->check(CLI::IsMember({"text", "json", "dot", "svg"}));
  cmd->add_option("-o,--output", opt->output, "Write to this file instead of standard output");
  add_filter_options(cmd, opt->filter);
  cmd->footer(
      "Examples:\n"
      "  graphbook tree twic.book --depth 4 --min-games 20\n"
      "  graphbook tree twic.book --moves \"d4 Nf6\" --depth 3 --min-games 10 --format svg -o qp.svg\n"
      "  graphbook tree lichess.book --moves e4 --ratings 2000,2200 --speeds rapid --since 2018 --format "
      "json\n"
      "Transpositions are edges that meet at one node (dashed in the pictures). With a filter every count\n"
      "is the selected games' and --min-games applies to them; moves no selected game played are left out.\n"
      "Exit status: 0 a tree, 1 the position is not in the book (or no selected game reached it), 2 bad\n"
      "option, FEN, move, file or book (a filter on a book built without buckets), or no graphviz for svg,\n"
      "3 a damaged book.");
  cmd->callback([opt, &exit_status] {
    Probed p;
    if (!open_position("tree", opt->book, opt->position, p, exit_status)) return;
    std::optional<store::BucketFilter> filter;
    if (p.reader) {
      bool refused = false;
      filter = resolve_filter("tree", opt->filter, opt->book, p.reader->bucket_params(), p.book->sources(),
                              &refused);
      if (refused) return;  // exit_status is kExitBadInput until the tree is written
      opt->tree.filter = filter ? &*filter : nullptr;
    }
    std::optional<BookTree> tree;
    if (p.reader) tree = build_tree(*p.reader, *p.where, opt->tree, p.table(), &p.error);
    if (!tree) {
      std::fprintf(stderr, "graphbook tree: %s: %s\n", opt->book.c_str(), p.error.message().c_str());
      exit_status = kExitDamagedBook;
      return;
    }
    if (tree->edges.empty() && tree->nodes[0].counters.games == 0) {
      std::printf("Not in the book: %s\n", p.where->position.fen().c_str());
      exit_status = kExitNotInBook;
      return;
    }
    std::string text;
    if (opt->format == "text") {
      if (opt->filter.given()) text = "Filter: " + opt->filter.json().dump() + "\n";
      text += tree_text(*tree);
    }
    if (opt->format == "json") {
      auto j = tree_json(*tree);
      if (opt->filter.given()) j["filter"] = opt->filter.json();
      text = j.dump(2) + "\n";
    }
    if (opt->format == "dot") text = tree_dot(*tree);
    if (opt->format == "svg") {
      explore::ExploreError svg_error;
      auto svg = explore::render_svg(tree_dot(*tree), &svg_error);
      if (!svg) {
        std::fprintf(stderr, "graphbook tree: %s\n", svg_error.message.c_str());
        return;  // graphviz missing or failing: an input error (2), like a file that cannot be read
      }
      text = *svg;
    }
    if (opt->output.empty()) {
      std::fputs(text.c_str(), stdout);
    } else {
      std::ofstream out(opt->output, std::ios::binary);
      out << text;
      if (!out) {
        std::fprintf(stderr, "graphbook tree: cannot write %s\n", opt->output.c_str());
        return;
      }
    }
    exit_status = 0;
  });
}

}  // namespace

void add_probe_commands(CLI::App& app, int& exit_status) {
  add_probe(app, exit_status);
  add_pick(app, exit_status);
}

void add_tree_command(CLI::App& app, int& exit_status) { add_tree(app, exit_status); }

}  // namespace gb::probe
