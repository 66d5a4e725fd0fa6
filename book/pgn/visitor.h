// The events a PGN reader sends to a visitor, and the GameVisitor concept.
//
// The reader (reader.h) tokenizes the input and decodes SAN into legal moves;
// the visitor decides what to keep. Callbacks are resolved at compile time (a
// template, no virtual calls). Derive from VisitorBase to get a no-op default
// for every callback and define only the ones you need: the reader calls your
// member because name lookup finds it first.
//
// Lifetimes: every std::string_view and the Position& passed to a callback
// point into the reader's buffer or state and are valid only during the call.
// Copy what you keep.
//
// Order of calls for one game:
//   begin_game, tag*, begin_movetext -> [move | comment | nag |
//   begin_variation ... end_variation]*, outcome, end_game
// end_game is always called once per begin_game, also for a skipped game.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#include "book/chess/position.h"

namespace gb::pgn {

// What a callback asks the reader to do next.
enum class Control : std::uint8_t {
  Continue,
  // From begin_movetext or move: skip the rest of this game's movetext by a
  // cheap byte scan (end_game still follows). From begin_variation: skip
  // that variation (its end_variation is not called).
  Skip,
};

enum class Outcome : std::uint8_t { WhiteWins, BlackWins, Draw, Unknown };
std::string_view to_string(Outcome o);  // "1-0", "0-1", "1/2-1/2", "*"

// Why a game was skipped (counted per reason in ReadSummary).
enum class SkipReason : std::uint8_t {
  None,
  IllegalMove,         // a move that is not legal in its position
  UnparseableMove,     // a token that is not a move at all
  AmbiguousMove,       // SAN that fits more than one legal move
  NullMove,            // "--"/"Z0" and ReadOptions::keep_null_move_games is false
  BadFen,              // [FEN] that Position::from_fen rejects
  UnsupportedVariant,  // [Variant] other than standard / Chess960
  ByVisitor,           // begin_movetext returned Control::Skip
};
inline constexpr int kSkipReasonCount = 8;
std::string_view to_string(SkipReason r);  // "illegal move", ...

// Something wrong with the input that costs no game: the game is read as a
// lenient reader (python-chess) reads it, and the summary says what was assumed.
enum class WarningKind : std::uint8_t {
  MissingResult,          // the movetext ends (end of input, next game's tags) without 1-0, 0-1, 1/2-1/2 or *
  MissingClosingQuote,    // a tag value opened with '"' and not closed on its line
  MissingClosingBracket,  // a tag value closed with '"' and no ']' after it
  BinaryData,             // a control byte (NUL...) in a move: the input is not PGN text
};
std::string_view to_string(WarningKind k);  // "missing result", ...

// Where a game starts: file, line (1-based) and game number (1-based, per source).
struct GameLocation {
  std::string_view file;
  std::uint64_t line = 0;
  std::uint64_t game_number = 0;
};

// One move as decoded by the reader.
struct MoveEvent {
  std::string_view san;    // the move text as written, without "!?" suffixes
  Move move;               // the legal move; Move() for a null move ("--", "Z0")
  const Position& before;  // the position the move is played from
  int ply;                 // 0 for the first move of the game (or of a variation's line)
  int depth;               // 0 on the mainline, 1 inside a variation, ...
  std::uint64_t line;      // where the move text stands
  std::uint32_t column;
};

// How a game ended, given to end_game.
struct GameEnd {
  const Position& final_position;  // after the last mainline move that was decoded
  int plies;                       // mainline plies decoded
  Outcome outcome;                 // termination token, else [Result] tag, else Unknown ("*")
  SkipReason skipped;              // None when the game is kept
  bool error;                      // a move error happened (game skipped, or kept up to it)
};

// No-op defaults for every callback.
struct VisitorBase {
  void begin_game(const GameLocation&) {}
  void tag(std::string_view /*name*/, std::string_view /*value*/) {}
  Control begin_movetext(const Position&) { return Control::Continue; }
  Control move(const MoveEvent&) { return Control::Continue; }
  void comment(std::string_view) {}
  void nag(int) {}
  Control begin_variation() { return Control::Skip; }  // variations are skipped unless asked for
  void end_variation() {}
  // The game's result: the termination token, else the [Result] tag, else Unknown.
  void outcome(Outcome) {}
  void end_game(const GameEnd&) {}
};

template <class V>
concept GameVisitor = requires(V& v, const GameLocation& loc, std::string_view s, const Position& p,
                               const MoveEvent& e, const GameEnd& end) {
  v.begin_game(loc);
  v.tag(s, s);
  { v.begin_movetext(p) } -> std::same_as<Control>;
  { v.move(e) } -> std::same_as<Control>;
  v.comment(s);
  v.nag(1);
  { v.begin_variation() } -> std::same_as<Control>;
  v.end_variation();
  v.outcome(Outcome::Unknown);
  v.end_game(end);
};

}  // namespace gb::pgn
