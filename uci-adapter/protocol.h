// The UCI protocol text, both directions, as pure functions on lines: what a
// GUI's command asks for, what an engine's reply says, and the lines the
// adapter writes itself. No state, no I/O; every function is tested on strings.
//
// Tokens are separated by any run of spaces or tabs (the UCI text allows
// arbitrary whitespace). Parsers never fail on bad input: they return an
// empty optional, or a value with the fields they could read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gb::uci_adapter {

// The first token of a line from the GUI.
enum class GuiCommand {
  Uci,
  Debug,
  IsReady,
  SetOption,
  Register,
  UciNewGame,
  Position,
  Go,
  Stop,
  PonderHit,
  Quit,
  Unknown,  // passed through unchanged; the engine ignores what it does not know
};
GuiCommand command_of(std::string_view line);

// Splits on spaces and tabs; the views point into line.
std::vector<std::string_view> tokens(std::string_view line);

// "setoption name <id> [value <x>]"; both may contain spaces; "<empty>" is
// the empty string. nullopt when there is no name.
struct SetOption {
  std::string name;
  std::string value;
};
std::optional<SetOption> parse_setoption(std::string_view line);

// "position [startpos | fen <fen>] [moves <m1> ... <mi>]"; the moves are not
// checked here (the session plays them on a board).
struct PositionCommand {
  std::string fen;  // empty for startpos
  std::vector<std::string> moves;
};
std::optional<PositionCommand> parse_position(std::string_view line);

// "go ..." with every parameter of the April 2006 text. Unset numbers stay nullopt.
struct GoCommand {
  bool ponder = false;
  bool infinite = false;
  std::vector<std::string> searchmoves;
  std::optional<std::int64_t> wtime, btime, winc, binc, movestogo, depth, nodes, mate, movetime;
  // A game move under a limit (clock, depth, nodes, mate or movetime): the
  // kind of search a book may answer. Plain "go" and "go infinite" are analysis.
  bool limited() const;
};
GoCommand parse_go(std::string_view line);

// "bestmove <move> [ponder <move>]" from the engine.
struct BestMove {
  std::string move;
  std::string ponder;  // empty when absent
};
std::optional<BestMove> parse_bestmove(std::string_view line);

// The name in "option name <id> type ..." from the engine; nullopt for other lines.
std::optional<std::string> option_name(std::string_view line);
// The first token of an engine line is this word ("uciok", "readyok", "bestmove"...).
bool starts_with_word(std::string_view line, std::string_view word);

// Lines the adapter writes.
std::string check_option(std::string_view name, bool value);
std::string spin_option(std::string_view name, int value, int min, int max);
std::string combo_option(std::string_view name, std::string_view value, const std::vector<std::string>& vars);
std::string string_option(std::string_view name, std::string_view value);  // "" written as <empty>

std::string bestmove_line(std::string_view move, std::string_view ponder);
std::string info_string(std::string_view text);

}  // namespace gb::uci_adapter
