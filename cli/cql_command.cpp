// graphbook cql: runs a CQL query (CQLi 1.0.8 semantics, see docs/CQL.md)
// over PGN files and writes the matching games as PGN with CQL's comments.
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "book/cql/parser.h"
#include "book/cql/query_source.h"
#include "book/cql/runner.h"
#include "cli/commands.h"

namespace gb::cli {

namespace {

struct CqlOptions {
  std::string query_file;
  std::vector<std::string> cql_text;
  std::string input, output;
  bool variations = false, mainline = false;
  std::vector<std::int64_t> gamenumber, matchcount, year;
  std::int64_t limit = -1;
  bool sort_matchcount = false;
  std::optional<std::string> matchstring;
  bool quiet = false, silent = false, noheader = false, parse_only = false, json = false;
  int threads = 1;
  bool single_threaded = false;
  std::string player, white, black, event, site, result, fen;
  bool wtm = false, btm = false;
};

std::optional<cql::Range> to_range(const std::vector<std::int64_t>& v) {
  if (v.empty()) return std::nullopt;
  cql::Range r{v[0], v.size() > 1 ? v[1] : v[0]};
  if (r.hi < r.lo) std::swap(r.lo, r.hi);
  return r;
}

// An option whose value cannot become CQL; the message names the option.
struct OptionError {
  std::string message;
};

// The --player/--white/... injections as CQL text; empty string when none;
// nullopt and error for a value CQL cannot quote.
std::optional<std::string> injections(const CqlOptions& o, OptionError* error) {
  std::string text;
  auto quoted = [&](const std::string& option, const std::string& v, std::string& out) {
    if (v.find('"') != std::string::npos) {
      *error = {option + ": a CQL string cannot contain a double quote"};
      return false;
    }
    out = "\"" + v + "\"";
    return true;
  };
  std::string q;
  struct Inj {
    const std::string* value;
    const char* option;
    const char* filter;
  };
  const Inj list[] = {{&o.player, "--player", "player "},     {&o.white, "--white", "player white "},
                      {&o.black, "--black", "player black "}, {&o.event, "--event", "event "},
                      {&o.site, "--site", "site "},           {&o.fen, "--fen", "fen "}};
  for (const Inj& i : list) {
    if (i.value->empty()) continue;
    if (!quoted(i.option, *i.value, q)) return std::nullopt;
    text += std::string(i.filter) + q + "\n";
  }
  if (!o.result.empty()) {
    if (o.result != "1-0" && o.result != "0-1" && o.result != "1/2-1/2" && o.result != "*") {
      *error = {"--result: expected 1-0, 0-1, 1/2-1/2 or *"};
      return std::nullopt;
    }
    text += "result \"" + o.result + "\"\n";
  }
  if (auto y = to_range(o.year))
    text += std::to_string(y->lo) + " <= year <= " + std::to_string(y->hi) + "\n";
  if (o.wtm) text += "wtm\n";
  if (o.btm) text += "btm\n";
  return text;
}

nlohmann::json summary_json(const cql::RunSummary& s, double seconds) {
  return {{"games", s.games_read},
          {"matched_games", s.games_written},
          {"matched_positions", s.positions_matched},
          {"skipped_games", s.read.games_skipped},
          {"read_errors", s.read.errors},
          {"seconds", seconds},
          {"error", s.fatal}};
}

void run(const CqlOptions& o, int& exit_status) {
  // The query: the injections, the --cql texts, then the file.
  OptionError option_error;
  auto injected = injections(o, &option_error);
  if (!injected) {
    std::fprintf(stderr, "graphbook cql: %s\n", option_error.message.c_str());
    exit_status = 2;
    return;
  }
  cql::QueryLoadError load_error;
  auto loaded = cql::load_query({o.cql_text, o.query_file, *injected}, &load_error);
  if (!loaded) {
    // A parse error is rendered whole (with its caret); the rest is one line.
    if (load_error.code == cql::QueryLoadError::Code::Parse)
      std::fputs(load_error.message().c_str(), stderr);
    else
      std::fprintf(stderr, "graphbook cql: %s\n", load_error.message().c_str());
    exit_status = 2;
    return;
  }
  cql::Program& program = loaded->program;
  if (o.parse_only) {
    std::fputs(cql::print_tree(*program.root).c_str(), stdout);
    const cql::Header& h = program.header;
    if (h.variations || h.quiet || h.silent || h.input || h.output)
      std::printf("header:%s%s%s%s%s\n", h.variations ? " variations" : "", h.quiet ? " quiet" : "",
                  h.silent ? " silent" : "", h.input ? (" input " + *h.input).c_str() : "",
                  h.output ? (" output " + *h.output).c_str() : "");
    exit_status = 0;
    return;
  }
  const cql::Header& h = program.header;
  cql::RunConfig config;
  config.input = !o.input.empty() ? o.input : h.input.value_or("");
  if (config.input.empty()) {
    std::fprintf(stderr, "graphbook cql: no input: give -i FILE (or 'input' in the cql header)\n");
    exit_status = 2;
    return;
  }
  if (h.result) {
    std::fprintf(stderr,
                 "graphbook cql: the cql header's 'result' parameter is not supported; use --result\n");
    exit_status = 2;
    return;
  }
  config.eval.variations = o.mainline ? false : (o.variations || h.variations);
  config.gamenumber = o.gamenumber.empty() ? h.gamenumber : to_range(o.gamenumber);
  if (o.limit >= 0) config.limit = std::uint64_t(o.limit);
  if (auto m = o.matchcount.empty() ? h.matchcount : to_range(o.matchcount)) config.matchcount = *m;
  config.sort_matchcount = o.sort_matchcount || h.sort_matchcount;
  bool silent = o.silent || h.silent;
  bool quiet = o.quiet || h.quiet || silent;
  config.write.match_string = o.matchstring ? *o.matchstring : h.matchstring.value_or("CQL");
  if (quiet) config.write.match_string.clear();
  config.write.header = !(o.noheader || silent);
  config.write.sort_comments = !silent;
  config.write.user_comments = !silent;
  config.write.auxiliary_comments = !quiet;
  config.threads = o.single_threaded ? 1 : o.threads;

  std::string out_path = !o.output.empty() ? o.output : h.output.value_or("");
  std::FILE* out = stdout;
  if (!out_path.empty() && out_path != "stdout" && out_path != "-") {
    out = std::fopen(out_path.c_str(), "wb");
    if (!out) {
      std::fprintf(stderr, "graphbook cql: cannot write %s\n", out_path.c_str());
      exit_status = 2;
      return;
    }
  }
  auto start = std::chrono::steady_clock::now();
  cql::RunSummary s = cql::run_query(
      program, config, [&](std::string_view pgn) { std::fwrite(pgn.data(), 1, pgn.size(), out); }, stderr);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out != stdout) std::fclose(out);
  for (const std::string& v : s.persistent) std::fprintf(stderr, "%s\n", v.c_str());
  std::size_t shown = 0;
  for (const auto& e : s.read.stored_errors) {
    if (++shown > 20) break;
    std::fprintf(stderr, "warning: skipped: %s\n", e.message().c_str());
  }
  shown = 0;
  for (const auto& w : s.read.stored_warnings)
    if (++shown <= 20) std::fprintf(stderr, "%s\n", w.message().c_str());
  if (s.read.warnings > 20)
    std::fprintf(stderr, "... %llu warnings in all\n", (unsigned long long)s.read.warnings);
  if (o.json) {
    std::fprintf(stderr, "%s\n", summary_json(s, seconds).dump().c_str());
  } else {
    std::fprintf(stderr, "%s: %llu games, %llu matched (%llu positions), %llu skipped, %.2f s\n",
                 config.input.c_str(), (unsigned long long)s.games_read, (unsigned long long)s.games_written,
                 (unsigned long long)s.positions_matched, (unsigned long long)s.read.games_skipped, seconds);
  }
  if (!s.fatal.empty()) {
    std::fprintf(stderr, "graphbook cql: %s\n", s.fatal.c_str());
    exit_status = 2;
    return;
  }
  exit_status = s.games_written > 0 ? 0 : 1;
}

}  // namespace

