// Move notation: SAN (Standard Algebraic Notation) and UCI move text, in and
// out, and the Polyglot book's 16-bit move. Parsing is lenient in the ways
// real PGN files demand; writing is exactly the standard form.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "book/chess/movegen.h"
#include "book/chess/position.h"

namespace gb {

enum class MoveError { Syntax, Illegal, Ambiguous };
std::string_view to_string(MoveError e);

// Reads a move in SAN as found in real files: disambiguation by file, rank or
// square, captures with or without 'x', "e8=Q"/"e8Q"/"e8(Q)", "O-O"/"0-0",
// "+"/"#" and "!?"-style glyph suffixes, long algebraic ("Ng1-f3"), and UCI
// ("e2e4", "e7e8q", "e1h1"). Returns the legal move it names.
struct MoveParse {
  Move move;
  MoveError error;
  bool ok() const { return bool(move); }
};
[[nodiscard]] MoveParse parse_san(const Position& pos, std::string_view text);

// The standard SAN of a legal move: minimal disambiguation, "=Q", "+", "#".
std::string to_san(const Position& pos, Move m);
// Appends to san the SAN of m without its check suffix, from the legal moves
// of pos the caller has already generated (a generator of many games would
// otherwise generate them twice a ply).
void append_san_body(const Position& pos, const MoveList& legal, Move m, std::string& san);
// The same with its move number: "9. Nc7" for White, "9... Nc7" for Black.
std::string numbered_san(const Position& pos, Move m);

// UCI move text. Castling is written e1g1 in standard chess and as the king
// taking its own rook (e1h1) when chess960 is true.
std::string to_uci(Move m, bool chess960);
// Accepts both castling forms; "0000" and anything illegal give nullopt.
[[nodiscard]] std::optional<Move> parse_uci(const Position& pos, std::string_view text);

std::string square_name(Square s);

// A Polyglot key as 16 lower-case hex digits, as probes and queries print it.
std::string key_hex(Key k);

}  // namespace gb
