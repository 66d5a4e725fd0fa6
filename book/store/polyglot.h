// Polyglot .bin books: the 16-byte entry, reading and writing whole files,
// and the translation between gb::Move and the Polyglot 16-bit move.
//
// Both encodings put the to-square in bits 0-5 and the from-square in bits
// 6-11, and both write castling as the king taking its own rook, so the
// translation only moves the promotion piece (Polyglot: n=1 b=2 r=3 q=4 in
// bits 12-14).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "book/chess/position.h"

namespace gb::store {

struct PolyglotEntry {
  Key key = 0;
  std::uint16_t move = 0;
  std::uint16_t weight = 0;
  std::uint32_t learn = 0;
  bool operator==(const PolyglotEntry&) const = default;
};

std::uint16_t to_polyglot_move(Move m);

// The legal move of pos that the Polyglot move names, or a null Move.
Move from_polyglot_move(const Position& pos, std::uint16_t pm);

// The move without a position (for entries no walk reaches): a Normal or
// Promotion gb::Move with the same squares; to_polyglot_move gives pm back.
Move raw_move_from_polyglot(std::uint16_t pm);

// Reads a whole .bin file; on failure returns nullopt and sets error.
[[nodiscard]] std::optional<std::vector<PolyglotEntry>> read_polyglot_file(const std::string& path,
                                                                           std::string* error);
// Writes entries in the given order; false and error on an I/O failure.
[[nodiscard]] bool write_polyglot_file(const std::string& path, const std::vector<PolyglotEntry>& entries,
                                       std::string* error);

}  // namespace gb::store
