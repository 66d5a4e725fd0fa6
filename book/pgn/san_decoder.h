// SAN to a legal move, fast: the common shapes ("e4", "exd5", "Nf3", "Rad1",
// "Qh4xe1") are resolved from attack bitboards of the target square and a pin
// test, without generating every legal move. Everything else (castling,
// promotions, en passant, positions in check, king moves, UCI and long
// algebraic) goes to gb::parse_san, so the result is always the same as
// parse_san's.
#pragma once

#include <string_view>

#include "book/chess/notation.h"

namespace gb::pgn {

[[nodiscard]] MoveParse decode_san(const Position& pos, std::string_view san);

}  // namespace gb::pgn
