// bench/guard_match: does graphbook uci's book-exit guard win games? A match
// between two adapters over Stockfish with the same book, one with the guard
// (BookExitMargin, BookLookahead) and one without, at a fixed time per move.
//
//   bench_guard_match GRAPHBOOK BOOK GAMES MOVETIME_MS GUARD_OPTIONS...
//     e.g. bench_guard_match build/cli/graphbook twic.book 100 20 --exit-margin 50 --lookahead 4
//
// Both play --policy weighted (so the book lines vary) with BookMinGames 3,
// Threads=1, Hash=16; colours alternate game by game. A game ends on the
// board (the adapter's own game_end rules) or is drawn at 300 plies; an
// illegal or missing move loses. The book should be analysed and valued
// (graphbook analyse, graphbook values) or the margin has nothing to judge.
// Prints the guarded side's wins, draws, losses, its score with a 95 %
// interval (1.96 standard errors of the per-game points) and the Elo
// difference that score means, and how often the guard left the book:
//   RATE guard_match_score <score>
#include <poll.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "book/chess/notation.h"
#include "uci-adapter/engine_process.h"
#include "uci-adapter/game_end.h"
#include "uci-adapter/line_reader.h"

using namespace gb;

namespace {

struct Player {
  std::optional<uci_adapter::EngineProcess> process;
  std::optional<uci_adapter::LineReader> reader;
  std::vector<std::string> lines;
  std::size_t next = 0;
  int guard_exits = 0;  // "out of book" info strings seen

  // The next line; nullopt after 30 s (a hang) or at the end of output.
  std::optional<std::string> line() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (next >= lines.size()) {
      lines.clear(), next = 0;
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{reader->fd(), POLLIN, 0};
      ::poll(&p, 1, int(left.count()));
      if (reader->read_available(lines) == uci_adapter::LineReader::Read::End && lines.empty())
        return std::nullopt;
    }
    return lines[next++];
  }
  bool wait_for(const std::string& prefix, std::string* found = nullptr) {
    while (auto l = line()) {
      if (l->find("out of book") != std::string::npos) ++guard_exits;
      if (l->rfind(prefix, 0) == 0) {
        if (found) *found = *l;
        return true;
      }
    }
    return false;
  }
  void send(const std::string& text) { (void)process->send(text); }
};

bool start(Player& p, std::vector<std::string> argv) {
  uci_adapter::AdapterError error;
  auto process = uci_adapter::EngineProcess::start(argv, &error);
  if (!process) {
    std::fprintf(stderr, "cannot start %s: %s\n", argv[0].c_str(), error.message.c_str());
    return false;
  }
  p.process.emplace(std::move(*process));
  p.reader.emplace(p.process->output_fd());
  p.send("uci");
  if (!p.wait_for("uciok")) return false;
  p.send("setoption name Threads value 1");
  p.send("setoption name Hash value 16");
  p.send("isready");
  return p.wait_for("readyok");
}

// Plays one game; returns the points of white (1, 0.5, 0).
double play(Player& white, Player& black, int movetime) {
  Position pos = *Position::from_fen(Position::kStartFen);
  std::vector<Key> history{pos.key()};
  std::string moves;
  for (Player* p : {&white, &black}) {
    p->send("ucinewgame");
    p->send("isready");
    p->wait_for("readyok");
  }
  for (int ply = 0; ply < 300; ++ply) {
    Player& mover = ply % 2 == 0 ? white : black;
    mover.send("position startpos" + (moves.empty() ? std::string() : " moves" + moves));
    mover.send("go movetime " + std::to_string(movetime));
    std::string best;
    if (!mover.wait_for("bestmove", &best)) return ply % 2 == 0 ? 0.0 : 1.0;
    auto move = parse_uci(pos, best.substr(9, best.find(' ', 9) - 9));
    if (!move) return ply % 2 == 0 ? 0.0 : 1.0;
    UndoInfo undo;
    pos.do_move(*move, undo);
    moves += " " + to_uci(*move, false);
    history.push_back(pos.key());
    auto end = uci_adapter::termination(pos, history);
    if (end != uci_adapter::Termination::None) {
      auto o = uci_adapter::outcome_for(pos, end, Color::White);
      return o == uci_adapter::Outcome::Win ? 1.0 : o == uci_adapter::Outcome::Draw ? 0.5 : 0.0;
    }
  }
  return 0.5;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: bench_guard_match GRAPHBOOK BOOK GAMES MOVETIME_MS GUARD_OPTIONS...\n");
    return 2;
  }
  std::string graphbook = argv[1], book = argv[2];
  int games = std::atoi(argv[3]), movetime = std::atoi(argv[4]);
  std::vector<std::string> base{graphbook, "uci", "--book", book, "--policy", "weighted", "--min-games", "3"};
  std::vector<std::string> guarded = base, plain = base;
  for (int i = 5; i < argc; ++i) guarded.push_back(argv[i]);
  guarded.insert(guarded.end(), {"--seed", "1", "--", "/usr/games/stockfish"});
  plain.insert(plain.end(), {"--seed", "2", "--", "/usr/games/stockfish"});
  Player g, p;
  if (!start(g, guarded) || !start(p, plain)) return 1;
  std::vector<double> points;  // the guarded side's
  int wins = 0, draws = 0, losses = 0;
  for (int i = 0; i < games; ++i) {
    bool guard_white = i % 2 == 0;
    double white = guard_white ? play(g, p, movetime) : play(p, g, movetime);
    double ours = guard_white ? white : 1 - white;
    points.push_back(ours);
    (ours == 1 ? wins : ours == 0 ? losses : draws)++;
    std::fprintf(stderr, "game %d: guard %s, %s\n", i + 1, guard_white ? "white" : "black",
                 ours == 1   ? "won"
                 : ours == 0 ? "lost"
                             : "drew");
  }
  double n = points.size(), score = 0;
  for (double x : points) score += x;
  score /= n;
  double variance = 0;
  for (double x : points) variance += (x - score) * (x - score);
  double error = 1.96 * std::sqrt(variance / n) / std::sqrt(n);
  auto elo = [](double s) { return s <= 0 ? -999.0 : s >= 1 ? 999.0 : -400 * std::log10(1 / s - 1); };
  std::printf(
      "guard: +%d =%d -%d in %d games at %d ms a move; score %.3f +- %.3f (95 %%), Elo %+.0f [%+.0f, "
      "%+.0f]\n",
      wins, draws, losses, games, movetime, score, error, elo(score), elo(score - error), elo(score + error));
  std::printf("the guard left the book %d times\n", g.guard_exits);
  std::printf("RATE guard_match_score %.3f\n", score);
  g.send("quit");
  p.send("quit");
  return 0;
}
