// graphbook pgn-check: reads PGN files with the streaming reader (moves and
// variations decoded) and reports games, plies and every error with its place.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "book/pgn/reader.h"
#include "cli/commands.h"

namespace gb::cli {

namespace {

// Follows every variation so that their moves are checked too.
struct CheckVisitor : pgn::VisitorBase {
  pgn::Control begin_variation() { return pgn::Control::Continue; }
};

nlohmann::json to_json(const pgn::ReadSummary& s) {
  nlohmann::json j;
  j["games"] = s.games_read;
  j["kept"] = s.games_kept;
  j["skipped"] = s.games_skipped;
  nlohmann::json reasons = nlohmann::json::object();
  for (int i = 1; i < pgn::kSkipReasonCount; ++i)
    if (s.skipped_by_reason[i])
      reasons[std::string(pgn::to_string(pgn::SkipReason(i)))] = s.skipped_by_reason[i];
  j["skipped_by_reason"] = reasons;
  j["plies"] = s.plies;
  j["errors"] = s.errors;
  nlohmann::json list = nlohmann::json::array();
  for (const pgn::ReadError& e : s.stored_errors) {
    list.push_back({{"file", e.file},
                    {"line", e.line},
                    {"column", e.column},
                    {"game", e.game_number},
                    {"reason", std::string(pgn::to_string(e.reason))},
                    {"move", e.move_text},
                    {"fen", e.fen_before},
                    {"in_variation", e.in_variation},
                    {"detail", e.detail},
                    {"message", e.message()}});
  }
  j["error_list"] = list;
  j["warnings"] = s.warnings;
  nlohmann::json warnings = nlohmann::json::array();
  for (const pgn::ReadWarning& w : s.stored_warnings)
    warnings.push_back({{"file", w.file},
                        {"line", w.line},
                        {"column", w.column},
                        {"game", w.game_number},
                        {"kind", std::string(pgn::to_string(w.kind))},
                        {"detail", w.detail},
                        {"message", w.message()}});
  j["warning_list"] = warnings;
  j["input_errors"] = s.input_errors;
  return j;
}

void print_text(const std::string& file, const pgn::ReadSummary& s) {
  for (const pgn::ReadError& e : s.stored_errors) std::printf("%s\n", e.message().c_str());
  if (s.errors > s.stored_errors.size())
    std::printf("... %llu more errors not listed\n", (unsigned long long)(s.errors - s.stored_errors.size()));
  for (const pgn::ReadWarning& w : s.stored_warnings) std::printf("%s\n", w.message().c_str());
  if (s.warnings > s.stored_warnings.size())
    std::printf("... %llu more warnings not listed\n",
                (unsigned long long)(s.warnings - s.stored_warnings.size()));
  for (const std::string& e : s.input_errors) std::printf("error: %s\n", e.c_str());
  std::printf("%s: %llu games, %llu kept, %llu skipped, %llu plies, %llu errors, %llu warnings", file.c_str(),
              (unsigned long long)s.games_read, (unsigned long long)s.games_kept,
              (unsigned long long)s.games_skipped, (unsigned long long)s.plies, (unsigned long long)s.errors,
              (unsigned long long)s.warnings);
  bool first = true;
  for (int i = 1; i < pgn::kSkipReasonCount; ++i) {
    if (!s.skipped_by_reason[i]) continue;
    std::printf("%s%s: %llu", first ? " (skipped: " : ", ",
                std::string(pgn::to_string(pgn::SkipReason(i))).c_str(),
                (unsigned long long)s.skipped_by_reason[i]);
    first = false;
  }
  std::printf("%s\n", first ? "" : ")");
}

}  // namespace

void add_pgn_check_command(CLI::App& app, int& exit_status) {
  struct Options {
    std::vector<std::string> files;
    bool json = false;
    bool keep_null = false;
    bool keep_up_to_error = false;
    std::size_t max_errors = 100;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("pgn-check", "Read PGN files and report games, plies and errors with locations");
  cmd->add_option("files", opt->files, "PGN files (.pgn, .pgn.zst; '-' for stdin)")->required();
  cmd->add_flag("--json", opt->json, "Print the summary as JSON");
  cmd->add_flag("--keep-null-moves", opt->keep_null,
                "Keep games with null moves (--, Z0) instead of skipping them");
  cmd->add_flag("--keep-up-to-error", opt->keep_up_to_error,
                "Keep a game with a bad move up to the move before it instead of skipping it");
  cmd->add_option("--max-errors", opt->max_errors, "Errors listed per file (all are counted)");
  cmd->footer(
      "Warnings (a missing result, an unclosed tag, binary data) are listed and counted apart from errors;\n"
      "they do not change the exit status.\n"
      "Exit status: 0 all games read cleanly, 1 games were skipped, 2 an input could not be read.\n"
      "Example:\n  graphbook pgn-check twic0920.pgn games.pgn.zst\n  zstd -dc games.pgn.zst | graphbook "
      "pgn-check - --json");
  cmd->callback([opt, &exit_status] {
    pgn::ReadOptions options;
    options.keep_null_move_games = opt->keep_null;
    options.keep_games_up_to_error = opt->keep_up_to_error;
    options.max_stored_errors = opt->max_errors;
    pgn::ReadSummary total;
    nlohmann::json files = nlohmann::json::array();
    bool unreadable = false;
    for (const std::string& file : opt->files) {
      pgn::PgnReader reader(pgn::ByteSource::open(file), options);
      CheckVisitor visitor;
      reader.read_all(visitor);
      pgn::ReadSummary s = reader.summary();
      if (!s.input_errors.empty()) unreadable = true;
      if (opt->json) {
        nlohmann::json j = to_json(s);
        j["file"] = file;
        files.push_back(std::move(j));
      } else {
        print_text(file, s);
      }
      total.merge(s, 0);
    }
    if (opt->json) {
      nlohmann::json out;
      out["files"] = files;
      nlohmann::json t = to_json(total);
      t.erase("error_list");
      t.erase("warning_list");
      out["total"] = t;
      std::printf("%s\n", out.dump(2).c_str());
    } else if (opt->files.size() > 1) {
      print_text("total", total);
    }
    exit_status = unreadable ? 2 : total.games_skipped > 0 ? 1 : 0;
  });
}

}  // namespace gb::cli
