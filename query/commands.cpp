#include "query/commands.h"

#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "book/chess/notation.h"
#include "book/cql/query_source.h"
#include "book/store/polyglot.h"
#include "builder/polyglot_export.h"
#include "command/filter_options.h"
#include "command/support.h"
#include "query/graph_query.h"
#include "query/sub_book.h"

namespace gb::query {

namespace {

constexpr const char* kCommand = "query";

// The longest --time-limit (a day): longer would be no limit, and would
// overflow the clock's nanoseconds long before a double's range ends.
constexpr double kMaxTimeLimit = 86400;

struct Options {
  std::string book;
  std::string query_file;
  std::vector<std::string> cql_text;
  command::PositionOptions from;
  QueryOptions run;
  std::optional<double> time_limit;  // seconds
  std::int64_t limit = -1;
  bool json = false, count = false;
  std::string export_bin, pgn, sub_book;
  command::FilterOptions filter;
};

// A matching position as the outputs show it.
struct Shown {
  const NodeMatch* match;
  Position position;
  std::string line;   // SAN from the start of the game (--from's moves, then the traversal's)
  std::string below;  // SAN from the start position of the traversal
  const explore::OpeningName* opening;
};

// The line in SAN, numbered as a PGN movetext from the position it starts at.
std::string san_line(Position pos, const std::vector<Move>& moves) {
  std::string out;
  for (Move m : moves) {
    bool numbered = pos.side_to_move() == Color::White || out.empty();
    if (!out.empty()) out += ' ';
    out += numbered ? numbered_san(pos, m) : to_san(pos, m);
    UndoInfo undo;
    pos.do_move(m, undo);
  }
  return out;
}

nlohmann::ordered_json sort_json(const std::vector<std::optional<cql::SortValue>>& values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& v : values) {
    if (!v)
      out.push_back(nullptr);
    else if (auto* n = std::get_if<std::int64_t>(&*v))
      out.push_back(*n);
    else
      out.push_back(std::get<std::string>(*v));
  }
  return out;
}

nlohmann::ordered_json position_json(const Shown& s) {
  const store::Counters& c = s.match->record.counters;
  return {{"fen", s.position.fen()},
          {"key", key_hex(s.match->key)},
          {"line", s.line},
          {"games", c.games},
          {"white", c.white_wins},
          {"draws", c.draws},
          {"black", c.black_wins},
          {"averageRating",
           c.average_elo() ? nlohmann::ordered_json(c.average_elo()) : nlohmann::ordered_json(nullptr)},
          {"opening", s.opening ? nlohmann::ordered_json{{"eco", s.opening->eco}, {"name", s.opening->name}}
                                : nlohmann::ordered_json(nullptr)},
          {"sort", sort_json(s.match->sort)}};
}

// 2, 0.5: seconds without trailing zeros.
std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

void print_text(const std::vector<Shown>& shown) {
  std::printf("%7s %6s %6s %6s %5s  %-16s %s\n", "games", "white", "draws", "black", "elo", "key", "line");
  for (const Shown& s : shown) {
    const store::Counters& c = s.match->record.counters;
    std::printf("%7u %6u %6u %6u %5s  %-16s %s\n", c.games, c.white_wins, c.draws, c.black_wins,
                c.average_elo() ? std::to_string(c.average_elo()).c_str() : "-",
                key_hex(s.match->key).c_str(), s.line.empty() ? "(start)" : s.line.c_str());
    std::printf("%53sfen %s\n", "", s.position.fen().c_str());
    if (s.opening) std::printf("%53s%s %s\n", "", s.opening->eco.c_str(), s.opening->name.c_str());
  }
}

// The reaching lines as PGN games, the node's statistics in a comment.
bool write_pgn(const std::string& path, const Position& start, const std::vector<Shown>& shown) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool standard = start == Position();
  for (const Shown& s : shown) {
    const store::Counters& c = s.match->record.counters;
    std::fprintf(f, "[Event \"graphbook query\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n");
    std::fprintf(f, "[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n");
    if (!standard) std::fprintf(f, "[SetUp \"1\"]\n[FEN \"%s\"]\n", start.fen().c_str());
    if (s.opening)
      std::fprintf(f, "[ECO \"%s\"]\n[Opening \"%s\"]\n", s.opening->eco.c_str(), s.opening->name.c_str());
    std::fprintf(f, "\n%s%s{games %u, white %u, draws %u, black %u, elo %s, key %s} *\n\n", s.below.c_str(),
                 s.below.empty() ? "" : " ", c.games, c.white_wins, c.draws, c.black_wins,
                 c.average_elo() ? std::to_string(c.average_elo()).c_str() : "-",
                 key_hex(s.match->key).c_str());
  }
  return std::fclose(f) == 0;
}

