// A CQL value: None or one of the types of section 4 of the reference, and
// the rule that decides whether a value matches a position.
#pragma once

#include <cstdint>
#include <string>

#include "book/chess/types.h"

namespace gb::cql {

struct Value {
  enum class Kind : std::uint8_t { None, Boolean, Numeric, String, Set, Position, Piece };
  Kind kind = Kind::None;
  std::int64_t number = 0;  // Boolean (0/1), Numeric, position ID, piece ID
  Bitboard set = 0;
  std::string text;

  static Value none() { return {}; }
  static Value boolean(bool b) { return {Kind::Boolean, b ? 1 : 0, 0, {}}; }
  static Value numeric(std::int64_t n) { return {Kind::Numeric, n, 0, {}}; }
  static Value squares(Bitboard b) { return {Kind::Set, 0, b, {}}; }
  static Value string(std::string s) { return {Kind::String, 0, 0, std::move(s)}; }
  static Value position(int id) { return {Kind::Position, id, 0, {}}; }
  static Value piece(int id) { return {Kind::Piece, id, 0, {}}; }

  bool is_none() const { return kind == Kind::None; }
  // None, false and the empty set fail; everything else (0 and "" too) matches.
  bool matches() const {
    switch (kind) {
      case Kind::None: return false;
      case Kind::Boolean: return number != 0;
      case Kind::Set: return set != 0;
      default: return true;
    }
  }
};

}  // namespace gb::cql
