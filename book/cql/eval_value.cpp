// Literals, variables, operators and dictionaries.
#include "book/cql/evaluator_impl.h"

namespace gb::cql {

namespace {

// target op= rhs for the compound assignments (+= on a String appends); false
// on division by zero, which leaves target as it was.
bool compound_assign(AssignOp op, Value& target, const Value& rhs) {
  switch (op) {
    case AssignOp::Add:
      if (target.kind == Value::Kind::String)
        target.text += rhs.text;
      else
        target.number += rhs.number;
      break;
    case AssignOp::Sub: target.number -= rhs.number; break;
    case AssignOp::Mul: target.number *= rhs.number; break;
    case AssignOp::Div:
      if (rhs.number == 0) return false;
      target.number /= rhs.number;
      break;
    case AssignOp::Mod:
      if (rhs.number == 0) return false;
      target.number %= rhs.number;
      break;
    case AssignOp::Or: target.set |= rhs.set; break;
    case AssignOp::And: target.set &= rhs.set; break;
    case AssignOp::Set:
    case AssignOp::SetIfNonEmpty: assert(false && "plain assignment is not compound"); break;
  }
  return true;
}

}  // namespace

Value Evaluator::Impl::eval_assign(const Node& n) {
  Value rhs = eval(*n.args[0]);
  if (rhs.is_none()) return Value::boolean(false);
  Value& var = vars[std::size_t(n.number)];
  switch (n.assign) {
    case AssignOp::Set:
      if (rhs.kind == Value::Kind::Piece && program.variables[std::size_t(n.number)].type == Type::Set)
        return Value::boolean(false);
      var = std::move(rhs);
      return Value::boolean(true);
    case AssignOp::SetIfNonEmpty:
      if (!rhs.set) return Value::boolean(false);
      var = std::move(rhs);
      return Value::boolean(true);
    default: break;
  }
  if (var.is_none()) return Value::boolean(false);
  return Value::boolean(compound_assign(n.assign, var, rhs));
}

Value Evaluator::Impl::eval_value(const Node& n) {
  switch (n.op) {
    case Op::True: return Value::boolean(true);
    case Op::False: return Value::boolean(false);
    case Op::Number: return Value::numeric(n.number);
    case Op::String: return Value::string(n.text);
    case Op::Designator: return Value::squares(designated(*pos, n.piece_mask, n.squares));
    case Op::Var: return vars[std::size_t(n.number)];
    case Op::PieceAsSet: {
      Value v = eval(*n.args[0]);
      if (v.kind == Value::Kind::Set) return v;
      if (v.kind != Value::Kind::Piece) return Value::none();
      return Value::squares(piece_square(v.number));
    }
    case Op::Assign: return eval_assign(n);
    case Op::Unbind: vars[std::size_t(n.number)] = Value::none(); return Value::boolean(true);
    case Op::IsBound: {
      bool bound = n.number >= 0 && !vars[std::size_t(n.number)].is_none();
      return Value::boolean(n.negated ? !bound : bound);
    }
    case Op::Negate: {
      Value v = eval(*n.args[0]);
      if (v.is_none()) return v;
      return Value::numeric(-v.number);
    }
    case Op::Not: return Value::boolean(!matches(*n.args[0]));
    case Op::Cardinality: {
      Value v = eval(*n.args[0]);
      if (v.kind == Value::Kind::Set) return Value::numeric(popcount(v.set));
      if (v.kind == Value::Kind::String) return Value::numeric(utf8_length(v.text));
      return Value::none();
    }
    case Op::Complement: {
      Value v = eval(*n.args[0]);
      if (v.is_none()) return v;
      return Value::squares(~v.set);
    }
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Mod: {
      Value l = eval(*n.args[0]);
      if (l.is_none()) return l;
      Value r = eval(*n.args[1]);
      if (r.is_none()) return r;
      std::int64_t a = l.number, b = r.number;
      switch (n.op) {
        case Op::Add: return Value::numeric(a + b);
        case Op::Sub: return Value::numeric(a - b);
        case Op::Mul: return Value::numeric(a * b);
        case Op::Div: return b ? Value::numeric(a / b) : Value::none();
        default: return b ? Value::numeric(a % b) : Value::none();
      }
    }
    case Op::Concat: {
      Value l = eval(*n.args[0]);
      if (l.is_none()) return l;
      Value r = eval(*n.args[1]);
      if (r.is_none()) return r;
      l.text += r.text;
      return l;
    }
    case Op::Union:
    case Op::Intersect: {
      Value l = eval(*n.args[0]);
      if (l.is_none()) return l;
      Value r = eval(*n.args[1]);
      if (r.is_none()) return r;
      return Value::squares(n.op == Op::Union ? l.set | r.set : l.set & r.set);
    }
    case Op::PositionIntersect: {
      const int l = position_operand(*n.args[0]), r = position_operand(*n.args[1]);
      if (l < 0 || r < 0) return Value::none();
      return Value::squares(
          same_pieces(game->nodes[std::size_t(l)].position, game->nodes[std::size_t(r)].position));
    }
    case Op::InSet: {
      Value l = eval(*n.args[0]);
      if (l.is_none()) return Value::boolean(false);
      Value r = eval(*n.args[1]);
      if (r.is_none()) return Value::boolean(false);
      return Value::boolean((l.set & r.set) == l.set);
    }
    case Op::InString: {
      Value l = eval(*n.args[0]), r = eval(*n.args[1]);
      if (l.is_none() || r.is_none()) return Value::boolean(false);
      return Value::boolean(r.text.find(l.text) != std::string::npos);
    }
    case Op::Compare: {
      Value l = eval(*n.args[0]);
      if (l.is_none()) return l;
      Value r = eval(*n.args[1]);
      if (r.is_none()) return r;
      bool ok;
      if (!compare(l, r, n.compare, ok) || !ok) return Value::none();
      // Section 4: the left operand's value, a set as its cardinality when compared with a number;
      // two equal sets make a Boolean, so `[_a] attackedby K == []` matches when the set is empty.
      if (l.kind == Value::Kind::Set && r.kind == Value::Kind::Set) return Value::boolean(true);
      if (l.kind == Value::Kind::Set) return Value::numeric(popcount(l.set));
      return l;
    }
    case Op::NotEqual: {
      Value l = eval(*n.args[0]);
      Value r = eval(*n.args[1]);
      if (l.is_none() || r.is_none()) return Value::boolean(true);
      bool ok;
      bool eq = compare(l, r, CompareOp::Eq, ok);
      return Value::boolean(!(ok && eq));
    }
    case Op::And: return Value::boolean(matches(*n.args[0]) && matches(*n.args[1]));
    case Op::Or: return Value::boolean(matches(*n.args[0]) || matches(*n.args[1]));
    case Op::Block: {
      if (n.args.empty()) return Value::boolean(true);
      Value v;
      for (const auto& a : n.args) {
        v = eval(*a);
        if (!v.matches()) return Value::none();
      }
      return v;
    }
    case Op::WithPosition: {
      Value p = eval(*n.args[0]);
      if (p.kind != Value::Kind::Position) return Value::none();
      At at(*this, int(p.number), &game->nodes[std::size_t(p.number)].position, false);
      return eval(*n.args[1]);
    }
    case Op::Slice:
    case Op::Index: {
      Value s = eval(*n.args[0]);
      if (s.kind != Value::Kind::String) return Value::none();
      std::size_t k = 1;
      std::optional<std::int64_t> a, b;
      if (n.slice_start) {
        Value v = eval(*n.args[k++]);
        if (v.is_none()) return Value::none();
        a = v.number;
      }
      if (n.slice_end) {
        Value v = eval(*n.args[k++]);
        if (v.is_none()) return Value::none();
        b = v.number;
      }
      std::vector<std::string> cps = utf8_code_points(s.text);
      std::int64_t len = std::int64_t(cps.size());
      if (n.op == Op::Index) {
        std::int64_t i = a.value_or(0);
        if (i < 0) i += len;
        if (i < 0 || i >= len) return Value::none();
        return Value::string(cps[std::size_t(i)]);
      }
      std::int64_t lo = a.value_or(0), hi = b.value_or(len);
      if (lo < 0) lo += len;
      if (hi < 0) hi += len;
      lo = std::clamp<std::int64_t>(lo, 0, len);
      hi = std::clamp<std::int64_t>(hi, 0, len);
      std::string r;
      for (std::int64_t i = lo; i < hi; ++i) r += cps[std::size_t(i)];
      return Value::string(r);
    }
    case Op::DictGet: {
      Value k = eval(*n.args[0]);
      if (k.is_none()) return k;
      auto& d = dicts[n.number];
      auto it = d.find(dict_key(k));
      return it == d.end() ? Value::none() : it->second.second;
    }
    case Op::DictAssign: {
      Value k = eval(*n.args[0]);
      if (k.is_none()) return Value::boolean(false);
      Value v = eval(*n.args[1]);
      if (v.is_none()) return Value::boolean(false);
      auto& d = dicts[n.number];
      std::string key = dict_key(k);
      AssignOp op = n.assign;
      if (op == AssignOp::Set || op == AssignOp::SetIfNonEmpty) {
        if (op == AssignOp::SetIfNonEmpty && !v.set) return Value::boolean(false);
        d[key] = {k, v};
        return Value::boolean(true);
      }
      auto it = d.find(key);
      if (it == d.end())
        it =
            d.emplace(key, std::make_pair(k, default_of(program.variables[std::size_t(n.number)].value_type)))
                .first;
      return Value::boolean(compound_assign(op, it->second.second, v));
    }
    case Op::DictUnbind: {
      auto& d = dicts[n.number];
      if (n.args.empty()) {
        d.clear();
        return Value::boolean(true);
      }
      Value k = eval(*n.args[0]);
      if (!k.is_none()) d.erase(dict_key(k));
      return Value::boolean(true);
    }
    case Op::DictSize: return Value::numeric(std::int64_t(dicts[n.number].size()));
    case Op::DictIter: {
      std::vector<Value> keys;
      for (const auto& [code, kv] : dicts[n.dictionary]) keys.push_back(kv.first);
      Value& var = vars[std::size_t(n.number)];
      for (const Value& k : keys) {
        var = k;
        eval(*n.args[0]);
      }
      var = Value::none();
      return Value::boolean(true);
    }
    default: break;  // the other groups: dispatch never sends them here
  }
  assert(false && "an op of another group");
  return Value::none();
}

}  // namespace gb::cql
