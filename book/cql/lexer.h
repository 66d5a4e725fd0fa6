// The CQL lexer: turns query text into tokens with line and column.
//
// Piece designators ("Ra1", "[Kk][a1,h8]", "a-h8", ".", "_", "[]") are one
// token, decoded here into a piece mask and a square set, because whether
// "[" starts a designator or a subscript depends on the characters that
// follow it, not on the grammar.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "book/chess/bitboard.h"

namespace gb::cql {

enum class TokenKind {
  End,
  Word,      // a keyword or a function name (text)
  Variable,  // $name
  Number,
  String,      // text without the quotes
  Designator,  // piece_mask and squares
  Backslash,   // \n \r \t \" \\ (text is the character); \1 \-1 (text "group"/"group-index", number)
  Punct,       // operators and brackets (text)
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  std::int64_t number = 0;
  // Designators: bit int(Piece) for each piece kind named (bit 0 = empty
  // square); 0 means "any square, occupied or not". squares: the square part.
  std::uint16_t piece_mask = 0;
  Bitboard squares = ~Bitboard(0);
  int line = 1;
  int column = 1;
  int offset = 0;  // byte offset in the source
  bool space_before = false;
};

struct LexError {
  int line = 0;
  int column = 0;
  int offset = 0;
  std::string message;
};

// Every piece kind bit (both colours, not the empty square).
constexpr std::uint16_t kAllPieceBits = 0x7E7E;
constexpr std::uint16_t kWhitePieceBits = 0x007E;
constexpr std::uint16_t kBlackPieceBits = 0x7E00;
constexpr std::uint16_t kEmptyBit = 1;

// Lexes the whole text; on failure returns false and fills error.
[[nodiscard]] bool lex(std::string_view text, std::vector<Token>& tokens, LexError& error);

}  // namespace gb::cql
