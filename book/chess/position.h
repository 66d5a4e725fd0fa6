// A chess position: bitboards, a mailbox, side to move, castling rights
// (Chess960 aware), en passant square, move counters and its Polyglot key,
// kept up to date by do_move/undo_move.
//
// The en passant square is stored only when a pawn of the side to move stands
// beside the double-pushed pawn (a pseudo-legal capture exists): that is when
// Polyglot hashes it. fen() writes it only when the capture is also legal, as
// python-chess and most GUIs do.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "book/chess/bitboard.h"
#include "book/chess/types.h"

namespace gb {

struct FenError {
  enum class Field { Placement, SideToMove, Castling, EnPassant, HalfmoveClock, FullmoveNumber, Position };
  Field field;
  std::string reason;
  std::string message() const;  // "castling field: ..." — ready for the user
};

// What do_move needs to restore the previous position; the caller owns it.
struct UndoInfo {
  Key key;
  Bitboard checkers;
  Piece captured;
  CastlingRights castling;
  Square ep_square;
  int halfmove_clock;
};

// The placement field of FEN for a board given square by square (a1 .. h8).
std::string fen_placement(std::span<const Piece, 64> board);

class Position {
 public:
  Position();  // the standard start position

  static constexpr std::string_view kStartFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

  // Parses FEN, X-FEN or Shredder-FEN. The half- and fullmove fields may be
  // missing (EPD); they default to 0 and 1. A position with castling rooks off
  // the standard corners, or with Shredder letters, is marked Chess960.
  // Rejects what cannot be played: wrong king count, pawns on the back ranks,
  // the side not to move in check, castling rights without king and rook.
  [[nodiscard]] static std::optional<Position> from_fen(std::string_view fen, FenError* error = nullptr);

  // FEN; castling as KQkq unless the rook is not the outermost one on its side
  // (then the file letter, X-FEN), or Shredder letters when shredder is true.
  std::string fen(bool shredder = false) const;

  Piece piece_on(Square s) const { return board_[s]; }
  bool empty(Square s) const { return board_[s] == Piece::None; }
  Bitboard pieces() const { return by_color_[0] | by_color_[1]; }
  Bitboard pieces(Color c) const { return by_color_[int(c)]; }
  Bitboard pieces(PieceType t) const { return by_type_[int(t)]; }
  Bitboard pieces(Color c, PieceType t) const { return by_color_[int(c)] & by_type_[int(t)]; }
  Bitboard pieces(PieceType a, PieceType b) const { return by_type_[int(a)] | by_type_[int(b)]; }
  Square king_square(Color c) const { return lsb(pieces(c, PieceType::King)); }

  Color side_to_move() const { return side_; }
  Square ep_square() const { return ep_square_; }
  CastlingRights castling_rights() const { return castling_; }
  bool can_castle(CastlingRights cr) const { return castling_ & cr; }
  // The rook that a single castling right refers to.
  Square castling_rook(CastlingRights cr) const { return castling_rook_[index_of(cr)]; }
  int halfmove_clock() const { return halfmove_clock_; }
  int fullmove_number() const { return 1 + game_ply_ / 2; }
  int game_ply() const { return game_ply_; }  // plies since move 1 with White to move
  bool chess960() const { return chess960_; }
  void set_chess960(bool on) { chess960_ = on; }

  Key key() const;  // the Polyglot key
  Bitboard checkers() const { return checkers_; }
  bool in_check() const { return checkers_ != 0; }

  Bitboard attackers_to(Square s, Bitboard occupied) const;
  bool attacked_by(Color c, Square s, Bitboard occupied) const;
  // Pieces of either colour that alone stand between a slider and the king of colour c.
  Bitboard blockers_for_king(Color c) const;

  // The move must be legal in this position (from the generator or the parsers).
  void do_move(Move m, UndoInfo& undo);
  void undo_move(Move m, const UndoInfo& undo);
  // Passes the turn (a PGN null move "--"); illegal in check, the caller checks.
  void do_null_move(UndoInfo& undo);
  void undo_null_move(const UndoInfo& undo);

  bool gives_check(Move m) const;
  bool insufficient_material() const;
  // A legal en passant capture exists (the FEN writer's rule).
  bool has_legal_ep_capture() const;

  // Castling squares of a king-takes-rook move.
  static Square castle_king_to(Color c, bool king_side) {
    return relative_square(c, king_side ? SQ_G1 : SQ_C1);
  }
  static Square castle_rook_to(Color c, bool king_side) {
    return relative_square(c, king_side ? SQ_F1 : SQ_D1);
  }
  // Squares that must be empty for this castling (besides king and rook).
  Bitboard castling_path(CastlingRights cr) const { return castling_path_[index_of(cr)]; }

  bool operator==(const Position& o) const;  // same placement, side, castling, ep (not counters)

 private:
  struct Empty {};
  explicit Position(Empty) {}
  static int index_of(CastlingRights cr) { return std::countr_zero(unsigned(cr)); }
  void put_piece(Piece p, Square s);
  void remove_piece(Square s);
  void move_piece(Square from, Square to);
  void set_castling_right(Color c, Square rook);
  void set_ep_if_capturable(Square ep);
  void save_state(UndoInfo& undo) const;     // what every do_*move saves
  void restore_state(const UndoInfo& undo);  // and every undo_*move restores

  Bitboard by_color_[2] = {};
  Bitboard by_type_[7] = {};
  Piece board_[64] = {};
  Color side_ = Color::White;
  CastlingRights castling_ = NO_CASTLING;
  Square ep_square_ = SQ_NONE;
  int halfmove_clock_ = 0;
  int game_ply_ = 0;
  Key key_ = 0;  // Polyglot key without the en passant part
  Bitboard checkers_ = 0;
  bool chess960_ = false;
  Square castling_rook_[4] = {SQ_NONE, SQ_NONE, SQ_NONE, SQ_NONE};
  Bitboard castling_path_[4] = {};
  std::uint8_t castling_mask_[64] = {};  // rights lost when a piece leaves or enters a square
};

}  // namespace gb
