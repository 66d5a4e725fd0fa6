#include "learning/commands.h"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "book/learning/book_learning.h"
#include "book/learning/pending_games.h"
#include "command/support.h"

namespace gb::learning {

using command::kExitBadInput;
using command::kExitDamagedBook;
using command::open_book_or_report;

namespace {

// The exit status for learning that stopped: 2 when the games could not be
// read, 3 when LMDB failed reading or writing the book.
int exit_status_for(const LearnError& error) {
  switch (error.code) {
    case LearnError::Code::Games: return kExitBadInput;
    case LearnError::Code::Book: return kExitDamagedBook;
  }
  return kExitDamagedBook;
}

nlohmann::json summary_json(const std::string& file, const LearnSummary& s, LearnDirection d) {
  return {{"file", file},
          {"games_read", s.games_read},
          {d == LearnDirection::Learn ? "games_learned" : "games_unlearned", s.games_changed},
          {d == LearnDirection::Learn ? "already_learned" : "not_learned", s.already},
          {"adapter_sides", s.adapter_sides},
          {"no_result", s.no_result},
          {"not_selected", s.not_selected},
          {"out_of_book", s.out_of_book},
          {"moves_credited", s.moves_credited},
          {"games_skipped", s.games_skipped},
          {"errors", s.errors}};
}

void print_summary(const std::string& file, const LearnSummary& s, LearnDirection d) {
  bool learn = d == LearnDirection::Learn;
  std::printf(
      "%s: %llu games read, %llu %s (%llu moves), %llu %s, %llu without result, %llu not selected, "
      "%llu out of book, %llu skipped\n",
      file.c_str(), (unsigned long long)s.games_read, (unsigned long long)s.games_changed,
      learn ? "learned" : "unlearned", (unsigned long long)s.moves_credited, (unsigned long long)s.already,
      learn ? "already learned" : "never learned", (unsigned long long)s.no_result,
      (unsigned long long)s.not_selected, (unsigned long long)s.out_of_book,
      (unsigned long long)s.games_skipped);
  if (s.adapter_sides)
    std::printf("%s: %llu sides of games graphbook uci had learned already were not learned again\n",
                file.c_str(), (unsigned long long)s.adapter_sides);
  for (const std::string& e : s.errors) std::fprintf(stderr, "  %s\n", e.c_str());
}

// After learning file: resolves the pending games of `graphbook uci` found in
// it (book/learning/pending_games.h), in their own transactions. With no pending game
// the file is not read again and summary stays empty.
std::optional<LearnError> resolve_pending(store::Book& book, const std::string& file,
                                          ResolveSummary& summary) {
  store::Error e;
  bool any = !pending_games(book, &e).empty();
  if (e.code) return LearnError{LearnError::Code::Book, book.path() + ": " + e.message()};
  if (!any) return std::nullopt;
  return resolve_pending_from_pgn(book, file, &summary);
}

struct Options {
  std::string book;
  std::vector<std::string> files;
  std::string player;
  std::string side;
  bool reset = false;
  bool json = false;
};

void run(const char* command, const Options& o, LearnDirection direction, int& exit_status) {
  exit_status = kExitBadInput;
  if (!o.reset && o.files.empty()) {
    std::fprintf(stderr, "graphbook %s: give a PGN file%s\n", command,
                 direction == LearnDirection::Learn ? " or --reset" : "");
    return;
  }
  auto book = open_book_or_report(command, o.book, store::OpenMode::ReadWrite, exit_status);
  if (!book) return;
  // Reports a failure after the book opened: the games (2) or the book (3).
  auto fail = [&](const LearnError& error) {
    std::fprintf(stderr, "graphbook %s: %s\n", command, error.message.c_str());
    exit_status = exit_status_for(error);
  };
  nlohmann::json out = nlohmann::json::array();
  if (o.reset) {
    LearnError error;
    auto removed = reset_learning(*book, &error);
    if (!removed) return fail(error);
    if (o.json)
      out.push_back({{"reset", true}, {"records_removed", *removed}});
    else
      std::printf("%s: learning cleared (%llu records)\n", o.book.c_str(), (unsigned long long)*removed);
  }
  LearnOptions options;
  options.player = o.player;
  if (o.side == "white") options.side = Color::White;
  if (o.side == "black") options.side = Color::Black;
  options.now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  for (const std::string& file : o.files) {
    LearnSummary summary;
    if (auto error = learn_file(*book, file, options, direction, summary)) return fail(*error);
    if (o.json)
      out.push_back(summary_json(file, summary, direction));
    else
      print_summary(file, summary, direction);
    if (direction != LearnDirection::Learn) continue;
    ResolveSummary resolved;
    if (auto pending_error = resolve_pending(*book, file, resolved)) return fail(*pending_error);
    if (o.json) {
      out.back()["pending_resolved"] = resolved.resolved;
      out.back()["pending_learned"] = resolved.learned;
      out.back()["still_pending"] = resolved.still_pending;
    } else if (resolved.resolved + resolved.still_pending > 0) {  // the book had pending games
      std::printf("%s: %zu pending games of graphbook uci resolved (%zu learned now), %zu still pending\n",
                  file.c_str(), resolved.resolved, resolved.learned, resolved.still_pending);
    }
  }
  if (o.json) std::printf("%s\n", out.dump(2).c_str());
  exit_status = 0;
}

}  // namespace

void add_learn_commands(CLI::App& app, int& exit_status) {
  auto learn = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("learn", "Learn from played games: results per book move, apart from the source");
  cmd->add_option("book", learn->book, "The book file")->required();
  cmd->add_option("games", learn->files, "PGN files of played games (each learned in one transaction)");
  cmd->add_option("--player", learn->player, "Learn only the moves of this player (White/Black tag)");
  cmd->add_option("--side", learn->side, "Learn only White's or Black's moves")
      ->check(CLI::IsMember({"white", "black"}));
  cmd->add_flag("--reset", learn->reset, "Clear all learning first (alone: just clear)");
  cmd->add_flag("--json", learn->json, "Report as JSON");
  cmd->footer(
      "Examples:\n"
      "  graphbook learn my.book engine-games.pgn --player \"Stockfish 16\"\n"
      "  graphbook learn my.book --reset\n"
      "A game already learned (same fingerprint) is not learned twice. Games `graphbook uci` recorded as\n"
      "pending (no result on the board) that the files hold are resolved and removed (`graphbook "
      "uci-pending`\n"
      "lists them). docs/LEARNING.md has the details.");
  cmd->callback([learn, &exit_status] { run("learn", *learn, LearnDirection::Learn, exit_status); });

  auto unlearn = std::make_shared<Options>();
  CLI::App* un = app.add_subcommand("unlearn", "Take learned games back out of a book, exactly");
  un->add_option("book", unlearn->book, "The book file")->required();
  un->add_option("games", unlearn->files, "PGN files learned before")->required();
  un->add_flag("--json", unlearn->json, "Report as JSON");
  un->footer("Example:\n  graphbook unlearn my.book engine-games.pgn");
  un->callback([unlearn, &exit_status] { run("unlearn", *unlearn, LearnDirection::Unlearn, exit_status); });
}

void add_pending_command(CLI::App& app, int& exit_status) {
  struct Args {
    std::string book;
    std::vector<std::string> pgns;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "uci-pending", "List the games `graphbook uci` recorded without a result, or resolve them from a PGN");
  cmd->add_option("book", args->book, "The book the adapter learned into")->required();
  cmd->add_option("games", args->pgns,
                  "The tournament's PGN files: each pending game found there is learned");
  cmd->add_flag("--json", args->json, "JSON output");
  cmd->footer(
      "Examples:\n  graphbook uci-pending games.book\n  graphbook uci-pending games.book tournament.pgn "
      "--json\n"
      "A pending game matches a game of the PGN with the same moves; it is learned for the side the adapter\n"
      "played (as `graphbook learn --side`), once, and removed. `graphbook learn BOOK tournament.pgn`\n"
      "resolves them too, after learning the file. See docs/UCI.md.");
  cmd->callback([args, &exit_status] {
    auto book = open_book_or_report(
        "uci-pending", args->book,
        args->pgns.empty() ? store::OpenMode::ReadOnly : store::OpenMode::ReadWrite, exit_status);
    if (!book) return;
    nlohmann::json resolved = nlohmann::json::array();
    for (const auto& pgn : args->pgns) {
      ResolveSummary summary;
      if (auto error = resolve_pending_from_pgn(*book, pgn, &summary)) {
        std::fprintf(stderr, "graphbook uci-pending: %s\n", error->message.c_str());
        exit_status = exit_status_for(*error);
        return;
      }
      resolved.push_back({{"file", pgn},
                          {"resolved", summary.resolved},
                          {"learned", summary.learned},
                          {"still_pending", summary.still_pending}});
      if (!args->json)
        std::printf("%s: %zu pending games resolved (%zu learned now), %zu still pending\n", pgn.c_str(),
                    summary.resolved, summary.learned, summary.still_pending);
    }
    store::Error error;
    auto pending = pending_games(*book, &error);
    if (error.code) {
      std::fprintf(stderr, "graphbook uci-pending: %s: %s\n", args->book.c_str(), error.message().c_str());
      exit_status = kExitDamagedBook;  // LMDB failed reading the book
      return;
    }
    nlohmann::json games = nlohmann::json::array();
    for (const auto& p : pending) {
      std::string moves = uci_moves(p.game);
      games.push_back(
          {{"fen", p.game.start_fen.empty() ? std::string(Position::kStartFen) : p.game.start_fen},
           {"side", p.side == Color::White ? "white" : "black"},
           {"moves", moves},
           {"plies", p.game.moves.size()}});
      if (!args->json)
        std::printf("pending: adapter played %s, %zu plies: %s\n", p.side == Color::White ? "white" : "black",
                    p.game.moves.size(), moves.c_str());
    }
    if (args->json)
      std::printf("%s\n", nlohmann::json{{"resolved", resolved}, {"pending", games}}.dump(2).c_str());
    else if (pending.empty())
      std::printf("no pending games\n");
    exit_status = 0;
  });
}

}  // namespace gb::learning
