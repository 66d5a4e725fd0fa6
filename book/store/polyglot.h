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

// Why a .bin file could not be read or written: it could not be opened (the
// errno code) or read, it is not a Polyglot book, or writing it failed.
struct PolyglotFileError {
  enum class Code { Open, Read, NotPolyglot /* its size is not a multiple of 16 bytes */, Write };
  Code code = Code::Open;
  std::string path;
  int system_error = 0;  // errno, for Open and Write
  // "PATH: No such file or directory", "PATH: read error", "PATH: not a
  // Polyglot book (size is not a multiple of 16 bytes)", "PATH: write error:
  // No space left on device".
  std::string message() const;
};

// Reads a whole .bin file; nullopt, with *error set (when given), when it
// cannot be opened or read or is not a Polyglot book.
[[nodiscard]] std::optional<std::vector<PolyglotEntry>> read_polyglot_file(const std::string& path,
                                                                           PolyglotFileError* error);
// Writes entries in the given order; empty on success, else why (Open or
// Write), the status form of docs/DESIGN.md's "Errors: one convention per layer".
[[nodiscard]] std::optional<PolyglotFileError> write_polyglot_file(const std::string& path,
                                                                   const std::vector<PolyglotEntry>& entries);

}  // namespace gb::store
