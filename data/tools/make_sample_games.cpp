// Makes data/sample-games.pgn: Stockfish self-play games from varied
// openings, with ratings, dates, and decisive and drawn results, so that the
// first run of graphbook shows real statistics. Run by data/make-sample.sh.
//
// Each game draws a skill level per side (Stockfish's "Skill Level" plays
// weaker, randomized moves); the Elo tags are a nominal mapping of that level.
// The game ends on the board (mate, stalemate, insufficient material,
// threefold repetition, fifty moves) or is adjudicated a draw at 160 plies.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"

using namespace gb;

namespace {

class Engine {
 public:
  explicit Engine(const char* path) {
    int to_engine[2], from_engine[2];
    if (pipe(to_engine) || pipe(from_engine)) std::perror("pipe"), std::exit(2);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_engine[0], 0);
      dup2(from_engine[1], 1);
      close(to_engine[1]);
      close(from_engine[0]);
      execl(path, path, (char*)nullptr);
      std::perror(path);
      _exit(127);
    }
    close(to_engine[0]);
    close(from_engine[1]);
    in_ = fdopen(to_engine[1], "w");
    out_ = fdopen(from_engine[0], "r");
    send("uci");
    wait_for("uciok");
  }
  ~Engine() {
    send("quit");
    fclose(in_);
    fclose(out_);
    waitpid(pid_, nullptr, 0);
  }
  void send(const std::string& line) {
    std::fprintf(in_, "%s\n", line.c_str());
    std::fflush(in_);
  }
  std::string wait_for(const char* prefix) {
    char buf[8192];
    while (std::fgets(buf, sizeof buf, out_))
      if (std::strncmp(buf, prefix, std::strlen(prefix)) == 0) return buf;
    std::fprintf(stderr, "engine closed its output\n");
    std::exit(2);
  }

 private:
  pid_t pid_;
  FILE* in_;
  FILE* out_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ENGINE GAMES SEED > sample-games.pgn\n", argv[0]);
    return 2;
  }
  Engine engine(argv[1]);
  const int games = std::atoi(argv[2]);
  std::mt19937_64 rng(std::strtoull(argv[3], nullptr, 10));
  const char* first_moves[] = {"e4", "e4", "e4", "d4", "d4", "d4", "c4", "Nf3", "Nf3", "g3", "b3", "f4"};
  const char* players[] = {"Fish Alpha", "Fish Bravo",   "Fish Charlie", "Fish Delta",
                           "Fish Echo",  "Fish Foxtrot", "Fish Golf",    "Fish Hotel"};
  engine.send("setoption name Threads value 1");
  engine.send("setoption name Hash value 16");
  for (int g = 0; g < games; ++g) {
    int white = int(rng() % 8), black = int((white + 1 + rng() % 7) % 8);
    int skill[2] = {4 + white * 2, 4 + black * 2};  // 4..18, fixed per player
    int elo[2] = {1500 + 90 * (skill[0] - 4), 1500 + 90 * (skill[1] - 4)};
    Position pos;
    std::vector<Key> seen{pos.key()};
    std::vector<std::string> uci_moves, sans;
    auto play = [&](Move m) {
      sans.push_back(to_san(pos, m));
      uci_moves.push_back(to_uci(m, false));
      UndoInfo undo;
      pos.do_move(m, undo);
      seen.push_back(pos.key());
    };
    play(parse_san(pos, first_moves[rng() % std::size(first_moves)]).move);
    std::string result = "1/2-1/2", termination = "adjudication";
    engine.send("ucinewgame");
    for (;;) {
      MoveList legal;
      generate_legal(pos, legal);
      if (legal.empty()) {
        result = pos.in_check() ? (pos.side_to_move() == Color::White ? "0-1" : "1-0") : "1/2-1/2";
        termination = pos.in_check() ? "checkmate" : "stalemate";
        break;
      }
      if (pos.insufficient_material()) {
        termination = "insufficient material";
        break;
      }
      if (pos.halfmove_clock() >= 100) {
        termination = "fifty moves";
        break;
      }
      if (std::count(seen.begin(), seen.end(), pos.key()) >= 3) {
        termination = "threefold repetition";
        break;
      }
      if (sans.size() >= 160) break;
      int side = int(pos.side_to_move());
      engine.send("setoption name Skill Level value " + std::to_string(skill[side]));
      std::string cmd = "position startpos moves";
      for (auto& u : uci_moves) cmd += " " + u;
      engine.send(cmd);
      engine.send("go nodes " + std::to_string(3000 + skill[side] * 500));
      std::string best = engine.wait_for("bestmove");
      auto move = parse_uci(pos, best.substr(9, best.find_first_of(" \n", 9) - 9));
      if (!move) {
        std::fprintf(stderr, "engine sent an illegal move: %s", best.c_str());
        return 2;
      }
      play(*move);
    }
    int year = 2019 + int(rng() % 7), month = 1 + int(rng() % 12), day = 1 + int(rng() % 28);
    std::printf("[Event \"graphbook sample self-play\"]\n[Site \"Stockfish 15.1, Skill Level\"]\n");
    std::printf("[Date \"%04d.%02d.%02d\"]\n[Round \"%d\"]\n", year, month, day, g + 1);
    std::printf("[White \"%s\"]\n[Black \"%s\"]\n[Result \"%s\"]\n", players[white], players[black],
                result.c_str());
    std::printf("[WhiteElo \"%d\"]\n[BlackElo \"%d\"]\n[Termination \"%s\"]\n\n", elo[0], elo[1],
                termination.c_str());
    std::string line;
    for (size_t i = 0; i < sans.size(); ++i) {
      std::string tok = (i % 2 == 0 ? std::to_string(i / 2 + 1) + ". " : "") + sans[i];
      if (line.size() + tok.size() + 1 > 79) std::printf("%s\n", line.c_str()), line.clear();
      line += (line.empty() ? "" : " ") + tok;
    }
    if (line.size() + result.size() + 1 > 79) std::printf("%s\n", line.c_str()), line.clear();
    std::printf("%s%s%s\n\n", line.c_str(), line.empty() ? "" : " ", result.c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "\rgame %d/%d", g + 1, games);
  }
  std::fprintf(stderr, "\n");
  return 0;
}
