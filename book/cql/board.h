// Board computations behind CQL's board filters: designators, attacks,
// directions, rays, pins, pawn structure, and the move descriptions the move
// filter tests its constraints against. Pure functions of a Position.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "book/chess/movegen.h"
#include "book/chess/position.h"

namespace gb::cql {

constexpr Bitboard kLightSquares = 0x55AA55AA55AA55AAULL;

// The squares of a piece designator: piece_mask bit int(Piece) per kind
// (bit 0 the empty square; 0 means any square) intersected with squares.
Bitboard designated(const Position& pos, std::uint16_t piece_mask, Bitboard squares);

// The squares where a and b hold the same piece or are both empty (the
// positional '&' of two positions): computed a piece kind at a time on
// bitboards, since echo compares every pair of positions of a game with it.
Bitboard same_pieces(const Position& a, const Position& b);

// The squares a piece on s attacks (pawns diagonally), empty for an empty square.
Bitboard attacks_from(const Position& pos, Square s);
// Squares of `pieces` holding a piece that attacks a square of `targets`.
Bitboard attackers_in(const Position& pos, Bitboard pieces, Bitboard targets);
// Squares of `squares` attacked by a piece on `attackers`.
Bitboard attacked_in(const Position& pos, Bitboard squares, Bitboard attackers);

// K 0, P 1, N 3, B 3, R 5, Q 9.
int power(const Position& pos, Bitboard squares);

// Squares reached from `from` by lo..hi steps in each direction of `dirs`
// (bit d = Direction d of ast.h); 0 keeps the square, negative steps go back.
Bitboard direction_squares(Bitboard from, std::uint8_t dirs, int lo, int hi);

// ray: rays from sets[0] through each following set in order, only empty
// squares between them; returns the end squares.
Bitboard ray_ends(const Position& pos, const std::vector<Bitboard>& sets, std::uint8_t dirs);

struct PinSets {
  Bitboard pinners = 0, pinned = 0, targets = 0;
};
PinSets pins(const Position& pos, Bitboard from, Bitboard through, Bitboard to);

enum class PawnStructure { Connected, Isolated, Doubled, Passed };
Bitboard pawn_structure(const Position& pos, PawnStructure kind);

// FEN with the en passant square set whenever `last` (played from `before`)
// was a double pawn push, as CQLi writes it.
std::string fen_with_last_double_push(const Position& pos, Move last, const Position* before);

bool legal_position(const Position& pos);

// A position with this placement and side to move (castling rights kept
// where king and rook still stand, each with its own rook as in Chess960,
// no en passant, counters and Chess960 flag of `like`);
// nullopt when the chess core cannot hold it (king count, side not to move in check).
std::optional<Position> position_from_board(const std::array<Piece, 64>& board, Color side,
                                            const Position& like);

// Every pseudo-legal move (may leave the own king in check); castling only when legal.
void generate_pseudolegal(const Position& pos, MoveList& list);

// A move that could have led to pos (standard chess): the piece now on `to`
// came from `from` (an empty square), possibly capturing (diagonal pawn moves
// only, since the captured piece is unknown) or promoting. `before` is the
// position before it, without castling or en passant rights; it is absent
// when that position would not be legal (the side to move in pos in check).
struct ReverseMove {
  Square from, to;
  bool capture = false;
  PieceType promotion = PieceType::None;  // the piece now on `to` was a pawn
  std::optional<Position> before;
};
std::vector<ReverseMove> reverse_moves(const Position& pos);

// What the move filter needs to know of one move.
struct MoveInfo {
  Move move;
  Square from = SQ_NONE, to = SQ_NONE, capture = SQ_NONE;  // to: the king's square for castling
  PieceType promotion = PieceType::None;
  bool en_passant = false, castle_short = false, castle_long = false, null_move = false;
  bool primary = true;
};
MoveInfo describe_move(const Position& before, Move m, bool null_move, bool primary);

class MoveCandidates {
 public:
  void add(const MoveInfo& m) { moves_.push_back(m); }
  auto begin() const { return moves_.begin(); }
  auto end() const { return moves_.end(); }

 private:
  std::vector<MoveInfo> moves_;
};

// Code points of UTF-8 text (bytes of invalid sequences count one each).
std::int64_t utf8_length(const std::string& s);
std::vector<std::string> utf8_code_points(const std::string& s);

}  // namespace gb::cql
