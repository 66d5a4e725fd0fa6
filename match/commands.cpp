// `graphbook match` and `graphbook novelty`: a game from a PGN file against
// the stored games (the game index) and against the book's moves.
#include "match/commands.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>

#include "book/chess/notation.h"
#include "book/explore/book_reader.h"
#include "book/pgn/game_record.h"
#include "command/support.h"
#include "match/match.h"
#include "match/match_page.h"

namespace gb::match {

using command::kExitBadInput;
using command::kExitDamagedBook;
using command::kExitNotInBook;
using command::open_book_or_report;
using explore::BookReader;

namespace {

using Json = nlohmann::ordered_json;

// The game a user submits, replayed: positions[p] at ply p, keys alike.
struct SubmittedGame {
  std::vector<std::pair<std::string, std::string>> tags;
  std::vector<Position> positions;
  std::vector<Move> moves;
  std::vector<Key> keys;

  std::string_view tag(std::string_view name) const {
    for (const auto& [n, v] : tags)
      if (n == name) return v;
    return {};
  }
};

// The positions a line of moves passes through, the start first (a null move
// passes the turn).
std::vector<Position> positions_of(const Position& start, std::span<const Move> moves) {
  std::vector<Position> out{start};
  for (Move m : moves) {
    Position next = out.back();
    UndoInfo undo;
    if (m)
      next.do_move(m, undo);
    else
      next.do_null_move(undo);
    out.push_back(next);
  }
  return out;
}

std::optional<SubmittedGame> load_game(const char* command, const std::string& path, std::uint64_t number) {
  std::optional<SubmittedGame> game;
  pgn::ReadSummary summary = pgn::read_games(path, [&](const pgn::GameRecord& r) {
    if (r.game_number != number || game) return;
    SubmittedGame& g = game.emplace();
    g.tags = r.tags;
    for (const auto& ply : r.mainline) g.moves.push_back(ply.move);
    g.positions = positions_of(r.start, g.moves);
    for (const Position& p : g.positions) g.keys.push_back(p.key());
  });
  if (!summary.input_errors.empty()) {
    std::fprintf(stderr, "graphbook %s: %s\n", command, summary.input_errors.front().c_str());
    return std::nullopt;
  }
  if (!game) {
    for (const auto& e : summary.stored_errors)
      if (e.game_number == number && !e.in_variation) {
        std::fprintf(stderr, "graphbook %s: %s\n", command, e.message().c_str());
        return std::nullopt;
      }
    std::fprintf(stderr, "graphbook %s: %s: no game %llu (the file holds %llu)\n", command, path.c_str(),
                 static_cast<unsigned long long>(number),
                 static_cast<unsigned long long>(summary.games_read));
  }
  return game;
}

// "White – Black, Event (Round)" from the tags of a submitted or a stored game.
template <class Game>
std::string game_name(const Game& g) {
  std::string_view white = g.tag("White"), black = g.tag("Black"), event = g.tag("Event"),
                   round = g.tag("Round");
  std::string s = std::string(white.empty() ? "?" : white) + " – " + std::string(black.empty() ? "?" : black);
  if (!event.empty() && event != "?") s += ", " + std::string(event);
  if (!round.empty() && round != "?" && round != "-") s += " (" + std::string(round) + ")";
  return s;
}

// A game for the page: positions[p] at ply p, moves[p] played from it.
PageGame page_of(std::string name, std::vector<Position> positions, std::span<const Move> moves) {
  PageGame page{std::move(name), std::move(positions), {}};
  for (std::size_t p = 0; p < moves.size(); ++p)
    page.sans.push_back(moves[p] ? to_san(page.positions[p], moves[p]) : "--");
  return page;
}

// A stored game replayed from its start.
PageGame replay(const store::StoredGame& g) {
  std::optional<Position> start = g.start_fen.empty() ? Position() : Position::from_fen(g.start_fen);
  return page_of(game_name(g), positions_of(start.value_or(Position()), g.moves), g.moves);
}

struct Found {
  MatchRun run;
  store::StoredGame game;
  PageGame replayed;
};

Json match_json(const Found& f, const std::vector<store::SourceInfo>& sources) {
  Json tags = Json::object();
  for (const auto& [n, v] : f.game.tags) tags[n] = v;
  Json game = {{"index", f.run.game},
               {"source", f.game.source < sources.size() ? Json(sources[f.game.source].name) : Json(nullptr)},
               {"source_index", f.game.source},
               {"number_in_source", f.game.number},
               {"tags", tags}};
  int last = f.run.stored_end_ply();
  Json parting = nullptr;
  if (f.run.parting_move && std::size_t(last) < f.replayed.sans.size())
    parting = f.replayed.sans[std::size_t(last)];
  return Json{{"game", game},
              {"length", f.run.length},
              {"submitted_start_ply", f.run.submitted_start_ply},
              {"stored_start_ply", f.run.stored_start_ply},
              {"submitted_end_ply", f.run.submitted_end_ply()},
              {"stored_end_ply", last},
              {"parting_move", parting}};
}

std::string match_text(std::size_t rank, const Found& f, const std::vector<store::SourceInfo>& sources) {
  const MatchRun& r = f.run;
  std::string source = f.game.source < sources.size() ? sources[f.game.source].name : "?";
  std::string s = std::to_string(rank) + ". " + f.replayed.name + "\n";
  std::string roster;  // the Seven Tag Roster, as far as the game has it
  for (const char* t : {"Event", "Site", "Date", "Round", "White", "Black", "Result"})
    if (!f.game.tag(t).empty())
      roster += std::string(roster.empty() ? "" : " ") + "[" + t + " \"" + std::string(f.game.tag(t)) + "\"]";
  if (!roster.empty()) s += "   " + roster + "\n";
  s += "   Stored: game " + std::to_string(f.game.number) + " of " + source + " (place " +
       std::to_string(r.game) + " in the index, from 0)\n";
  s += "   Run: " + std::to_string(r.length) + (r.length == 1 ? " position" : " positions") + ", from ply " +
       std::to_string(r.submitted_start_ply) + " of the submitted game and ply " +
       std::to_string(r.stored_start_ply) + " of the stored game (to plies " +
       std::to_string(r.submitted_end_ply()) + " and " + std::to_string(r.stored_end_ply()) + ")\n";
  auto last = std::size_t(r.stored_end_ply());
  if (r.parting_move && last < f.replayed.sans.size())
    s += "   Parting: the stored game played " + numbered_san(f.replayed.positions[last], r.parting_move) +
         "\n";
  else
    s += "   Parting: the stored game ended there\n";
  return s;
}

void add_match(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book, pgn, html;
    std::uint64_t game = 1;
    std::size_t top = 1;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("match", "Find the stored game sharing the longest run of positions with a game");
  cmd->add_option("book", opt->book, "A book built with --index-games")->required();
  cmd->add_option("game_pgn", opt->pgn, "The PGN file holding the game to match")->required();
  cmd->add_option("--game", opt->game, "The game's number in the file, from 1 (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--top", opt->top, "List the K best stored games (default 1)")->check(CLI::PositiveNumber);
  cmd->add_flag("--json", opt->json, "Answer as JSON");
  cmd->add_option("--html", opt->html, "Also write a page stepping through the best match on one board");
  cmd->footer(
      "Examples:\n"
      "  graphbook build games.book twic0920.pgn --index-games\n"
      "  graphbook match games.book mygame.pgn\n"
      "  graphbook match games.book mygames.pgn --game 3 --top 5 --json\n"
      "  graphbook match games.book mygame.pgn --html match.html\n"
      "The longest run of positions both games reach one ply after another wins; ties go to the run that\n"
      "starts earliest in the submitted game, then to the stored game the index holds first.\n"
      "Exit status: 0 a match, 1 no stored game shares a position, 2 bad option, file or game, or a book\n"
      "without stored games, 3 a damaged book.");
  cmd->callback([opt, &exit_status] {
    exit_status = kExitBadInput;
    auto game = load_game("match", opt->pgn, opt->game);
    if (!game) return;
    auto book = open_book_or_report("match", opt->book, store::OpenMode::ReadOnly, exit_status);
    if (!book) return;
    store::Error error;
    auto index = store::GameIndexReader::open(*book, &error);
    if (!index) {
      if (error.code == MDB_NOTFOUND) {
        std::fprintf(stderr, "graphbook match: %s holds no stored games: build it with --index-games\n",
                     opt->book.c_str());
      } else {
        std::fprintf(stderr, "graphbook match: %s: %s\n", opt->book.c_str(), error.message().c_str());
        exit_status = kExitDamagedBook;
      }
      return;
    }
    RunFinder finder;
    std::vector<store::IndexRow> rows;
    std::vector<MatchRun> runs;
    if (auto s = match_keys(*index, game->keys, opt->top, finder, rows, runs)) {
      std::fprintf(stderr, "graphbook match: %s: %s\n", opt->book.c_str(), s->message().c_str());
      exit_status = kExitDamagedBook;
      return;
    }
    std::vector<Found> found;
    for (const MatchRun& r : runs) {
      auto g = index->game(r.game, &error);
      if (!g) {
        std::fprintf(stderr, "graphbook match: %s: stored game %u: %s\n", opt->book.c_str(), r.game,
                     error.code ? error.message().c_str() : "missing");
        exit_status = kExitDamagedBook;
        return;
      }
      PageGame replayed = replay(*g);
      found.push_back(Found{r, std::move(*g), std::move(replayed)});
    }
    auto sources = book->sources();
    PageGame submitted = page_of(game_name(*game), game->positions, game->moves);
    if (opt->json) {
      Json matches = Json::array();
      for (const Found& f : found) matches.push_back(match_json(f, sources));
      Json out = {{"submitted",
                   {{"file", opt->pgn},
                    {"game", opt->game},
                    {"name", submitted.name},
                    {"plies", game->moves.size()}}},
                  {"matches", matches}};
      std::printf("%s\n", out.dump(2).c_str());
    } else if (found.empty()) {
      std::printf("No stored game shares a position with %s (game %llu of %s).\n", submitted.name.c_str(),
                  static_cast<unsigned long long>(opt->game), opt->pgn.c_str());
    } else {
      std::printf("Submitted: %s (game %llu of %s, %zu plies)\n", submitted.name.c_str(),
                  static_cast<unsigned long long>(opt->game), opt->pgn.c_str(), game->moves.size());
      for (std::size_t i = 0; i < found.size(); ++i)
        std::fputs(match_text(i + 1, found[i], sources).c_str(), stdout);
    }
    if (!opt->html.empty() && !found.empty()) {
      std::ofstream out(opt->html, std::ios::binary);
      out << match_page(submitted, found.front().replayed, found.front().run);
      if (!out.flush()) {
        std::fprintf(stderr, "graphbook match: cannot write %s\n", opt->html.c_str());
        return;
      }
    }
    exit_status = found.empty() ? kExitNotInBook : 0;
  });
}

void add_novelty(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book, pgn;
    std::uint64_t game = 1;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "novelty", "The first move of a game the book does not hold, and the book's moves there");
  cmd->add_option("book", opt->book, "The book file")->required();
  cmd->add_option("game_pgn", opt->pgn, "The PGN file holding the game")->required();
  cmd->add_option("--game", opt->game, "The game's number in the file, from 1 (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", opt->json, "Answer as JSON");
  cmd->footer(
      "Examples:\n"
      "  graphbook novelty games.book mygame.pgn\n"
      "  graphbook novelty games.book mygames.pgn --game 2 --json\n"
      "The novelty is the first move played from a position the book holds that is not among the book's\n"
      "moves there. Exit status: 0 a novelty, 1 none (the game stays in the book, or leaves it where the\n"
      "book holds no position), 2 bad option, book, file or game, 3 a damaged book.");
  cmd->callback([opt, &exit_status] {
    exit_status = kExitBadInput;
    auto game = load_game("novelty", opt->pgn, opt->game);
    if (!game) return;
    auto book = open_book_or_report("novelty", opt->book, store::OpenMode::ReadOnly, exit_status);
    if (!book) return;
    store::Error error;
    auto reader = BookReader::open(*book, &error);
    if (!reader) {
      std::fprintf(stderr, "graphbook novelty: %s: %s\n", opt->book.c_str(), error.message().c_str());
      exit_status = kExitDamagedBook;
      return;
    }
    std::vector<store::BookEdge> edges;
    std::optional<std::size_t> novelty, left_at;  // ply of the novelty / of the first position not held
    for (std::size_t p = 0; p < game->moves.size(); ++p) {
      edges.clear();
      if (auto s = reader->edges(game->keys[p], edges, false)) {
        std::fprintf(stderr, "graphbook novelty: %s: %s\n", opt->book.c_str(), s->message().c_str());
        exit_status = kExitDamagedBook;
        return;
      }
      if (edges.empty()) {
        left_at = p;
        break;
      }
      bool held = false;
      for (const auto& e : edges) held = held || e.move == game->moves[p];
      if (!held) {
        novelty = p;
        break;
      }
    }
    Json book_moves = Json::array();
    std::string list;
    if (novelty) {
      const Position& pos = game->positions[*novelty];
      std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
        return a.record.counters.games > b.record.counters.games;
      });
      for (const auto& e : edges) {
        std::string san = to_san(pos, e.move);
        book_moves.push_back(
            {{"san", san}, {"uci", to_uci(e.move, pos.chess960())}, {"games", e.record.counters.games}});
        list += (list.empty() ? "" : ", ") + san + " (" + std::to_string(e.record.counters.games) + ")";
      }
    }
    if (opt->json) {
      Json out = {{"novelty", nullptr}};
      if (novelty) {
        const Position& pos = game->positions[*novelty];
        out = {{"novelty",
                {{"ply", *novelty},
                 {"san", to_san(pos, game->moves[*novelty])},
                 {"move", numbered_san(pos, game->moves[*novelty])},
                 {"fen", pos.fen()}}},
               {"book_moves", book_moves}};
      } else {
        out["left_book_at_ply"] = left_at ? Json(*left_at) : Json(nullptr);
      }
      std::printf("%s\n", out.dump(2).c_str());
    } else if (novelty) {
      const Position& pos = game->positions[*novelty];
      std::printf("Novelty at ply %zu: %s\nThe book's moves there: %s\nPosition: %s\n", *novelty,
                  numbered_san(pos, game->moves[*novelty]).c_str(), list.c_str(), pos.fen().c_str());
    } else if (left_at) {
      std::printf(
          "No novelty: every move is in the book up to ply %zu, where the book holds no moves (%s).\n",
          *left_at, game->positions[*left_at].fen().c_str());
    } else {
      std::printf("No novelty: every move of the game is in the book.\n");
    }
    exit_status = novelty ? 0 : kExitNotInBook;
  });
}

}  // namespace

void add_commands(CLI::App& app, int& exit_status) {
  add_match(app, exit_status);
  add_novelty(app, exit_status);
}

}  // namespace gb::match
