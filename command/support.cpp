#include "command/support.h"

#include <sys/stat.h>

#include <cstdio>

namespace gb::command {

void add_position_options(CLI::App* cmd, PositionOptions& o) {
  cmd->add_option("--fen", o.spec.fen, "The position as FEN (default: the start position)");
  cmd->add_option("--moves", o.spec.moves, "Moves from the start (or from --fen), SAN or UCI: \"e4 e5 Nf3\"");
  cmd->add_option("--pgn", o.spec.pgn_file, "Take the position from a game of this PGN file");
  cmd->add_option("--game", o.spec.game, "With --pgn: the game number, from 1 (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ply", o.ply, "With --pgn: plies into the game (default: its last position)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--eco", o.eco_tables,
                  "Opening-name table(s): pgn-extract eco.pgn or lichess .tsv (default " +
                      std::string(explore::kDefaultEcoTable) + ")");
  cmd->add_flag("--no-names", o.no_names, "Do not look up opening names");
}

std::optional<explore::ResolvedPosition> resolve_or_report(const char* command, const PositionOptions& o) {
  explore::PositionSpec spec = o.spec;
  if (o.ply >= 0) spec.ply = o.ply;
  explore::ExploreError error;
  auto r = explore::resolve_position(spec, &error);
  if (!r) std::fprintf(stderr, "graphbook %s: %s\n", command, error.message.c_str());
  return r;
}

std::optional<explore::OpeningTable> load_names(const char* command, const PositionOptions& o) {
  explore::OpeningTable table;
  if (o.no_names) return table;
  std::vector<std::string> files = o.eco_tables;
  struct stat st;
  if (files.empty() && ::stat(std::string(explore::kDefaultEcoTable).c_str(), &st) == 0)
    files.emplace_back(explore::kDefaultEcoTable);
  for (const std::string& f : files) {
    if (auto error = table.add_file(f)) {
      std::fprintf(stderr, "graphbook %s: %s\n", command, error->message.c_str());
      return std::nullopt;
    }
  }
  return table;
}

std::optional<store::Book> open_book_or_report(const char* command, const std::string& path,
                                               store::OpenMode mode, int& exit_status) {
  store::BookError error;
  auto book = store::Book::open(path, mode, &error);
  if (!book) {
    std::fprintf(stderr, "graphbook %s: %s\n", command, error.message.c_str());
    exit_status = exit_status_for(error);
  }
  return book;
}

std::optional<store::Book> open_book_or_report(const char* command, const std::string& path,
                                               store::OpenMode mode) {
  int ignored = 0;
  return open_book_or_report(command, path, mode, ignored);
}

}  // namespace gb::command
