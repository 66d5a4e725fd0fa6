// The board filters, and the move filter.
#include "book/cql/evaluator_impl.h"

namespace gb::cql {

namespace {

// The value of a move filter after its moves were counted (the result-type
// rule of section 17): with `all`, whether every considered move matched.
Value move_filter_value(const MoveSpec& m, bool all_matched, std::int64_t considered, std::int64_t count,
                        Bitboard result) {
  if (m.all) {
    if (m.result == MoveSpec::Result::Count) return all_matched ? Value::numeric(considered) : Value::none();
    return Value::boolean(all_matched);
  }
  switch (m.result) {
    case MoveSpec::Result::Count: return Value::numeric(count);
    case MoveSpec::Result::Boolean: return Value::boolean(count > 0);
    default: return Value::squares(result);
  }
}

}  // namespace

Value Evaluator::Impl::eval_reverse_move(const Node& n, Bitboard from_set, Bitboard to_set,
                                         Bitboard capture_set) {
  const MoveSpec& m = n.move;
  std::int64_t count = 0, considered = 0;
  Bitboard result = 0;
  bool all_matched = true;
  // reverse_moves finds no castling, en passant or null move: nothing can match.
  if (m.enpassant || m.castle || m.castle_short || m.castle_long || m.null_move)
    return move_filter_value(m, all_matched, considered, count, result);
  for (const ReverseMove& rm : reverse_moves(*pos)) {
    if (m.mode == MoveSpec::Mode::Legal && !rm.before) continue;
    if (!(from_set & square_bb(rm.from)) || !(to_set & square_bb(rm.to))) continue;
    if (m.capture >= 0 && (!rm.capture || !(capture_set & square_bb(rm.to)))) continue;
    if (m.promote && (rm.promotion == PieceType::None || !(m.promote >> int(rm.promotion) & 1))) continue;
    ++considered;
    if (m.speculative >= 0) {
      if (!rm.before) {
        all_matched = false;
        continue;
      }
      At at(*this, node, &*rm.before, true);
      if (!matches(*n.args[std::size_t(m.speculative)])) {
        all_matched = false;
        continue;
      }
    }
    ++count;
    if (m.result == MoveSpec::Result::From) result |= square_bb(rm.from);
    if (m.result == MoveSpec::Result::To) result |= square_bb(rm.to);
    if (m.result == MoveSpec::Result::Capture && rm.capture) result |= square_bb(rm.to);
  }
  return move_filter_value(m, all_matched, considered, count, result);
}

Value Evaluator::Impl::eval_move(const Node& n) {
  const MoveSpec& m = n.move;
  // Where the set arguments are read: the previous position for "previous".
  int set_node = node;
  const Position* set_pos = pos;
  if (m.mode == MoveSpec::Mode::Previous) {
    if (imaginary || node == 0)
      return m.result == MoveSpec::Result::Count ? Value::numeric(0) : Value::none();
    set_node = current().parent;
    set_pos = &game->nodes[std::size_t(set_node)].position;
  }
  Bitboard from_set = kAll, to_set = kAll, capture_set = kAll;
  {
    At at(*this, set_node, set_pos, imaginary);
    if (m.from >= 0) from_set = eval_set(*n.args[std::size_t(m.from)]);
    if (m.to >= 0) to_set = eval_set(*n.args[std::size_t(m.to)]);
    if (m.capture >= 0) capture_set = eval_set(*n.args[std::size_t(m.capture)]);
  }
  if (m.reverse) return eval_reverse_move(n, from_set, to_set, capture_set);
  // The common "move legal count" needs no move descriptions.
  if (m.mode == MoveSpec::Mode::Legal && m.result == MoveSpec::Result::Count && m.from < 0 && m.to < 0 &&
      m.capture < 0 && m.speculative < 0 && !m.promote && !m.enpassant && !m.castle && !m.castle_short &&
      !m.castle_long && !m.null_move)
    return Value::numeric(count_legal(*pos));
  MoveCandidates cands;
  switch (m.mode) {
    case MoveSpec::Mode::Played:
      if (!imaginary) {
        const auto& ch = current().children;
        for (std::size_t i = 0; i < ch.size(); ++i) {
          // Moves that start variations are recorded here too; inside a line,
          // only the move to the sequence's next position counts.
          if (linear_next != -2 && ch[i] != linear_next) continue;
          // With variations off the game is its main line: a move starting a variation is not there.
          if (!visible(ch[i])) continue;
          const GameNode& c = game->nodes[std::size_t(ch[i])];
          cands.add(describe_move(*pos, c.move, c.null_move, i == 0));
        }
      }
      break;
    case MoveSpec::Mode::Previous: {
      const GameNode& c = current();
      const GameNode& p = game->nodes[std::size_t(c.parent)];
      std::size_t idx = 0;
      while (p.children[idx] != node) ++idx;
      cands.add(describe_move(p.position, c.move, c.null_move, idx == 0));
      break;
    }
    case MoveSpec::Mode::Legal: {
      MoveList list;
      generate_legal(*pos, list);
      for (Move mv : list) cands.add(describe_move(*pos, mv, false, true));
      break;
    }
    case MoveSpec::Mode::Pseudolegal: {
      MoveList list;
      generate_pseudolegal(*pos, list);
      for (Move mv : list) cands.add(describe_move(*pos, mv, false, true));
      break;
    }
  }
  std::int64_t count = 0, considered = 0;
  Bitboard result = 0;
  bool all_matched = true;
  for (const MoveInfo& mi : cands) {
    if (!(from_set & square_bb(mi.from))) continue;
    if (!(to_set & square_bb(mi.to))) continue;
    if (m.capture >= 0 && (mi.capture == SQ_NONE || !(capture_set & square_bb(mi.capture)))) continue;
    if (m.promote && (mi.promotion == PieceType::None || !(m.promote >> int(mi.promotion) & 1))) continue;
    if (m.enpassant && !mi.en_passant) continue;
    if (m.castle && !mi.castle_short && !mi.castle_long) continue;
    if (m.castle_short && !mi.castle_short) continue;
    if (m.castle_long && !mi.castle_long) continue;
    if (m.null_move != mi.null_move && m.null_move) continue;
    if (m.primary && !mi.primary) continue;
    if (m.secondary && mi.primary) continue;
    ++considered;
    if (m.speculative >= 0) {
      Position after = *pos;
      UndoInfo undo;
      if (mi.null_move)
        after.do_null_move(undo);
      else
        after.do_move(mi.move, undo);
      const int child = options.book && !imaginary ? child_by_move(mi) : -1;
      At at(*this, node, &after, true);
      imagined_child = child;
      if (!matches(*n.args[std::size_t(m.speculative)])) {
        all_matched = false;
        continue;
      }
    }
    ++count;
    if (m.adopted >= 0 && m.mode == MoveSpec::Mode::Played && !imaginary) {
      for (int c : current().children)
        if (game->nodes[std::size_t(c)].move == mi.move &&
            game->nodes[std::size_t(c)].null_move == mi.null_move) {
          At at(*this, c, &game->nodes[std::size_t(c)].position, false);
          eval(*n.args[std::size_t(m.adopted)]);
          break;
        }
    }
    switch (m.result) {
      case MoveSpec::Result::From: result |= square_bb(mi.from); break;
      case MoveSpec::Result::To: result |= square_bb(mi.to); break;
      case MoveSpec::Result::Capture:
        if (mi.capture != SQ_NONE) result |= square_bb(mi.capture);
        break;
      default: break;
    }
  }
  return move_filter_value(m, all_matched, considered, count, result);
}

Value Evaluator::Impl::eval_board(const Node& n) {
  switch (n.op) {
    case Op::Attacks:
    case Op::AttackedBy: {
      Value l = eval(*n.args[0]);
      if (l.is_none()) return l;
      Value r = eval(*n.args[1]);
      if (r.is_none()) return r;
      return Value::squares(n.op == Op::Attacks ? attackers_in(*pos, l.set, r.set)
                                                : attacked_in(*pos, l.set, r.set));
    }
    case Op::Check: return Value::boolean(pos->in_check());
    case Op::Mate: return Value::boolean(pos->in_check() && count_legal(*pos) == 0);
    case Op::Stalemate: return Value::boolean(!pos->in_check() && count_legal(*pos) == 0);
    case Op::Wtm: return Value::boolean(pos->side_to_move() == Color::White);
    case Op::Btm: return Value::boolean(pos->side_to_move() == Color::Black);
    case Op::SideToMove: return Value::numeric(pos->side_to_move() == Color::White ? 1 : -1);
    case Op::Power: return Value::numeric(power(*pos, eval_set(*n.args[0])));
    case Op::ColorType:
    case Op::PieceType:
    case Op::File:
    case Op::Rank: {
      Bitboard s = eval_set(*n.args[0]);
      if (!s || more_than_one(s)) return Value::none();
      Square sq = lsb(s);
      if (n.op == Op::File) return Value::numeric(file_of(sq) + 1);
      if (n.op == Op::Rank) return Value::numeric(rank_of(sq) + 1);
      Piece p = pos->piece_on(sq);
      int t = int(type_of(p));
      if (n.op == Op::ColorType && p != Piece::None && color_of(p) == Color::Black) t = -t;
      return Value::numeric(t);
    }
    case Op::MakeSquare: {
      Value f = eval(*n.args[0]), r = eval(*n.args[1]);
      if (f.is_none() || r.is_none()) return Value::none();
      if (f.number < 1 || f.number > 8 || r.number < 1 || r.number > 8) return Value::squares(0);
      return Value::squares(square_bb(make_square(File(f.number - 1), Rank(r.number - 1))));
    }
    case Op::MakeSquareString: {
      Value s = eval(*n.args[0]);
      if (s.is_none()) return s;
      if (s.text.size() != 2 || !is_file(s.text[0]) || !is_rank(s.text[1])) return Value::squares(0);
      return Value::squares(square_bb(square_of(s.text[0], s.text[1])));
    }
    case Op::Light: return Value::squares(eval_set(*n.args[0]) & kLightSquares);
    case Op::Dark: return Value::squares(eval_set(*n.args[0]) & ~kLightSquares);
    case Op::Direction: {
      Value v = eval(*n.args[0]);
      if (v.is_none()) return v;
      return Value::squares(direction_squares(v.set, n.directions, int(n.range.lo), int(n.range.hi)));
    }
    case Op::Between: {
      Bitboard a = eval_set(*n.args[0]), b = eval_set(*n.args[1]);
      Bitboard out = 0;
      for (Bitboard x = a; x;) {
        Square s = pop_lsb(x);
        for (Bitboard y = b; y;) out |= between_bb(s, pop_lsb(y));
      }
      return Value::squares(out);
    }
    case Op::Ray:
    case Op::Xray: {
      std::vector<Bitboard> sets;
      for (const auto& a : n.args) sets.push_back(eval_set(*a));
      if (n.op == Op::Ray) return Value::squares(ray_ends(*pos, sets, n.directions));
      Bitboard out = 0;
      std::vector<Bitboard> s2 = sets;
      s2[0] = sets[0] & (pos->pieces(PieceType::Rook) | pos->pieces(PieceType::Queen));
      out |= ray_ends(*pos, s2, 1 << Up | 1 << Down | 1 << Left | 1 << Right);
      s2[0] = sets[0] & (pos->pieces(PieceType::Bishop) | pos->pieces(PieceType::Queen));
      out |= ray_ends(*pos, s2, 1 << NorthEast | 1 << NorthWest | 1 << SouthEast | 1 << SouthWest);
      return Value::squares(out);
    }
    case Op::Pin: {
      Bitboard from = n.pin.from >= 0 ? eval_set(*n.args[std::size_t(n.pin.from)]) : pos->pieces();
      Bitboard through = n.pin.through >= 0 ? eval_set(*n.args[std::size_t(n.pin.through)]) : pos->pieces();
      Bitboard to = n.pin.to >= 0 ? eval_set(*n.args[std::size_t(n.pin.to)]) : pos->pieces(PieceType::King);
      PinSets p = pins(*pos, from, through, to);
      return Value::squares(n.directions == 1 ? p.pinners : n.directions == 2 ? p.targets : p.pinned);
    }
    case Op::ConnectedPawns: return Value::squares(pawn_structure(*pos, PawnStructure::Connected));
    case Op::IsolatedPawns: return Value::squares(pawn_structure(*pos, PawnStructure::Isolated));
    case Op::DoubledPawns: return Value::squares(pawn_structure(*pos, PawnStructure::Doubled));
    case Op::PassedPawns: return Value::squares(pawn_structure(*pos, PawnStructure::Passed));
    case Op::PromotedPieces: return Value::squares(current().promoted & pos->pieces());
    case Op::FenMatch: {
      for (int sq = 0; sq < 64; ++sq)
        if (!(n.fen_pattern[std::size_t(sq)] >> int(pos->piece_on(Square(sq))) & 1))
          return Value::boolean(false);
      return Value::boolean(true);
    }
    case Op::CurrentFen: return Value::string(fen_text(true));
    case Op::StandardFen: return Value::string(fen_text(false));
    case Op::ZobristKey: return Value::string(key_hex(pos->key()));
    case Op::HalfmoveClock: return Value::numeric(pos->halfmove_clock());
    case Op::MoveNumber: return Value::numeric(pos->fullmove_number());
    case Op::Ply: return Value::numeric(current().ply + (imaginary ? 1 : 0));
    case Op::Move: return eval_move(n);
    case Op::LegalPosition: return Value::boolean(legal_position(*pos));
    default: break;  // the other groups: dispatch never sends them here
  }
  assert(false && "an op of another group");
  return Value::none();
}

}  // namespace gb::cql
