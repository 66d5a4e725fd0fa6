#include <chrono>
#include <cstdio>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"
#include "cli/commands.h"

namespace gb::cli {

void add_perft_command(CLI::App& app, int& exit_status) {
  struct Options {
    std::string fen;
    int depth = 1;
    bool divide = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("perft", "Count the leaf nodes of the legal move tree (move generator check)");
  cmd->add_option("fen", opt->fen, "The position (FEN, X-FEN or Shredder-FEN); 'startpos' for the start")
      ->required();
  cmd->add_option("depth", opt->depth, "Plies to search")->required()->check(CLI::Range(0, 20));
  cmd->add_flag("--divide", opt->divide, "Print the count below each root move (UCI notation)");
  cmd->footer(
      "Example:\n  graphbook perft startpos 5\n  graphbook perft "
      "\"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1\" 3 --divide");
  cmd->callback([opt, &exit_status] {
    FenError error;
    std::string fen = opt->fen == "startpos" ? std::string(Position::kStartFen) : opt->fen;
    auto pos = Position::from_fen(fen, &error);
    if (!pos) {
      std::fprintf(stderr, "graphbook perft: invalid FEN: %s\n", error.message().c_str());
      exit_status = 2;
      return;
    }
    auto start = std::chrono::steady_clock::now();
    std::uint64_t total = 0;
    if (opt->divide && opt->depth > 0) {
      MoveList moves;
      generate_legal(*pos, moves);
      UndoInfo undo;
      for (Move m : moves) {
        pos->do_move(m, undo);
        std::uint64_t n = perft(*pos, opt->depth - 1);
        pos->undo_move(m, undo);
        std::printf("%s: %llu\n", to_uci(m, pos->chess960()).c_str(), (unsigned long long)n);
        total += n;
      }
      std::printf("\n");
    } else {
      total = perft(*pos, opt->depth);
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("Nodes searched: %llu\n", (unsigned long long)total);
    std::fprintf(stderr, "%.3f s, %.1f Mnodes/s\n", seconds, seconds > 0 ? total / seconds / 1e6 : 0.0);
    exit_status = 0;
  });
}

}  // namespace gb::cli
