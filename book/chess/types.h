// The arithmetic core of the chess rules: squares, pieces, colours and the
// 16-bit move. Plain enums for Square/File/Rank (they are numbers we compute
// with), enum class for everything else.
#pragma once

#include <cassert>
#include <cstdint>

namespace gb {

using Bitboard = std::uint64_t;
using Key = std::uint64_t;

enum class Color : std::uint8_t { White, Black };
constexpr Color operator~(Color c) { return Color(int(c) ^ 1); }

enum class PieceType : std::uint8_t { None, Pawn, Knight, Bishop, Rook, Queen, King };

// Piece = colour * 8 + type, so that NoPiece is 0 and both halves are cheap to extract.
// clang-format off
enum class Piece : std::uint8_t {
  None = 0,
  WPawn = 1, WKnight, WBishop, WRook, WQueen, WKing,
  BPawn = 9, BKnight, BBishop, BRook, BQueen, BKing,
};
constexpr Piece make_piece(Color c, PieceType t) { return Piece(int(c) * 8 + int(t)); }
constexpr PieceType type_of(Piece p) { return PieceType(int(p) & 7); }
constexpr Color color_of(Piece p) { return Color(int(p) >> 3); }
// The FEN letters of the pieces, indexed by Piece ("PNBRQK" White, "pnbrqk"
// Black; ' ' for None and the two unused codes).
inline constexpr char kPieceChars[] = " PNBRQK  pnbrqk";
constexpr char piece_char(Piece p) { return kPieceChars[int(p)]; }
// The piece of a FEN letter (kPieceChars' inverse); None for any other
// character. The one decoder: FEN, and CQL's piece designators and fen
// patterns, all read letters through it.
constexpr Piece piece_from_char(char c) {
  for (int i = 0; kPieceChars[i] != '\0'; ++i)
    if (kPieceChars[i] == c && c != ' ') return Piece(i);
  return Piece::None;
}
// The piece type of a SAN piece letter ("NBRQK", and 'P', which SAN leaves
// out but long algebraic and some files write); None for any other character.
constexpr PieceType piece_type_of_letter(char c) {
  switch (c) {
    case 'P': return PieceType::Pawn;
    case 'N': return PieceType::Knight;
    case 'B': return PieceType::Bishop;
    case 'R': return PieceType::Rook;
    case 'Q': return PieceType::Queen;
    case 'K': return PieceType::King;
    default: return PieceType::None;
  }
}

enum Square : int {
  SQ_A1, SQ_B1, SQ_C1, SQ_D1, SQ_E1, SQ_F1, SQ_G1, SQ_H1,
  SQ_A2, SQ_B2, SQ_C2, SQ_D2, SQ_E2, SQ_F2, SQ_G2, SQ_H2,
  SQ_A3, SQ_B3, SQ_C3, SQ_D3, SQ_E3, SQ_F3, SQ_G3, SQ_H3,
  SQ_A4, SQ_B4, SQ_C4, SQ_D4, SQ_E4, SQ_F4, SQ_G4, SQ_H4,
  SQ_A5, SQ_B5, SQ_C5, SQ_D5, SQ_E5, SQ_F5, SQ_G5, SQ_H5,
  SQ_A6, SQ_B6, SQ_C6, SQ_D6, SQ_E6, SQ_F6, SQ_G6, SQ_H6,
  SQ_A7, SQ_B7, SQ_C7, SQ_D7, SQ_E7, SQ_F7, SQ_G7, SQ_H7,
  SQ_A8, SQ_B8, SQ_C8, SQ_D8, SQ_E8, SQ_F8, SQ_G8, SQ_H8,
  SQ_NONE = 64
};
// clang-format on
enum File : int { FILE_A, FILE_B, FILE_C, FILE_D, FILE_E, FILE_F, FILE_G, FILE_H };
enum Rank : int { RANK_1, RANK_2, RANK_3, RANK_4, RANK_5, RANK_6, RANK_7, RANK_8 };

constexpr Square make_square(File f, Rank r) { return Square(r * 8 + f); }
// The characters of square names: files 'a'..'h', ranks '1'..'8'.
constexpr bool is_file(char c) { return c >= 'a' && c <= 'h'; }
constexpr bool is_rank(char c) { return c >= '1' && c <= '8'; }
constexpr Square square_of(char file, char rank) { return make_square(File(file - 'a'), Rank(rank - '1')); }
constexpr File file_of(Square s) { return File(s & 7); }
constexpr Rank rank_of(Square s) { return Rank(s >> 3); }
constexpr bool is_ok(Square s) { return s >= SQ_A1 && s <= SQ_H8; }
// The square seen from Black's side (a1 <-> a8).
constexpr Square flip_rank(Square s) { return Square(s ^ 56); }
// Rank r from the point of view of colour c (RANK_1 is the colour's back rank).
constexpr Rank relative_rank(Color c, Rank r) { return Rank(r ^ (int(c) * 7)); }
constexpr Square relative_square(Color c, Square s) { return Square(s ^ (int(c) * 56)); }
constexpr int pawn_push(Color c) { return c == Color::White ? 8 : -8; }

// Castling rights as four bits; which rook each right refers to is kept by
// the Position (Chess960 puts the rooks anywhere on the back rank).
enum CastlingRights : std::uint8_t {
  NO_CASTLING = 0,
  WHITE_OO = 1,
  WHITE_OOO = 2,
  BLACK_OO = 4,
  BLACK_OOO = 8,
  ALL_CASTLING = 15
};
constexpr CastlingRights castling_right(Color c, bool king_side) {
  return CastlingRights((king_side ? 1 : 2) << (2 * int(c)));
}

// A move in 16 bits: to (0-5), from (6-11), promotion piece - Knight (12-13),
// kind (14-15). Castling is encoded as "king takes own rook", which covers
// standard chess and Chess960 alike. Move() is the null value (a1a1).
class Move {
 public:
  enum class Kind : std::uint8_t { Normal, Promotion, EnPassant, Castling };

  constexpr Move() = default;
  constexpr explicit Move(std::uint16_t raw) : raw_(raw) {}
  constexpr Move(Square from, Square to) : raw_(std::uint16_t(from << 6 | to)) {}
  static constexpr Move make(Square from, Square to, Kind kind, PieceType promo = PieceType::Knight) {
    // Two bits hold the promotion piece: Knight..Queen, nothing else fits.
    assert(is_ok(from) && is_ok(to));
    assert(promo >= PieceType::Knight && promo <= PieceType::Queen);
    return Move(
        std::uint16_t(int(kind) << 14 | (int(promo) - int(PieceType::Knight)) << 12 | from << 6 | to));
  }

  constexpr Square from() const { return Square((raw_ >> 6) & 63); }
  constexpr Square to() const { return Square(raw_ & 63); }
  constexpr Kind kind() const { return Kind(raw_ >> 14); }
  constexpr PieceType promotion() const {
    return kind() == Kind::Promotion ? PieceType(((raw_ >> 12) & 3) + int(PieceType::Knight))
                                     : PieceType::None;
  }
  constexpr std::uint16_t raw() const { return raw_; }
  constexpr bool is_null() const { return from() == to(); }
  constexpr explicit operator bool() const { return !is_null(); }
  constexpr bool operator==(const Move&) const = default;

 private:
  std::uint16_t raw_ = 0;
};

}  // namespace gb
