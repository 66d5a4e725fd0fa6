// What the subcommands of every component share: the POSITION options, opening
// the book and the opening table, and the exit statuses. Only commands.cpp files
// include it; the libraries below (book/explore, book/learning) never do.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "book/explore/opening_names.h"
#include "book/explore/position_arg.h"
#include "book/store/book.h"
#include "book/store/exit_status.h"

namespace gb::command {

// The exit statuses every subcommand shares (book/store/exit_status.h).
inline constexpr int kExitNotInBook = store::kExitNothingFound;
inline constexpr int kExitBadInput = store::kExitBadInput;
inline constexpr int kExitDamagedBook = store::kExitDamagedBook;
using store::exit_status_for;  // for a book that would not open

struct PositionOptions {
  explore::PositionSpec spec;
  int ply = -1;  // --ply; -1: the end of the game
  std::vector<std::string> eco_tables;
  bool no_names = false;
};

// Adds --fen, --moves, --pgn, --game, --ply, --eco, --no-names.
void add_position_options(CLI::App* cmd, PositionOptions& o);

// The position, or an error printed as "graphbook <command>: ..." and nullopt.
std::optional<explore::ResolvedPosition> resolve_or_report(const char* command, const PositionOptions& o);

// The opening table (--eco files, else the pgn-extract table when installed);
// empty when --no-names or none is found. A bad table is reported and nullopt.
std::optional<explore::OpeningTable> load_names(const char* command, const PositionOptions& o);

std::optional<store::Book> open_book_or_report(const char* command, const std::string& path,
                                               store::OpenMode mode);
// The same, setting exit_status (exit_status_for) when the book does not open.
std::optional<store::Book> open_book_or_report(const char* command, const std::string& path,
                                               store::OpenMode mode, int& exit_status);

}  // namespace gb::command
