#include "book/cql/parser.h"

#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "book/cql/book_stats.h"
#include "book/cql/lexer.h"
#include "book/cql/parser_impl.h"
#include "book/cql/transform.h"

namespace gb::cql {

namespace {

// The one place a ParseError is filled: the lexer's, the parser's and the
// empty query's errors all say where in the same fields.
ParseError error_at(int line, int column, int offset, int length, std::string message,
                    std::string expected = {}) {
  return ParseError{.line = line,
                    .column = column,
                    .offset = offset,
                    .length = length,
                    .message = std::move(message),
                    .expected = std::move(expected)};
}

// At a token: the caret line marks its text (a string with its quotes).
ParseError error_at(const Token& t, std::string message, std::string expected) {
  const int length =
      t.kind == TokenKind::End
          ? 1
          : int(std::max<std::size_t>(1, t.text.size() + (t.kind == TokenKind::String ? 2 : 0)));
  return error_at(t.line, t.column, t.offset, length, std::move(message), std::move(expected));
}

}  // namespace

std::string ParseError::render(std::string_view source, std::string_view source_name) const {
  std::ostringstream out;
  out << source_name << ':' << line << ':' << column << ": error: " << message << '\n';
  std::size_t start = std::size_t(offset) <= source.size() ? std::size_t(offset) : source.size();
  while (start > 0 && source[start - 1] != '\n') --start;
  std::size_t end = source.find('\n', start);
  if (end == std::string_view::npos) end = source.size();
  out << "  " << source.substr(start, end - start) << '\n';
  out << "  " << std::string(std::size_t(column > 0 ? column - 1 : 0), ' ') << '^'
      << std::string(std::size_t(length > 1 ? length - 1 : 0), '~') << '\n';
  if (!expected.empty()) out << "  expected " << expected << '\n';
  return out.str();
}

Program Parser::run() {
  Program p;
  auto root = make_node(Op::Block, Type::Boolean);
  while (!at_end()) {
    if (is_word("cql") && peek_punct(1, "(")) {
      parse_header(p.header);
      continue;
    }
    if (is_word("function")) {
      parse_function_definition();
      continue;
    }
    root->args.push_back(parse_expr(kFull));
  }
  if (!root->args.empty()) root->type = root->args.back()->type;
  p.root = std::move(root);
  p.variables = vars_;
  p.sorts = sorts_;
  return p;
}

[[noreturn]] void Parser::fail_at(const Token& t, std::string message, std::string expected) {
  throw Failure{error_at(t, std::move(message), std::move(expected))};
}

NodePtr Parser::as_set(NodePtr n) {
  if (n->type == Type::Piece) {
    auto s = make_node(Op::PieceAsSet, Type::Set);
    s->line = n->line;
    s->column = n->column;
    s->args.push_back(std::move(n));
    return s;
  }
  return n;
}

NodePtr Parser::require(NodePtr n, Type t, const Token& where, const char* what) {
  if (t == Type::Set) n = as_set(std::move(n));
  if (n->type != t)
    fail_at(where,
            std::string(what) + " needs a " + std::string(to_string(t)) + ", this is a " +
                std::string(to_string(n->type)),
            "a " + std::string(to_string(t)) + " filter");
  return n;
}

std::optional<Parser::InfixInfo> Parser::infix_info() const {
  const Token& t = tok();
  if (t.kind == TokenKind::Word) {
    if (t.text == "attacks" || t.text == "attackedby") return InfixInfo{level(Prec::Attacks), false};
    if (t.text == "attacked" && is_word("by", 1)) return InfixInfo{level(Prec::Attacks), false};
    if (t.text == "in") return InfixInfo{level(Prec::Membership), false};
    if (t.text == "and") return InfixInfo{level(Prec::And), false};
    if (t.text == "or") return InfixInfo{level(Prec::Or), false};
    return std::nullopt;
  }
  if (t.kind != TokenKind::Punct) return std::nullopt;
  const std::string& p = t.text;
  if (p == ":") return InfixInfo{level(Prec::WithPosition), true};
  if (p == "[") return InfixInfo{level(Prec::Subscript), false};
  if (p == "~~") return InfixInfo{level(Prec::Regex), false};
  if (p == "&") return InfixInfo{level(Prec::Intersect), false};
  if (p == "|") return InfixInfo{level(Prec::Union), false};
  if (p == "*" || p == "/" || p == "%") return InfixInfo{level(Prec::Product), false};
  if (p == "+" || p == "-") return InfixInfo{level(Prec::Sum), false};
  if (p == "==" || p == "!=" || p == "<" || p == "<=" || p == ">" || p == ">=")
    return InfixInfo{level(Prec::Comparison), true};
  return std::nullopt;
}

bool Parser::left_fits(Type t) const {
  const Token& tk = tok();
  const std::string& p = tk.text;
  if (tk.kind == TokenKind::Word) {
    if (p == "attacks" || p == "attackedby" || p == "attacked") return is_set_like(t);
    if (p == "in") return is_set_like(t) || t == Type::String;
    return true;  // and, or
  }
  if (p == ":") return t == Type::Position;
  if (p == "[" || p == "~~") return t == Type::String;
  if (p == "&") return is_set_like(t) || t == Type::Position;
  if (p == "|") return is_set_like(t);
  if (p == "+") return t == Type::Numeric || t == Type::String;
  if (p == "-" || p == "*" || p == "/" || p == "%") return t == Type::Numeric;
  return t == Type::Numeric || is_set_like(t) || t == Type::String || t == Type::Position;  // comparisons
}

NodePtr Parser::parse_expr(int max_level, bool raw_piece) {
  struct Depth {
    int& d;
    explicit Depth(int& x) : d(++x) {}
    ~Depth() { --d; }
  } depth(depth_);
  if (depth_ > 400) fail("the query nests too deeply (more than 400 levels)");
  NodePtr left = parse_primary();
  for (;;) {
    auto info = infix_info();
    if (!info || info->level > max_level) break;
    if (!left_fits(left->type)) break;  // precedence vitiation: let an enclosing production take it
    if (left->type == Type::String && is_punct("+")) {
      if (!parse_string_sum(left)) break;  // not a String sum: an enclosing production takes the '+'
      continue;
    }
    left = parse_infix(std::move(left), *info);
  }
  if (!raw_piece) left = as_set(std::move(left));
  return left;
}

bool Parser::parse_string_sum(NodePtr& left) {
  const Token op = tok();
  const std::size_t saved_pos = pos_, saved_vars = vars_.size(), saved_sorts = sorts_.size();
  auto saved_scopes = scopes_;
  ++pos_;
  const Token& start = tok();
  NodePtr right = parse_expr(below(Prec::Sum));
  if (right->type != Type::String && right->type != Type::None) {
    // Undo the operand: the parse goes on from the '+' as if it had not been read.
    pos_ = saved_pos;
    vars_.resize(saved_vars);
    sorts_.resize(saved_sorts);
    scopes_ = std::move(saved_scopes);
    return false;
  }
  right = require(std::move(right), Type::String, start, "string '+'");
  left = binary(Op::Concat, Type::String, op, std::move(left), std::move(right));
  return true;
}

NodePtr Parser::parse_infix(NodePtr left, InfixInfo info) {
  const Token op = tok();
  ++pos_;
  if (op.kind == TokenKind::Word && op.text == "attacked") ++pos_;  // "attacked by"
  int rhs_level = info.right_assoc ? info.level : info.level - 1;
  const std::string& p = op.text;
  if (op.kind == TokenKind::Word) {
    if (p == "attacks" || p == "attackedby" || p == "attacked") {
      NodePtr r = parse_typed(rhs_level, Type::Set, p.c_str());
      return binary(p == "attacks" ? Op::Attacks : Op::AttackedBy, Type::Set, op, as_set(std::move(left)),
                    std::move(r));
    }
    if (p == "in") {
      if (left->type == Type::String) {
        NodePtr r = parse_typed(rhs_level, Type::String, "in");
        return binary(Op::InString, Type::Boolean, op, std::move(left), std::move(r));
      }
      NodePtr r = parse_typed(rhs_level, Type::Set, "in");
      return binary(Op::InSet, Type::Boolean, op, as_set(std::move(left)), std::move(r));
    }
    NodePtr r = parse_expr(rhs_level);
    return binary(p == "and" ? Op::And : Op::Or, Type::Boolean, op, std::move(left), std::move(r));
  }
  if (p == ":") {
    NodePtr r = parse_expr(rhs_level);
    Type t = r->type;
    return binary(Op::WithPosition, t, op, std::move(left), std::move(r));
  }
  if (p == "[") return parse_subscript(std::move(left), op);
  if (p == "~~") {
    const Token& rstart = tok();
    NodePtr r = parse_typed(rhs_level, Type::String, "'~~'");
    check_literal_regex(*r, rstart);
    return binary(Op::RegexMatch, Type::String, op, std::move(left), std::move(r));
  }
  if (p == "&" || p == "|") {
    if (left->type == Type::Position) {
      if (p == "|") fail_at(op, "'|' needs Set operands");
      NodePtr r = parse_typed(rhs_level, Type::Position, "positional '&'");
      return binary(Op::PositionIntersect, Type::Set, op, std::move(left), std::move(r));
    }
    NodePtr r = parse_typed(rhs_level, Type::Set, p.c_str());
    return binary(p == "&" ? Op::Intersect : Op::Union, Type::Set, op, as_set(std::move(left)), std::move(r));
  }
  if (p == "+" && left->type == Type::String) {
    NodePtr r = parse_typed(rhs_level, Type::String, "string '+'");
    return binary(Op::Concat, Type::String, op, std::move(left), std::move(r));
  }
  if (p == "+" || p == "-" || p == "*" || p == "/" || p == "%") {
    NodePtr r = parse_typed(rhs_level, Type::Numeric, p.c_str());
    Op o = p == "+" ? Op::Add : p == "-" ? Op::Sub : p == "*" ? Op::Mul : p == "/" ? Op::Div : Op::Mod;
    return binary(o, Type::Numeric, op, std::move(left), std::move(r));
  }
  // comparisons
  const Token& rstart = tok();
  NodePtr r = parse_expr(rhs_level);
  Type lt = left->type, rt = r->type;
  bool ok = false;
  if ((lt == Type::Numeric || lt == Type::Set) && (rt == Type::Numeric || rt == Type::Set))
    ok = lt == Type::Numeric || rt == Type::Numeric || p == "==" || p == "!=";
  else if (lt == rt && (lt == Type::String || lt == Type::Position))
    ok = true;
  if (!ok)
    fail_at(rstart,
            "cannot compare a " + std::string(to_string(lt)) + " with a " + std::string(to_string(rt)),
            "a filter of a comparable type");
  if (p == "!=") return binary(Op::NotEqual, Type::Boolean, op, std::move(left), std::move(r));
  // Section 4: a set compared with a number is its cardinality, so the comparison yields a number
  // (`[Qq] == 0` yields 0, which matches); two sets compare for equality alone, as a Boolean.
  Type result = lt == Type::Set && rt == Type::Numeric ? Type::Numeric
                : lt == Type::Set && rt == Type::Set   ? Type::Boolean
                                                       : lt;
  auto n = binary(Op::Compare, result, op, std::move(left), std::move(r));
  n->compare = p == "=="   ? CompareOp::Eq
               : p == "<"  ? CompareOp::Lt
               : p == "<=" ? CompareOp::Le
               : p == ">"  ? CompareOp::Gt
                           : CompareOp::Ge;
  return n;
}

NodePtr Parser::parse_subscript(NodePtr left, const Token& op) {
  // "[" already consumed: [i] or [m:n] with either end optional.
  NodePtr a, b;
  bool slice = false;
  if (!is_punct(":")) a = parse_typed(kFull, Type::Numeric, "an index");
  if (accept_punct(":")) {
    slice = true;
    if (!is_punct("]")) b = parse_typed(kFull, Type::Numeric, "a slice end");
  }
  expect_punct("]");
  auto n = node(slice ? Op::Slice : Op::Index, Type::String, op);
  n->args.push_back(std::move(left));
  n->slice_start = bool(a);
  n->slice_end = bool(b);
  if (a) n->args.push_back(std::move(a));
  if (b) n->args.push_back(std::move(b));
  return n;
}

NodePtr Parser::parse_sequence(const Token& open, std::string_view close) {
  auto n = node(Op::Block, Type::Boolean, open);
  while (!is_punct(close)) {
    if (at_end()) fail("missing '" + std::string(close) + "'", "'" + std::string(close) + "'");
    n->args.push_back(parse_expr(kFull, true));
  }
  ++pos_;
  if (n->args.empty()) return n;
  if (n->args.size() == 1) {
    NodePtr only = std::move(n->args[0]);
    return only;
  }
  for (auto& a : n->args) a = as_set(std::move(a));
  n->type = n->args.back()->type;
  return n;
}

std::optional<std::int64_t> Parser::range_value() {
  if (tok().kind == TokenKind::Number) return toks_[pos_++].number;
  if (is_punct("-") && tok(1).kind == TokenKind::Number) {
    pos_ += 2;
    return -toks_[pos_ - 1].number;
  }
  return std::nullopt;
}

bool Parser::continues_expression() const {
  if (tok().kind != TokenKind::Punct) return false;
  static const std::set<std::string> ops = {
      "-", "+", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", ":", "&", "|"};
  if (!ops.count(tok().text)) return false;
  // "-" directly followed by a number is a negative literal only for the first value.
  return true;
}

std::optional<Range> Parser::parse_range() {
  std::size_t start = pos_;
  auto lo = range_value();
  if (!lo) return std::nullopt;
  if (continues_expression()) {
    pos_ = start;
    return std::nullopt;
  }
  Range r{*lo, *lo};
  if (tok().kind == TokenKind::Number) {
    std::size_t second = pos_++;
    if (continues_expression())
      pos_ = second;
    else
      r.hi = toks_[second].number;
  }
  if (r.hi < r.lo) std::swap(r.lo, r.hi);
  return r;
}

NodePtr Parser::parse_persistent(const Token& at) {
  bool quiet = accept_word("quiet");
  if (tok().kind != TokenKind::Variable) fail("unexpected " + describe(tok()), "a variable");
  const Token var = tok();
  const bool fresh = lookup(var.text) < 0;
  NodePtr n = parse_variable(/*declare_on_compound=*/true);
  if (n->op != Op::Assign) fail_at(at, "persistent needs an assignment, e.g. persistent $n += 1");
  VariableInfo& v = vars_[std::size_t(n->number)];
  if (!fresh && !v.persistent) fail_at(var, "variable " + var.text + " is already an ordinary variable");
  if (v.type != Type::Numeric && v.type != Type::Set && v.type != Type::String)
    fail_at(var, "a persistent variable must be Numeric, Set or String");
  v.persistent = true;
  v.quiet = v.quiet || quiet;
  return n;
}

NodePtr Parser::parse_dictionary(const Token& t) {
  bool quiet = accept_word("quiet");
  if (accept_punct("(")) {
    while (!accept_punct(")")) {
      if (at_end()) fail("missing ')'", "')'");
      ++pos_;  // merge strategies only matter for several threads; dictionaries run on one
    }
  }
  Type key = Type::String, value = Type::String;
  if (tok().kind == TokenKind::Word) {
    key = dictionary_type();
    expect_punct("-->");
    value = dictionary_type();
  }
  if (tok().kind != TokenKind::Variable)
    fail("unexpected " + describe(tok()), "the dictionary's name ($name)");
  const Token var = toks_[pos_++];
  if (lookup(var.text) >= 0) fail_at(var, "variable " + var.text + " is already declared");
  VariableInfo& v = vars_[std::size_t(declare(var.text, Type::Dictionary))];
  v.key_type = key;
  v.value_type = value;
  v.quiet = quiet;
  return node(Op::True, Type::Boolean, t);
}

NodePtr Parser::parse_key_iteration(const Token& t) {
  if (tok().kind != TokenKind::Variable) fail("unexpected " + describe(tok()), "a variable for the key");
  const Token var = toks_[pos_++];
  if (!accept_word("in")) fail("unexpected " + describe(tok()), "'in'");
  if (tok().kind != TokenKind::Variable) fail("unexpected " + describe(tok()), "a dictionary");
  int dict = lookup(tok().text);
  if (dict < 0 || vars_[std::size_t(dict)].type != Type::Dictionary)
    fail(tok().text + " is not a dictionary", "a dictionary");
  ++pos_;
  scopes_.emplace_back();
  auto n = node(Op::DictIter, Type::Boolean, t);
  n->number = declare(var.text, vars_[std::size_t(dict)].key_type);
  n->dictionary = dict;
  n->args.push_back(parse_expr(kFull));
  scopes_.pop_back();
  return n;
}

NodePtr Parser::parse_dictionary_access(int slot, const Token& t) {
  const VariableInfo info = vars_[std::size_t(slot)];
  ++pos_;  // [
  NodePtr key = parse_typed(kFull, info.key_type, "a dictionary key");
  expect_punct("]");
  if (auto assign = assign_op(tok())) {
    const Token op = toks_[pos_++];
    AssignOp aop = *assign;
    NodePtr rhs = parse_typed(aop == AssignOp::Set ? kFull : below(Prec::Function), info.value_type,
                              "a dictionary value");
    if (aop == AssignOp::SetIfNonEmpty && info.value_type != Type::Set)
      fail_at(op, "'=?' needs a Set dictionary");
    auto n = node(Op::DictAssign, Type::Boolean, op);
    n->number = slot;
    n->assign = aop;
    n->args.push_back(std::move(key));
    n->args.push_back(std::move(rhs));
    return n;
  }
  auto n = node(Op::DictGet, info.value_type, t);
  n->number = slot;
  n->args.push_back(std::move(key));
  return n;
}

NodePtr Parser::parse_variable(bool declare_on_compound) {
  const Token t = toks_[pos_++];
  int slot = lookup(t.text);
  if (slot >= 0 && vars_[std::size_t(slot)].type == Type::Dictionary) {
    if (is_punct("[")) return parse_dictionary_access(slot, t);
    return var_node(slot, t);
  }
  if (auto assign = assign_op(tok())) {
    const Token op = toks_[pos_++];
    AssignOp aop = *assign;
    NodePtr rhs = aop == AssignOp::Set ? parse_expr(kFull, true) : parse_expr(below(Prec::Function), true);
    if (rhs->type == Type::Boolean) fail_at(op, "a variable cannot hold a Boolean", "a non-Boolean filter");
    if (aop == AssignOp::SetIfNonEmpty || aop == AssignOp::Or || aop == AssignOp::And)
      rhs = require(std::move(rhs), Type::Set, op, op.text.c_str());
    if (aop == AssignOp::Sub || aop == AssignOp::Mul || aop == AssignOp::Div || aop == AssignOp::Mod)
      rhs = require(std::move(rhs), Type::Numeric, op, op.text.c_str());
    if (slot < 0) {
      if (aop != AssignOp::Set && aop != AssignOp::SetIfNonEmpty && !declare_on_compound)
        fail_at(t, "variable " + t.text + " is not declared", "an assignment with '='");
      slot = declare(t.text, rhs->type);
    } else {
      Type vt = vars_[slot].type;
      if (vt == Type::Piece && aop == AssignOp::Set && rhs->type != Type::Piece) rhs = as_set(std::move(rhs));
      if (vt == Type::Set) rhs = as_set(std::move(rhs));
      if (rhs->type != vt && !(aop == AssignOp::Add && vt == Type::String && rhs->type == Type::String))
        fail_at(op, "variable " + t.text + " is a " + std::string(to_string(vt)) + ", this value is a " +
                        std::string(to_string(rhs->type)));
    }
    auto n = node(Op::Assign, Type::Boolean, op);
    n->number = slot;
    n->assign = aop;
    n->args.push_back(std::move(rhs));
    return n;
  }
  if (slot < 0) fail_at(t, "variable " + t.text + " is used before it is assigned", "an assignment first");
  return var_node(slot, t);
}

void Parser::skip_balanced() {
  // At "{": skip to the matching "}".
  int depth = 0;
  do {
    if (at_end()) fail("missing '}' at the end of the function body", "'}'");
    if (is_punct("{")) ++depth;
    if (is_punct("}")) --depth;
    ++pos_;
  } while (depth > 0);
}

void Parser::parse_function_definition() {
  ++pos_;
  if (tok().kind != TokenKind::Word) fail("unexpected " + describe(tok()), "a function name");
  std::string name = toks_[pos_++].text;
  expect_punct("(");
  Function f;
  while (tok().kind == TokenKind::Variable) f.params.push_back(toks_[pos_++].text);
  expect_punct(")");
  if (!is_punct("{")) fail("unexpected " + describe(tok()), "'{' starting the function body");
  f.body = pos_;
  skip_balanced();
  functions_[name] = f;
}

NodePtr Parser::parse_call(const std::string& name, const Token& at) {
  const Function f = functions_.at(name);
  if (expanding_.count(name)) fail_at(at, "function " + name + " calls itself; CQL functions cannot recurse");
  expect_punct("(");
  std::vector<NodePtr> args;
  while (!accept_punct(")")) {
    if (at_end()) fail("missing ')' after the arguments of " + name, "')'");
    args.push_back(parse_expr(kFull, true));
  }
  if (args.size() != f.params.size())
    fail_at(at, "function " + name + " takes " + std::to_string(f.params.size()) + " arguments, given " +
                    std::to_string(args.size()));
  auto block = node(Op::Block, Type::Boolean, at);
  scopes_.emplace_back();
  for (std::size_t i = 0; i < args.size(); ++i) {
    NodePtr& a = args[i];
    if (a->op == Op::Var && !a->parenthesized) {
      scopes_.back()[f.params[i]] = int(a->number);  // by reference
      continue;
    }
    if (a->type == Type::Boolean) {
      // A Boolean argument cannot be a variable: evaluate it in place of each use? Keep it simple: as 1/0
      // is not CQL; reject clearly.
      fail_at(at, "argument " + std::to_string(i + 1) + " of " + name +
                      " is a Boolean filter; only values can be passed");
    }
    int slot = declare(f.params[i], a->type);
    auto assign = node(Op::Assign, Type::Boolean, at);
    assign->number = slot;
    assign->assign = AssignOp::Set;
    assign->args.push_back(std::move(a));
    block->args.push_back(std::move(assign));
  }
  std::size_t saved = pos_;
  pos_ = f.body;
  expanding_.insert(name);
  const Token open = toks_[pos_++];
  NodePtr body = parse_sequence(open, "}");
  expanding_.erase(name);
  pos_ = saved;
  scopes_.pop_back();
  if (block->args.empty()) return body;
  block->type = body->type;
  block->args.push_back(std::move(body));
  return block;
}

void Parser::parse_header(Header& h) {
  pos_ += 2;
  while (!accept_punct(")")) {
    if (at_end()) fail("missing ')' closing the cql header", "')'");
    const Token t = toks_[pos_++];
    const std::string& w = t.text;
    if (w == "variations")
      h.variations = true;
    else if (w == "quiet")
      h.quiet = true;
    else if (w == "silent")
      h.silent = true;
    else if (w == "input")
      h.input = raw_word_after();
    else if (w == "output")
      h.output = raw_word_after();
    else if (w == "matchstring")
      h.matchstring = expect_string();
    else if (w == "gamenumber" || w == "matchcount" || (w == "sort" && accept_word("matchcount"))) {
      auto r = parse_range();
      if (!r) fail("unexpected " + describe(tok()), "a range (one or two numbers)");
      if (w == "gamenumber")
        h.gamenumber = r;
      else
        h.matchcount = r;
      if (w == "sort") h.sort_matchcount = true;
    } else if (w == "result") {
      h.result = parse_result_text();
    } else {
      fail_at(t, "unknown cql header parameter " + describe(t),
              "variations, input, output, gamenumber, matchcount, sort matchcount, matchstring, result, "
              "quiet or silent");
    }
  }
}

std::vector<NodePtr> Parser::parenthesised_args(const char* what, int min_count, int max_count, bool raw) {
  expect_punct("(");
  std::vector<NodePtr> out;
  while (!accept_punct(")")) {
    if (at_end()) fail(std::string("missing ')' after the arguments of ") + what, "')'");
    out.push_back(parse_expr(kFull, raw));
  }
  if (int(out.size()) < min_count || int(out.size()) > max_count)
    fail_at(toks_[pos_ - 1], std::string(what) + " takes " +
                                 (min_count == max_count ? std::to_string(min_count)
                                                         : std::to_string(min_count) + " or more") +
                                 " arguments");
  return out;
}

NodePtr Parser::parse_primary() {
  const Token t = tok();
  switch (t.kind) {
    case TokenKind::End: fail("unexpected end of the query", "a filter");
    case TokenKind::Number: {
      ++pos_;
      auto n = node(Op::Number, Type::Numeric, t);
      n->number = t.number;
      return n;
    }
    case TokenKind::String: {
      ++pos_;
      auto n = node(Op::String, Type::String, t);
      n->text = t.text;
      return n;
    }
    case TokenKind::Backslash: {
      ++pos_;
      if (t.text == "group" || t.text == "group-index") {
        auto n = node(t.text == "group" ? Op::RegexGroup : Op::RegexGroupIndex,
                      t.text == "group" ? Type::String : Type::Numeric, t);
        n->number = t.number;
        return n;
      }
      auto n = node(Op::String, Type::String, t);
      n->text = t.text;
      return n;
    }
    case TokenKind::Designator: {
      ++pos_;
      auto n = node(Op::Designator, Type::Set, t);
      n->piece_mask = t.piece_mask;
      n->squares = t.squares;
      return n;
    }
    case TokenKind::Variable: return parse_variable();
    case TokenKind::Punct: return parse_punct_primary(t);
    case TokenKind::Word: break;
  }
  ++pos_;
  const std::string& w = t.text;
  static const std::map<std::string, std::pair<Op, Type>> simple = {
      {"check", {Op::Check, Type::Boolean}},
      {"mate", {Op::Mate, Type::Boolean}},
      {"stalemate", {Op::Stalemate, Type::Boolean}},
      {"wtm", {Op::Wtm, Type::Boolean}},
      {"btm", {Op::Btm, Type::Boolean}},
      {"sidetomove", {Op::SideToMove, Type::Numeric}},
      {"connectedpawns", {Op::ConnectedPawns, Type::Set}},
      {"isolatedpawns", {Op::IsolatedPawns, Type::Set}},
      {"doubledpawns", {Op::DoubledPawns, Type::Set}},
      {"passedpawns", {Op::PassedPawns, Type::Set}},
      {"promotedpieces", {Op::PromotedPieces, Type::Set}},
      {"currentfen", {Op::CurrentFen, Type::String}},
      {"standardfen", {Op::StandardFen, Type::String}},
      {"zobristkey", {Op::ZobristKey, Type::String}},
      {"halfmoveclock", {Op::HalfmoveClock, Type::Numeric}},
      {"movenumber", {Op::MoveNumber, Type::Numeric}},
      {"ply", {Op::Ply, Type::Numeric}},
      {"legalposition", {Op::LegalPosition, Type::Boolean}},
      {"year", {Op::Year, Type::Numeric}},
      {"gamenumber", {Op::GameNumber, Type::Numeric}},
      {"initial", {Op::Initial, Type::Boolean}},
      {"terminal", {Op::Terminal, Type::Boolean}},
      {"parent", {Op::Parent, Type::Position}},
      {"mainline", {Op::Mainline, Type::Boolean}},
      {"variation", {Op::Variation, Type::Boolean}},
      {"depth", {Op::Depth, Type::Numeric}},
      {"positionid", {Op::PositionId, Type::Numeric}},
      {"currentposition", {Op::CurrentPosition, Type::Position}},
      {"curpos", {Op::CurrentPosition, Type::Position}},
      {"initialposition", {Op::InitialPosition, Type::Position}},
      {"currenttransform", {Op::CurrentTransform, Type::String}},
      {"virtualmainline", {Op::VirtualMainline, Type::Boolean}},
      {"removecomment", {Op::RemoveComment, Type::Boolean}},
  };
  if (auto it = simple.find(w); it != simple.end()) return node(it->second.first, it->second.second, t);
  // The keywords of each op group, one table each (parse_<group>.cpp).
  if (NodePtr n = parse_value_keyword(t)) return n;
  if (NodePtr n = parse_board_keyword(t)) return n;
  if (NodePtr n = parse_control_keyword(t)) return n;
  if (NodePtr n = parse_metadata_keyword(t)) return n;
  if (NodePtr n = parse_game_tree_keyword(t)) return n;
  if (NodePtr n = parse_line_keyword(t)) return n;
  if (functions_.count(w)) return parse_call(w, t);
  // A bare name that is no filter may be a variable in scope, such as echo's (source target).
  if (lookup(w) >= 0) {
    --pos_;
    return parse_variable();
  }
  if (w == "function") fail_at(t, "a function may only be defined at the top level");
  fail_at(t, "unknown filter '" + w + "'", "a filter (see the filter index of the CQL reference)");
}

NodePtr Parser::parse_punct_primary(const Token& t) {
  const std::string& p = t.text;
  if (p == "(" || p == "{") {
    ++pos_;
    NodePtr n = parse_sequence(t, p == "(" ? ")" : "}");
    n->parenthesized = true;
    return n;
  }
  if (p == "-") {
    ++pos_;
    if (tok().kind == TokenKind::Number && !tok().space_before) {
      auto n = node(Op::Number, Type::Numeric, t);
      n->number = -toks_[pos_++].number;
      return n;
    }
    return unary(Op::Negate, Type::Numeric, t, parse_typed(below(Prec::Prefix), Type::Numeric, "unary '-'"));
  }
  if (p == "#") {
    ++pos_;
    const Token& s = tok();
    NodePtr a = parse_expr(below(Prec::Count));
    if (a->type == Type::Dictionary) {
      auto n = node(Op::DictSize, Type::Numeric, t);
      n->number = a->number;
      return n;
    }
    if (a->type != Type::Set && a->type != Type::String)
      fail_at(s, "'#' needs a Set or a String, this is a " + std::string(to_string(a->type)));
    return unary(Op::Cardinality, Type::Numeric, t, std::move(a));
  }
  if (p == "~") {
    ++pos_;
    return unary(Op::Complement, Type::Set, t, parse_typed(below(Prec::Complement), Type::Set, "'~'"));
  }
  if (p == "`") {
    ++pos_;
    NodePtr n = parse_expr(below(Prec::Prefix), true);
    n->parenthesized = true;
    return n;
  }
  if (p == "[")
    fail_at(t, "'[' does not start a valid piece designator here", "a designator like [Aa] or [a1,h8]");
  fail_at(t, "unexpected " + describe(t), "a filter");
}

namespace {

enum class ValueKeyword : std::uint8_t {
  True,
  False,
  Color,
  Not,
  Persistent,
  Dictionary,
  KeyIteration,
  Unbind,
  IsBound,
};

const std::unordered_map<std::string_view, ValueKeyword> kValueKeywords = {
    {"true", ValueKeyword::True},
    {"false", ValueKeyword::False},
    {"white", ValueKeyword::Color},
    {"black", ValueKeyword::Color},
    {"not", ValueKeyword::Not},
    {"persistent", ValueKeyword::Persistent},
    {"dictionary", ValueKeyword::Dictionary},
    {"key", ValueKeyword::KeyIteration},
    {"string", ValueKeyword::KeyIteration},
    {"unbind", ValueKeyword::Unbind},
    {"isbound", ValueKeyword::IsBound},
    {"isunbound", ValueKeyword::IsBound},
};

}  // namespace

NodePtr Parser::parse_value_keyword(const Token& t) {
  const std::string& w = t.text;
  auto it = kValueKeywords.find(w);
  if (it == kValueKeywords.end()) {
    return nullptr;
  }
  switch (it->second) {
    case ValueKeyword::True: return node(Op::True, Type::Boolean, t);
    case ValueKeyword::False: return node(Op::False, Type::Boolean, t);
    case ValueKeyword::Color: {
      auto n = node(Op::Number, Type::Numeric, t);
      n->number = w == "white" ? 1 : -1;
      n->color_constant = true;
      return n;
    }
    case ValueKeyword::Not: return unary(Op::Not, Type::Boolean, t, parse_expr(below(Prec::Not)));
    case ValueKeyword::Persistent: return parse_persistent(t);
    case ValueKeyword::Dictionary: return parse_dictionary(t);
    case ValueKeyword::KeyIteration: return parse_key_iteration(t);
    case ValueKeyword::Unbind: {
      if (tok().kind != TokenKind::Variable) fail("unexpected " + describe(tok()), "a variable");
      int slot = lookup(tok().text);
      if (slot < 0) fail("variable " + tok().text + " is not declared", "a declared variable");
      ++pos_;
      if (vars_[std::size_t(slot)].type == Type::Dictionary) {
        auto n = node(Op::DictUnbind, Type::Boolean, t);
        n->number = slot;
        if (accept_punct("[")) {
          n->args.push_back(parse_typed(kFull, vars_[std::size_t(slot)].key_type, "a dictionary key"));
          expect_punct("]");
        }
        return n;
      }
      auto n = node(Op::Unbind, Type::Boolean, t);
      n->number = slot;
      return n;
    }
    case ValueKeyword::IsBound: {
      if (tok().kind != TokenKind::Variable && tok().kind != TokenKind::Word)
        fail("unexpected " + describe(tok()), "a variable name");
      int slot = lookup(toks_[pos_++].text);
      auto n = node(Op::IsBound, Type::Boolean, t);
      n->number = slot;
      n->negated = w == "isunbound";
      return n;
    }
  }
  return nullptr;
}

std::variant<Program, ParseError> parse(std::string_view text) {
  std::vector<Token> tokens;
  LexError lex_error;
  if (!lex(text, tokens, lex_error))
    return error_at(lex_error.line, lex_error.column, lex_error.offset, 1, std::move(lex_error.message));
  try {
    Parser parser(std::move(tokens));
    Program p = parser.run();
    if (p.root->args.empty())
      return error_at(1, 1, 0, 1, "the query has no filter", "at least one filter, e.g. 'mate'");
    return p;
  } catch (const Failure& f) {
    return f.error;
  }
}

}  // namespace gb::cql