void run(Options& o, int& exit_status) {
  cql::QueryLoadError load_error;
  auto loaded = cql::load_query({o.cql_text, o.query_file, ""}, &load_error);
  if (!loaded) {
    // A parse error is rendered whole (with its caret); the rest is one line.
    if (load_error.code == cql::QueryLoadError::Code::Parse)
      std::fputs(load_error.message().c_str(), stderr);
    else
      std::fprintf(stderr, "graphbook query: %s\n", load_error.message().c_str());
    exit_status = command::kExitBadInput;
    return;
  }
  auto from = command::resolve_or_report(kCommand, o.from);
  if (!from) {
    exit_status = command::kExitBadInput;
    return;
  }
  auto names = command::load_names(kCommand, o.from);
  if (!names) {
    exit_status = command::kExitBadInput;
    return;
  }
  auto book = command::open_book_or_report(kCommand, o.book, store::OpenMode::ReadOnly, exit_status);
  if (!book) return;
  std::optional<store::BucketFilter> filter;
  if (o.filter.given()) {
    store::Error txn_error;
    auto txn = store::ReadTxn::begin(book->env(), &txn_error);
    if (!txn) {
      std::fprintf(stderr, "graphbook query: %s: %s\n", o.book.c_str(), txn_error.message().c_str());
      exit_status = command::kExitDamagedBook;
      return;
    }
    bool refused = false;
    filter = command::resolve_filter(kCommand, o.filter, o.book, store::bucket_params(*txn, book->dbs().meta),
                                     book->sources(), &refused);
    if (refused) {
      exit_status = command::kExitBadInput;
      return;
    }
    o.run.filter = &*filter;
  }
  o.run.start_ply = int(from->line.size()) - 1;
  const Position start = from->position;
  if (o.time_limit)
    o.run.deadline =
        std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                               std::chrono::duration<double>(*o.time_limit));
  QueryError error;
  auto result = run_graph_query(*book, loaded->program, start, o.run, stderr, &error);
  if (!result) {
    std::fprintf(stderr, "graphbook query: %s: %s\n", o.book.c_str(), error.message().c_str());
    exit_status = command::kExitDamagedBook;
    return;
  }
  for (const std::string& v : result->persistent) std::fprintf(stderr, "%s\n", v.c_str());
  if (!result->fatal.empty()) {
    std::fprintf(stderr, "graphbook query: %s\n", result->fatal.c_str());
    exit_status = command::kExitBadInput;
    return;
  }
  const std::uint64_t matched = result->matches.size();
  sort_matches(loaded->program, result->matches);

  std::unordered_set<Key> keys;
  for (const NodeMatch& m : result->matches) keys.insert(m.key);
  if (!o.export_bin.empty()) {
    builder::ExportOptions eo;
    eo.positions = &keys;
    eo.filter = o.run.filter;
    builder::BuildError export_error;
    auto entries = builder::export_entries(*book, eo, &export_error);
    std::optional<store::PolyglotFileError> written;
    if (entries) written = store::write_polyglot_file(o.export_bin, *entries);
    if (!entries || written) {
      std::fprintf(stderr, "graphbook query: %s: %s\n", o.export_bin.c_str(),
                   written ? written->message().c_str() : export_error.message.c_str());
      exit_status = command::kExitBadInput;
      return;
    }
  }
  if (!o.sub_book.empty()) {
    auto report = write_sub_book(*book, keys, o.sub_book, &error, o.run.filter);
    if (!report) {
      // Book or Output: a sub-book not written is reported as the user's (2), as before.
      std::fprintf(stderr, "graphbook query: %s\n", error.message().c_str());
      exit_status = command::kExitBadInput;
      return;
    }
  }

  std::size_t n = o.limit >= 0 ? std::min<std::size_t>(std::size_t(o.limit), result->matches.size())
                               : result->matches.size();
  std::vector<Shown> shown;
  if (!o.count || !o.pgn.empty()) {
    shown.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const NodeMatch& m = result->matches[i];
      std::vector<Move> moves = result->line(m.visit);
      Position pos = start;
      std::vector<Key> line_keys = from->line;
      for (Move mv : moves) {
        UndoInfo undo;
        pos.do_move(mv, undo);
        line_keys.push_back(pos.key());
      }
      std::string line = from->moves_san, rest = san_line(start, moves);
      if (!line.empty() && !rest.empty()) line += ' ';
      shown.push_back({&m, pos, line + rest, rest, names->empty() ? nullptr : names->nearest(line_keys)});
    }
  }
  if (!o.pgn.empty() && !write_pgn(o.pgn, start, shown)) {
    std::fprintf(stderr, "graphbook query: cannot write %s\n", o.pgn.c_str());
    exit_status = command::kExitBadInput;
    return;
  }
  if (o.count) {
    std::printf("matched %" PRIu64 " of %" PRIu64 " positions\n", matched, result->nodes_visited);
  } else if (o.json) {
    nlohmann::ordered_json positions = nlohmann::ordered_json::array();
    for (const Shown& s : shown) positions.push_back(position_json(s));
    nlohmann::ordered_json j = {{"nodes_visited", result->nodes_visited}, {"matched", matched}};
    if (o.filter.given()) j["filter"] = o.filter.json();
    if (result->stopped != StopReason::None) j["stopped"] = stop_reason_name(result->stopped);
    j["positions"] = positions;
    std::printf("%s\n", j.dump().c_str());
  } else {
    if (o.filter.given()) std::printf("Filter: %s\n", o.filter.json().dump().c_str());
    print_text(shown);
    std::printf("matched %" PRIu64 " of %" PRIu64 " positions\n", matched, result->nodes_visited);
  }
  exit_status = matched > 0 ? store::kExitSuccess : store::kExitNothingFound;
  if (result->stopped != StopReason::None) {
    // After the output, so that it is the last line a user sees.
    const std::string budget = result->stopped == StopReason::NodeBudget
                                   ? "--max-nodes " + std::to_string(o.run.max_nodes)
                                   : "--time-limit " + seconds_text(*o.time_limit);
    std::fprintf(stderr,
                 "graphbook query: stopped at the %s (%s) after %" PRIu64
                 " positions: the output is what they matched, not the whole answer; "
                 "narrow the query with --depth, --max-ply or --moves, or raise the budget\n",
                 stop_reason_name(result->stopped), budget.c_str(), result->nodes_visited);
    exit_status = store::kExitStopped;
  }
}

}  // namespace

