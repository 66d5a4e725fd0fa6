// Control flow, strings and transforms: their keywords and parsing.
#include "book/cql/parser_impl.h"

namespace gb::cql {

namespace {

enum class ControlKeyword : std::uint8_t {
  Abs,
  Sqrt,
  Int,
  Lowercase,
  Uppercase,
  Assert,
  NoTransform,
  MaxMin,
  Replace,
  IndexOf,
  If,
  While,
  Loop,
  Square,
  Piece,
  Str,
  Comment,
  Message,
  Ascii,
  NotImplemented,
};

const std::unordered_map<std::string_view, ControlKeyword> kControlKeywords = {
    {"abs", ControlKeyword::Abs},
    {"sqrt", ControlKeyword::Sqrt},
    {"int", ControlKeyword::Int},
    {"lowercase", ControlKeyword::Lowercase},
    {"uppercase", ControlKeyword::Uppercase},
    {"assert", ControlKeyword::Assert},
    {"notransform", ControlKeyword::NoTransform},
    {"max", ControlKeyword::MaxMin},
    {"min", ControlKeyword::MaxMin},
    {"replace", ControlKeyword::Replace},
    {"indexof", ControlKeyword::IndexOf},
    {"if", ControlKeyword::If},
    {"while", ControlKeyword::While},
    {"loop", ControlKeyword::Loop},
    {"square", ControlKeyword::Square},
    {"piece", ControlKeyword::Piece},
    {"str", ControlKeyword::Str},
    {"comment", ControlKeyword::Comment},
    {"message", ControlKeyword::Message},
    {"ascii", ControlKeyword::Ascii},
    {"readfile", ControlKeyword::NotImplemented},
    {"writefile", ControlKeyword::NotImplemented},
    {"saveposition", ControlKeyword::NotImplemented},
    {"currentmutation", ControlKeyword::NotImplemented},
    {"reachableposition", ControlKeyword::NotImplemented},
    {"cqlbegin", ControlKeyword::NotImplemented},
    {"cqlend", ControlKeyword::NotImplemented},
    {"import", ControlKeyword::NotImplemented},
    {"commandpipe", ControlKeyword::NotImplemented},
    {"variant", ControlKeyword::NotImplemented},
    {"variantwin", ControlKeyword::NotImplemented},
    {"variantloss", ControlKeyword::NotImplemented},
    {"variantdraw", ControlKeyword::NotImplemented},
    {"variantend", ControlKeyword::NotImplemented},
    {"hhdb", ControlKeyword::NotImplemented},
};

}  // namespace

NodePtr Parser::parse_control_keyword(const Token& t) {
  const std::string& w = t.text;
  auto it = kControlKeywords.find(w);
  if (it == kControlKeywords.end()) {
    std::vector<Transform> tr;
    if (transforms_of(w, tr)) return parse_transform(t);
    return nullptr;
  }
  switch (it->second) {
    case ControlKeyword::Abs:
      return unary(Op::Abs, Type::Numeric, t, parse_typed(below(Prec::Function), Type::Numeric, "abs"));
    case ControlKeyword::Sqrt:
      return unary(Op::Sqrt, Type::Numeric, t, parse_typed(below(Prec::Function), Type::Numeric, "sqrt"));
    case ControlKeyword::Int:
      return unary(Op::Int, Type::Numeric, t, parse_typed(below(Prec::Count), Type::String, "int"));
    case ControlKeyword::Lowercase:
      return unary(Op::Lowercase, Type::String, t,
                   parse_typed(below(Prec::PieceFunction), Type::String, "lowercase"));
    case ControlKeyword::Uppercase:
      return unary(Op::Uppercase, Type::String, t,
                   parse_typed(below(Prec::PieceFunction), Type::String, "uppercase"));
    case ControlKeyword::Assert: return unary(Op::Assert, Type::Boolean, t, parse_expr(kFull));
    case ControlKeyword::NoTransform: {
      auto n = node(Op::Block, Type::Boolean, t);
      n->no_transform = true;
      n->args.push_back(parse_expr(kFull));
      n->type = n->args[0]->type;
      return n;
    }
    case ControlKeyword::MaxMin:
      return typed_call(w == "max" ? Op::Max : Op::Min, Type::Numeric, t, w.c_str(), Type::Numeric, 2, 1000);
    case ControlKeyword::Replace: {
      auto args = parenthesised_args("replace", 3, 4);
      auto n = node(Op::Replace, Type::String, t);
      for (std::size_t i = 0; i < args.size(); ++i)
        n->args.push_back(require(std::move(args[i]), i == 3 ? Type::Numeric : Type::String, t, "replace"));
      check_literal_regex(*n->args[1], t);
      return n;
    }
    case ControlKeyword::IndexOf:
      return typed_call(Op::IndexOf, Type::Numeric, t, "indexof", Type::String, 2, 2);
    case ControlKeyword::If: {
      auto n = node(Op::If, Type::Boolean, t);
      n->args.push_back(parse_expr(kFull));
      accept_word("then");
      n->args.push_back(parse_expr(kFull));
      if (accept_word("else")) {
        n->args.push_back(parse_expr(kFull));
        if (n->args[1]->type == n->args[2]->type) n->type = n->args[1]->type;
      }
      return n;
    }
    case ControlKeyword::While: {
      auto n = node(Op::While, Type::Boolean, t);
      expect_punct("(");
      scopes_.emplace_back();
      n->args.push_back(parse_expr(kFull));
      if (n->args[0]->op == Op::RegexMatch)
        fail_at(t, "the regex iteration form of 'while' (a '~~' condition) is not implemented yet");
      expect_punct(")");
      n->args.push_back(parse_expr(kFull));
      scopes_.pop_back();
      return n;
    }
    case ControlKeyword::Loop: {
      scopes_.emplace_back();
      auto n = unary(Op::Loop, Type::Boolean, t, parse_expr(kFull));
      scopes_.pop_back();
      return n;
    }
    case ControlKeyword::Square: return parse_iteration(t, false);
    case ControlKeyword::Piece: return parse_iteration(t, true);
    case ControlKeyword::Str: return parse_str_like(t, Op::Str);
    case ControlKeyword::Comment: return parse_str_like(t, Op::Comment);
    case ControlKeyword::Message: return parse_message(t);
    case ControlKeyword::Ascii: {
      const Token& s = tok();
      NodePtr a = parse_expr(below(Prec::Function));
      if (a->type != Type::String && a->type != Type::Numeric)
        fail_at(s, "ascii needs a String or a Numeric, this is a " + std::string(to_string(a->type)));
      Type result = a->type == Type::String ? Type::Numeric : Type::String;
      return unary(Op::Ascii, result, t, std::move(a));
    }
    case ControlKeyword::NotImplemented:
      fail_at(t, "filter '" + w + "' is not implemented in graphbook's CQL engine yet");
  }
  return nullptr;
}

NodePtr Parser::parse_transform(const Token& t) {
  std::vector<Transform> variants;
  transforms_of(t.text, variants);
  bool count = accept_word("count");
  bool restrict_shift = accept_word("restrict");
  if (restrict_shift && t.text.rfind("shift", 0) != 0)
    fail_at(toks_[pos_ - 1], "restrict is only for shift transforms");
  auto range = parse_range();
  NodePtr body = parse_expr(kFull, false);
  auto n = node(Op::Transform, Type::Boolean, t);
  n->transform_count = count;
  if (range) n->range = {true, range->lo, range->hi};
  std::set<std::string> seen;
  const std::string too_many = t.text + " copies its body for each of its " +
                               std::to_string(variants.size()) + " variants, and nested transforms multiply";
  for (Transform& tr : variants) {
    tr.restrict_shift = restrict_shift;
    NodePtr copy = body->clone();
    if (!apply_transform(*copy, tr)) continue;
    std::string key = fingerprint(*copy);
    if (!seen.insert(key).second) continue;
    count_made(node_count(*copy), t, too_many);
    n->args.push_back(std::move(copy));
  }
  if (count || range)
    n->type = Type::Numeric;
  else if (body->type == Type::Set || body->type == Type::Numeric)
    n->type = body->type;
  return n;
}

NodePtr Parser::parse_iteration(const Token& t, bool piece) {
  bool all = accept_word("all");
  if (tok().kind != TokenKind::Variable) fail("unexpected " + describe(tok()), "a variable name");
  const Token var = toks_[pos_++];
  if (piece && !all && is_punct("=")) {
    // piece $x = Set: a piece variable.
    ++pos_;
    NodePtr set = parse_typed(below(Prec::PieceFunction), Type::Set, "piece");
    int slot = lookup(var.text);
    if (slot < 0)
      slot = declare(var.text, Type::Piece);
    else if (vars_[slot].type != Type::Piece)
      fail_at(var, "variable " + var.text + " is not a piece variable");
    auto n = node(Op::PieceAssign, Type::Boolean, t);
    n->number = slot;
    n->args.push_back(std::move(set));
    return n;
  }
  if (!accept_word("in")) fail("unexpected " + describe(tok()), "'in'");
  NodePtr set = parse_typed(below(Prec::PieceFunction), Type::Set, piece ? "piece" : "square");
  scopes_.emplace_back();
  int slot = declare(var.text, piece ? Type::Piece : Type::Set);
  NodePtr body = parse_expr(kFull);
  scopes_.pop_back();
  auto n = node(piece ? Op::PieceIter : Op::SquareIter, all ? Type::Boolean : Type::Set, t);
  n->number = slot;
  n->iterate_all = all;
  n->args.push_back(std::move(set));
  n->args.push_back(std::move(body));
  return n;
}

NodePtr Parser::parse_message(const Token& t) {
  bool quiet = accept_word("quiet");
  NodePtr n = parse_str_like(t, Op::Message);
  n->quiet = quiet;
  return n;
}

NodePtr Parser::parse_str_like(const Token& t, Op op) {
  auto n = node(op, op == Op::Str ? Type::String : Type::Boolean, t);
  if (is_punct("(") && (op == Op::Comment || op == Op::Message)) {
    // Section 7: an argument that starts with a tag filter followed by a string prints the tag then
    // the string (message(event "X")); `event "X" is the substring test.
    expect_punct("(");
    const std::size_t outer = message_arg_start_;
    while (!accept_punct(")")) {
      if (at_end()) fail(std::string("missing ')' after the arguments of ") + t.text, "')'");
      message_arg_start_ = pos_;
      n->args.push_back(parse_expr(kFull, true));
    }
    message_arg_start_ = outer;
  } else if (is_punct("(")) {
    n->args = parenthesised_args(t.text.c_str(), 1, 1000, true);
  } else {
    n->args.push_back(parse_expr(kFull, true));
  }
  return n;
}

void Parser::check_literal_regex(const Node& n, const Token& at) {
  if (n.op != Op::String) return;
  try {
    std::regex re(n.text, std::regex::ECMAScript | std::regex::multiline);
  } catch (const std::regex_error& e) {
    fail_at(at, "malformed regular expression \"" + n.text + "\": " + e.what());
  }
}

}  // namespace gb::cql
