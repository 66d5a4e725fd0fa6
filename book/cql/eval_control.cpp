// Control flow, iteration, strings and transforms.
#include "book/cql/evaluator_impl.h"

namespace gb::cql {

Value Evaluator::Impl::eval_transform(const Node& n) {
  int count = 0;
  Bitboard set = 0;
  std::optional<std::int64_t> best;
  for (const auto& variant : n.args) {
    Value v = eval(*variant);
    if (!v.matches()) continue;
    ++count;
    if (v.kind == Value::Kind::Set) set |= v.set;
    if (v.kind == Value::Kind::Numeric) best = best ? std::max(*best, v.number) : v.number;
  }
  if (n.range.present) {  // deprecated range form: the count if within the range
    if (n.range.contains(count)) return Value::numeric(count);
    return Value::none();
  }
  if (n.transform_count) return Value::numeric(count);
  if (n.type == Type::Set) return Value::squares(set);
  if (n.type == Type::Numeric) return best ? Value::numeric(*best) : Value::none();
  return Value::boolean(count > 0);
}

Value Evaluator::Impl::eval_control(const Node& n) {
  switch (n.op) {
    case Op::If: {
      if (matches(*n.args[0])) {
        Value v = eval(*n.args[1]);
        if (n.args.size() == 3 && n.type == n.args[1]->type && n.type != Type::Boolean) return v;
        return Value::boolean(v.matches());
      }
      if (n.args.size() < 3) return Value::boolean(true);
      Value v = eval(*n.args[2]);
      if (n.type == n.args[2]->type && n.type != Type::Boolean) return v;
      return Value::boolean(v.matches());
    }
    case Op::While: {
      for (long guard = 0; guard < 10000000L && matches(*n.args[0]); ++guard) eval(*n.args[1]);
      return Value::boolean(true);
    }
    case Op::Loop: {
      for (long guard = 0; guard < 10000000L && matches(*n.args[0]); ++guard) {
      }
      return Value::boolean(true);
    }
    case Op::SquareIter:
    case Op::PieceIter: {
      Bitboard s = eval_set(*n.args[0]);
      if (n.op == Op::PieceIter) s &= pos->pieces();
      Value& var = vars[std::size_t(n.number)];
      Value saved = var;
      Bitboard matched = 0;
      bool all = true;
      for (Bitboard b = s; b;) {
        Square sq = pop_lsb(b);
        var = n.op == Op::PieceIter ? Value::piece(current().piece_ids[sq]) : Value::squares(square_bb(sq));
        if (matches(*n.args[1]))
          matched |= square_bb(sq);
        else
          all = false;
      }
      var = saved;
      if (n.iterate_all) return Value::boolean(all);
      return Value::squares(matched);
    }
    case Op::PieceAssign: {
      Bitboard s = eval_set(*n.args[0]) & pos->pieces();
      if (!s || more_than_one(s)) {
        vars[std::size_t(n.number)] = Value::none();
        return Value::boolean(false);
      }
      vars[std::size_t(n.number)] = Value::piece(current().piece_ids[lsb(s)]);
      return Value::boolean(true);
    }
    case Op::PieceId: {
      Value v = eval(*n.args[0]);
      if (v.kind == Value::Kind::Piece) return Value::numeric(v.number);
      if (v.kind != Value::Kind::Set || !v.set || more_than_one(v.set)) return Value::none();
      int id = current().piece_ids[lsb(v.set)];
      return id ? Value::numeric(id) : Value::none();
    }
    case Op::Str: return Value::string(args_text(n));
    case Op::Comment: out->comments.push_back({node, args_text(n), false}); return Value::boolean(true);
    case Op::Message: {
      std::string s = args_text(n);
      if (n.quiet) {  // message quiet: the text alone
        out->messages += s + "\n";
      } else {
        const Position& p = game->nodes[std::size_t(node)].position;
        out->messages += "game " + std::to_string(game->number) + ", move " +
                         std::to_string(p.fullmove_number()) +
                         (p.side_to_move() == Color::White ? "(wtm)" : "(btm)") + ": " + s + "\n";
      }
      return Value::boolean(true);
    }
    case Op::Assert: {
      if (matches(*n.args[0])) return Value::boolean(true);
      if (!out->assert_failure)
        out->assert_failure = "assertion failed at line " + std::to_string(n.line) + ", game " +
                              std::to_string(game->number) + ", position " + std::to_string(node) + ": " +
                              pos->fen();
      return Value::boolean(false);
    }
    case Op::Abs: {
      Value v = eval(*n.args[0]);
      if (v.is_none()) return v;
      return Value::numeric(v.number < 0 ? -v.number : v.number);
    }
    case Op::Sqrt: {
      Value v = eval(*n.args[0]);
      if (v.is_none() || v.number < 0) return Value::none();
      auto r = std::int64_t(std::sqrt(double(v.number)));
      while (r * r > v.number) --r;
      while ((r + 1) * (r + 1) <= v.number) ++r;
      return Value::numeric(r);
    }
    case Op::Max:
    case Op::Min: {
      std::optional<std::int64_t> best;
      for (const auto& a : n.args) {
        Value v = eval(*a);
        if (v.is_none()) continue;
        if (!best || (n.op == Op::Max ? v.number > *best : v.number < *best)) best = v.number;
      }
      return best ? Value::numeric(*best) : Value::none();
    }
    case Op::Int: {
      Value v = eval(*n.args[0]);
      if (v.is_none()) return v;
      std::size_t i = 0;
      while (i < v.text.size() && std::isspace(static_cast<unsigned char>(v.text[i]))) ++i;
      bool neg = false;
      if (i < v.text.size() && (v.text[i] == '-' || v.text[i] == '+')) neg = v.text[i++] == '-';
      if (i >= v.text.size() || !std::isdigit(static_cast<unsigned char>(v.text[i]))) return Value::none();
      std::int64_t r = 0;
      while (i < v.text.size() && std::isdigit(static_cast<unsigned char>(v.text[i])))
        r = r * 10 + (v.text[i++] - '0');
      return Value::numeric(neg ? -r : r);
    }
    case Op::Lowercase:
    case Op::Uppercase: {
      Value v = eval(*n.args[0]);
      if (v.is_none()) return v;
      for (char& c : v.text)
        c = char(n.op == Op::Lowercase ? std::tolower(static_cast<unsigned char>(c))
                                       : std::toupper(static_cast<unsigned char>(c)));
      return v;
    }
    case Op::IndexOf: {
      Value a = eval(*n.args[0]), b = eval(*n.args[1]);
      if (a.is_none() || b.is_none()) return Value::none();
      std::size_t at = b.text.find(a.text);
      if (at == std::string::npos) return Value::none();
      return Value::numeric(utf8_length(b.text.substr(0, at)));
    }
    case Op::Transform: return eval_transform(n);
    case Op::CurrentTransform: return Value::string(n.text);
    case Op::Ascii: {
      Value v = eval(*n.args[0]);
      if (v.is_none()) return v;
      if (v.kind == Value::Kind::String) {
        if (v.text.size() != 1 || static_cast<unsigned char>(v.text[0]) > 127) return Value::none();
        return Value::numeric(static_cast<unsigned char>(v.text[0]));
      }
      if (v.number < 0 || v.number > 127) return Value::none();
      return Value::string(std::string(1, char(v.number)));
    }
    case Op::RegexMatch: {
      Value subject = eval(*n.args[0]);
      Value pattern = subject.is_none() ? subject : eval(*n.args[1]);
      groups.clear();  // the group filters read this match, also when it fails
      if (pattern.is_none()) return pattern;
      const std::regex* re = regex(pattern.text);
      if (!re) return Value::none();
      std::smatch m;
      if (!std::regex_search(subject.text, m, *re)) return Value::none();
      groups.assign(m.size(), std::nullopt);
      for (std::size_t i = 0; i < m.size(); ++i)
        if (m[i].matched)
          groups[i] =
              std::make_pair(m[i].str(), utf8_length(subject.text.substr(0, std::size_t(m.position(i)))));
      return Value::string(m[0].str());
    }
    case Op::RegexGroup:
    case Op::RegexGroupIndex: {
      std::size_t i = std::size_t(n.number);
      if (i >= groups.size() || !groups[i]) return Value::none();
      return n.op == Op::RegexGroup ? Value::string(groups[i]->first) : Value::numeric(groups[i]->second);
    }
    case Op::Replace: {
      std::vector<Value> a;
      for (const auto& arg : n.args) {
        a.push_back(eval(*arg));
        if (a.back().is_none()) return Value::none();
      }
      const std::regex* re = regex(a[1].text);
      if (!re) return Value::none();
      std::vector<std::smatch> matches_found;
      for (auto it = std::sregex_iterator(a[0].text.begin(), a[0].text.end(), *re);
           it != std::sregex_iterator(); ++it)
        matches_found.push_back(*it);
      std::int64_t k = a.size() > 3 ? a[3].number : 0, total = std::int64_t(matches_found.size());
      std::int64_t first = 0, last = total;  // replace matches [first, last)
      if (k > 0) last = std::min(total, k);
      if (k < 0) first = std::max<std::int64_t>(0, total + k);
      std::string result;
      std::size_t at = 0;
      for (std::int64_t i = first; i < last; ++i) {
        const std::smatch& m = matches_found[std::size_t(i)];
        std::size_t start = std::size_t(m.position(0));
        result += a[0].text.substr(at, start - at);
        result += m.format(a[2].text);
        at = start + std::size_t(m.length(0));
      }
      result += a[0].text.substr(at);
      return Value::string(std::move(result));
    }
    default: break;  // the other groups: dispatch never sends them here
  }
  assert(false && "an op of another group");
  return Value::none();
}

}  // namespace gb::cql
