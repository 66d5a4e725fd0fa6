// The game tree: positions, find, echo, sort, imagine.
#include "book/cql/evaluator_impl.h"

namespace gb::cql {

Value Evaluator::Impl::eval_find(const Node& n) {
  const Node& body = *n.args[0];
  const bool all = n.find.all, backward = n.find.backward, ranged = n.range.present;
  std::int64_t count = 0;
  auto visit = [&](int id) -> bool {  // true: stop
    if (!visible(id)) return false;
    At at(*this, id, &game->nodes[std::size_t(id)].position, false);
    if (!matches(body)) return false;
    ++count;
    return !all && !ranged;
  };
  int found = -1;
  if (backward) {
    for (int id = node; id >= 0; id = game->nodes[std::size_t(id)].parent)
      if (visit(id)) {
        found = id;
        break;
      }
  } else {
    int end = node + current().subtree_size;
    for (int id = node; id < end; ++id)
      if (visit(id)) {
        found = id;
        break;
      }
  }
  if (all) return count ? Value::numeric(count) : Value::none();
  if (ranged) return n.range.contains(count) ? Value::numeric(count) : Value::none();
  return found >= 0 ? Value::position(found) : Value::none();
}

Value Evaluator::Impl::eval_game_tree(const Node& n) {
  switch (n.op) {
    case Op::Initial: return Value::boolean(node == 0);
    case Op::Terminal: {
      for (int c : current().children)
        if (visible(c)) return Value::boolean(false);
      return Value::boolean(true);
    }
    case Op::Parent: return node == 0 ? Value::none() : Value::position(current().parent);
    case Op::Child: {
      std::int64_t i = 0;
      if (!n.args.empty()) {
        Value v = eval(*n.args[0]);
        if (v.is_none()) return v;
        i = v.number;
      }
      const auto& ch = current().children;
      if (i < 0 || i >= std::int64_t(ch.size()) || !visible(ch[std::size_t(i)])) return Value::none();
      return Value::position(ch[std::size_t(i)]);
    }
    case Op::Mainline: return Value::boolean(current().depth == 0);
    case Op::Variation: return Value::boolean(current().depth > 0);
    case Op::Depth: return Value::numeric(current().depth);
    case Op::PositionById: {
      Value v = eval(*n.args[0]);
      if (v.is_none() || v.number < 0 || v.number >= std::int64_t(game->nodes.size()) ||
          !visible(int(v.number)))
        return Value::none();
      return Value::position(int(v.number));
    }
    case Op::PositionId: return Value::numeric(node);
    case Op::CurrentPosition: return Value::position(node);
    case Op::InitialPosition: return Value::position(0);
    case Op::Find: return eval_find(n);
    case Op::Sort: {
      // Smart Comments: only the comments of the evaluation that gave the best
      // value survive; they are set aside here and added after the game.
      std::size_t mark = out->comments.size();
      Value v = eval(*n.args[0]);
      if (!v.matches()) return v;
      std::size_t k = std::size_t(n.number);
      const SortKey& key = program.sorts[k];
      SortValue sv = v.kind == Value::Kind::String ? SortValue(v.text) : SortValue(*numeric(v));
      auto& best = out->sort_values[k];
      if (sort_comments.size() <= k) sort_comments.resize(k + 1);
      if (!best || (key.minimize ? sv < *best : sv > *best)) {
        best = sv;
        sort_comments[k].assign(out->comments.begin() + std::ptrdiff_t(mark), out->comments.end());
      }
      out->comments.resize(mark);
      return v;
    }
    case Op::ConsecutiveMoves: {
      Value a = eval(*n.args[0]), b = eval(*n.args[1]);
      if (a.kind != Value::Kind::Position || b.kind != Value::Kind::Position) return Value::none();
      int x = int(a.number), y = int(b.number);
      const int lca = common_ancestor(x, y).first;
      if (lca == x || lca == y) return Value::none();
      // Moves from the LCA down to each position, as (from, to, piece) codes.
      auto line_to = [&](int id) {
        std::vector<std::uint32_t> moves;
        for (; id != lca; id = game->nodes[std::size_t(id)].parent) {
          const GameNode& c = game->nodes[std::size_t(id)];
          const Position& before = game->nodes[std::size_t(c.parent)].position;
          std::uint32_t code = c.null_move
                                   ? 0xFFFFu
                                   : std::uint32_t(c.move.from()) << 16 | std::uint32_t(c.move.to()) << 8 |
                                         std::uint32_t(before.piece_on(c.move.from()));
          moves.push_back(code);
        }
        std::reverse(moves.begin(), moves.end());
        return moves;
      };
      std::vector<std::uint32_t> p = line_to(x), q = line_to(y);
      // Longest common run (contiguous).
      std::vector<int> prev(q.size() + 1, 0), cur(q.size() + 1, 0);
      int best = 0;
      for (std::size_t i = 1; i <= p.size(); ++i) {
        for (std::size_t j = 1; j <= q.size(); ++j) {
          cur[j] = p[i - 1] == q[j - 1] ? prev[j - 1] + 1 : 0;
          best = std::max(best, cur[j]);
        }
        std::swap(prev, cur);
      }
      if (n.range.present && !n.range.contains(best)) return Value::none();
      return Value::numeric(best);
    }
    case Op::Imagine: {
      std::array<Piece, 64> board;
      for (int sq = 0; sq < 64; ++sq) board[std::size_t(sq)] = pos->piece_on(Square(sq));
      Color side = pos->side_to_move();
      for (std::size_t i = 0; i + 2 < n.nfa.size(); i += 3) {
        int kind = n.nfa[i], a = n.nfa[i + 1], b = n.nfa[i + 2];
        if (kind == 0) {
          Bitboard squares = eval_set(*n.args[std::size_t(b)]);
          Piece p = Piece(std::countr_zero(unsigned(a)));
          for (Bitboard x = squares; x;) board[std::size_t(pop_lsb(x))] = p;
        } else if (kind == 1) {
          Bitboard x = eval_set(*n.args[std::size_t(a)]), y = eval_set(*n.args[std::size_t(b)]);
          if (!x || !y || more_than_one(x) || more_than_one(y)) continue;
          std::swap(board[std::size_t(lsb(x))], board[std::size_t(lsb(y))]);
        } else {
          side = a == 0 ? Color::Black : a == 1 ? Color::White : ~side;
        }
      }
      std::optional<Position> imagined = position_from_board(board, side, *pos);
      if (!imagined)
        return Value::none();  // not a position the chess core can hold (e.g. a king in check off turn)
      At at(*this, node, &*imagined, true);
      return eval(*n.args.back());
    }
    case Op::Echo: {
      Value& source = vars[std::size_t(n.echo.source)];
      Value& target = vars[std::size_t(n.echo.target)];
      source = Value::position(node);
      std::optional<std::int64_t> best;
      bool any = false;
      for (int id = 0; id < int(game->nodes.size()); ++id) {
        if (!visible(id) || (id == node && !n.echo.in_all)) continue;
        target = Value::position(id);
        At at(*this, id, &game->nodes[std::size_t(id)].position, false);
        Value v = eval(*n.args[0]);
        if (!v.matches()) continue;
        any = true;
        if (v.kind == Value::Kind::Numeric) best = best ? std::max(*best, v.number) : v.number;
      }
      if (n.type == Type::Numeric) return best ? Value::numeric(*best) : Value::none();
      return Value::boolean(any);
    }
    case Op::VirtualMainline: {
      for (int id = node; id > 0;) {
        const GameNode& c = game->nodes[std::size_t(id)];
        const GameNode& p = game->nodes[std::size_t(c.parent)];
        if (p.children[0] != id && p.position.side_to_move() == Color::White) return Value::boolean(false);
        id = c.parent;
      }
      return Value::boolean(true);
    }
    case Op::OriginalComment: {
      const auto& cs = current().comments;
      if (cs.empty()) return Value::none();
      std::string s;
      for (std::size_t i = 0; i < cs.size(); ++i) s += (i ? "\n" : "") + cs[i];
      return Value::string(std::move(s));
    }
    case Op::HasAnnotation: {
      const auto& nags = current().nags;
      return Value::boolean(std::find(nags.begin(), nags.end(), int(n.number)) != nags.end());
    }
    case Op::RemoveComment: out->removed_comments.push_back(node); return Value::boolean(true);
    case Op::Distance:
    case Op::Lca: {
      Value a = eval(*n.args[0]), b = eval(*n.args[1]);
      if (a.is_none() || b.is_none()) return Value::none();
      auto [lca, distance] = common_ancestor(int(a.number), int(b.number));
      return n.op == Op::Lca ? Value::position(lca) : Value::numeric(distance);
    }
    default: break;  // the other groups: dispatch never sends them here
  }
  assert(false && "an op of another group");
  return Value::none();
}

}  // namespace gb::cql