void add_commands(CLI::App& app, int& exit_status) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("query", "Run a CQL query at every position of a book (docs/QUERY.md)");
  cmd->add_option("book", o->book, "The book")->required();
  cmd->add_option("query", o->query_file, "Query file (.cql; the extension may be left out)");
  cmd->add_option("--cql", o->cql_text, "Query text (repeatable; put before the query file's text)")
      ->allow_extra_args(false);
  // The start: probe's POSITION options, the game's file as --from-pgn
  // (--pgn is this command's output).
  cmd->add_option("--fen", o->from.spec.fen, "Start at this position (FEN; default: the start position)");
  cmd->add_option("--moves", o->from.spec.moves, "Start after these moves (from --fen): \"e4 e5 Nf3\"");
  cmd->add_option("--from-pgn", o->from.spec.pgn_file, "Start at a position of a game of this PGN file");
  cmd->add_option("--game", o->from.spec.game, "With --from-pgn: the game number, from 1 (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ply", o->from.ply, "With --from-pgn: plies into the game (default: its last position)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--eco", o->from.eco_tables, "Opening-name table(s): pgn-extract eco.pgn or lichess .tsv");
  cmd->add_flag("--no-names", o->from.no_names, "Do not look up opening names");
  cmd->add_option("--depth", o->run.depth, "Only positions at most N plies below the start position")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-ply", o->run.max_ply, "Only positions at most N plies from the start of the game")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option(
         "--window", o->run.window,
         "Plies of book moves below a position that find, line --> and nested move/child see (default 4)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--max-nodes", o->run.max_nodes,
                  "Stop the walk after N positions (the nearest the start), keeping what they matched")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time-limit", o->time_limit,
                  "Stop the walk after SECONDS (checked every 1,024 positions), keeping what it found")
      ->check(CLI::Validator(
          [](std::string& text) {
            // Not CLI::Range, which lets "nan" through.
            double seconds = -1;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
            bool ok = ec == std::errc() && end == text.data() + text.size() && seconds >= 0 &&
                      seconds <= kMaxTimeLimit;
            return ok ? std::string() : "not a number of seconds from 0 to " + seconds_text(kMaxTimeLimit);
          },
          "SECONDS"));
  cmd->add_option("--limit", o->limit, "Show at most N positions (after sorting)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->add_flag("--count", o->count, "Print only 'matched M of N positions'");
  cmd->add_option("--export", o->export_bin, "Write the matching positions' book moves as a Polyglot .bin");
  cmd->add_option("--pgn", o->pgn, "Write the line to each matching position as a PGN game");
  cmd->add_option("--book", o->sub_book, "Write the matching positions and the moves between them as a book");
  command::add_filter_options(cmd, o->filter);
  cmd->footer(
      "Examples:\n"
      "  graphbook query twic.book --cql 'bookgames >= 10 check' --max-ply 20\n"
      "  graphbook query twic.book --cql 'move legal count > 30' --json --limit 5\n"
      "  graphbook query twic.book --moves \"e4 c5\" --depth 6 --cql '[Qq] == 0' --export noqueens.bin\n"
      "  graphbook query twic.book --cql 'sort \"games\" bookgames  bookscore > 600' --limit 10\n"
      "  graphbook query big.book --cql 'move legal count > 40' --max-nodes 100000 --time-limit 5\n"
      "  graphbook query lichess.book --cql 'bookgames >= 50' --max-ply 10 --ratings 2200,2500 --since 2020\n"
      "A filter (a book built with --buckets) walks only what the selected games played, and every book\n"
      "count the query sees is theirs (docs/QUERY.md, \"Bucket filters\").\n"
      "Exit status: 0 positions matched, 1 none matched, 2 bad query or input, 3 damaged book,\n"
      "4 stopped at --max-nodes or --time-limit (the output is what was found before).\n"
      "See docs/QUERY.md for the statistics filters and what each tree filter means on a graph.");
  cmd->callback([o, &exit_status] { run(*o, exit_status); });
}

}  // namespace gb::query