void add_cql_command(CLI::App& app, int& exit_status) {
  auto o = std::make_shared<CqlOptions>();
  CLI::App* cmd =
      app.add_subcommand("cql", "Find games with a Chess Query Language (CQL) query, CQLi 1.0.8 semantics");
  cmd->add_option("query", o->query_file, "Query file (.cql; the extension may be left out)");
  cmd->add_option("--cql", o->cql_text, "Query text (repeatable; put before the query file's text)")
      ->allow_extra_args(false);
  cmd->add_option("-i,--input", o->input, "Input PGN (.pgn, .pgn.zst, '-' for stdin)");
  cmd->add_option("-o,--output", o->output, "Output PGN of the matching games (default: standard output)");
  cmd->add_flag("--variations", o->variations, "Also search the positions of variations");
  cmd->add_flag("--mainline", o->mainline, "Search the mainline only (overrides the header)");
  cmd->add_option("-g,--gamenumber", o->gamenumber, "Only games with these numbers: N or FIRST LAST")
      ->expected(1, 2)
      ->allow_extra_args(false);
  cmd->add_option("--limit", o->limit, "Stop after this many matching games");
  cmd->add_option("--matchcount", o->matchcount, "Only games with this many matching positions: N or MIN MAX")
      ->expected(1, 2);
  cmd->add_flag("--sortmatchcount", o->sort_matchcount, "Sort games by their number of matching positions");
  cmd->add_option("--matchstring", o->matchstring,
                  "Comment for matching positions (default CQL; \"\" for none)");
  cmd->add_flag("--quiet", o->quiet, "No match comments");
  cmd->add_flag("--silent", o->silent, "No comments from CQL at all (header, match, sort, comment filters)");
  cmd->add_flag("--noheader", o->noheader, "No 'Game number N' comment");
  cmd->add_flag("--parse", o->parse_only, "Print the parsed query tree and exit");
  cmd->add_option("--threads", o->threads, "Worker threads (output does not depend on it)")
      ->check(CLI::Range(1, 256));
  cmd->add_flag("-s,--singlethreaded", o->single_threaded, "One thread");
  cmd->add_flag("--json", o->json, "Print the run summary as JSON (on standard error)");
  cmd->add_option("--player", o->player, "Inject: player \"NAME\" (either colour)");
  cmd->add_option("--white", o->white, "Inject: player white \"NAME\"");
  cmd->add_option("--black", o->black, "Inject: player black \"NAME\"");
  cmd->add_option("--event", o->event, "Inject: event \"TEXT\"");
  cmd->add_option("--site", o->site, "Inject: site \"TEXT\"");
  cmd->add_option("--year", o->year, "Inject: year in N or FIRST LAST")->expected(1, 2);
  cmd->add_option("--result", o->result, "Inject: result 1-0 | 0-1 | 1/2-1/2 | *");
  cmd->add_option("--fen", o->fen, "Inject: fen \"PLACEMENT\"");
  cmd->add_flag("--wtm", o->wtm, "Inject: wtm");
  cmd->add_flag("--btm", o->btm, "Inject: btm");
  cmd->footer(
      "Examples:\n"
      "  graphbook cql -i games.pgn.zst -o mates.pgn --cql 'mate'\n"
      "  graphbook cql -i games.pgn --cql 'flipcolor { wtm mate power A - power a >= 10 }' --threads 2\n"
      "  graphbook cql -i games.pgn --cql 'initial find move o-o find move o-o-o' --player Carlsen\n"
      "  graphbook cql --parse --cql 'power A - power a >= 10'\n"
      "Exit status: 0 games matched, 1 none matched, 2 bad query or unreadable input.\n"
      "See docs/CQL.md for what is implemented.");
  cmd->callback([o, &exit_status] { run(*o, exit_status); });
}

}  // namespace gb::cli
