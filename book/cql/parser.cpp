#include "book/cql/parser.h"

#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "book/cql/book_stats.h"
#include "book/cql/lexer.h"
#include "book/cql/transform.h"

namespace gb::cql {

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

namespace {

// The precedence levels of section 28 of the reference; a lower level binds
// tighter. parse_expr(level) takes the infix filters of that level and of
// tighter ones; a prefix filter of level L parses its operand at below(L).
enum class Prec : int {
  Prefix = 1,          // unary '-', '`'
  WithPosition = 2,    // ':'
  Subscript = 3,       // '[]'
  Regex = 4,           // '~~'
  LightDark = 5,       // light, dark, the direction filters
  MoveParameter = 6,   // the Set parameters of move and pin, move's ':'
  Attacks = 7,         // attacks, attackedby
  Complement = 8,      // '~'
  Intersect = 9,       // '&'
  Union = 10,          // '|'
  PieceFunction = 11,  // power colortype type file rank lowercase uppercase pieceid
  Product = 12,        // '*' '/' '%'
  Sum = 13,            // '+' '-'
  Count = 14,          // '#', int
  Function = 15,       // abs sqrt ascii position, compound assignment
  Comparison = 16,     // == != < <= > >=
  Membership = 17,     // in
  Not = 18,
  And = 19,
  Or = 20,
};
constexpr int level(Prec p) { return int(p); }
constexpr int below(Prec p) { return int(p) - 1; }
constexpr int kFull = level(Prec::Or);  // parse_expr level that takes every infix filter

struct Failure {
  ParseError error;
};

bool is_set_like(Type t) { return t == Type::Set || t == Type::Piece; }

// The assignment operators of variables and dictionary entries.
std::optional<AssignOp> assign_op(const Token& t) {
  static const std::map<std::string, AssignOp> ops = {
      {"=", AssignOp::Set},  {"=?", AssignOp::SetIfNonEmpty}, {"+=", AssignOp::Add}, {"-=", AssignOp::Sub},
      {"*=", AssignOp::Mul}, {"/=", AssignOp::Div},           {"%=", AssignOp::Mod}, {"|=", AssignOp::Or},
      {"&=", AssignOp::And}};
  if (t.kind != TokenKind::Punct) return std::nullopt;
  auto it = ops.find(t.text);
  if (it == ops.end()) return std::nullopt;
  return it->second;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) { scopes_.emplace_back(); }

  Program run() {
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

 private:
  // ---- tokens
  const Token& tok(int ahead = 0) const {
    std::size_t i = pos_ + std::size_t(ahead);
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  bool at_end() const { return tok().kind == TokenKind::End; }
  bool is_word(std::string_view w, int ahead = 0) const {
    return tok(ahead).kind == TokenKind::Word && tok(ahead).text == w;
  }
  bool peek_punct(int ahead, std::string_view p) const {
    return tok(ahead).kind == TokenKind::Punct && tok(ahead).text == p;
  }
  bool is_punct(std::string_view p) const { return peek_punct(0, p); }
  bool accept_word(std::string_view w) {
    if (!is_word(w)) return false;
    ++pos_;
    return true;
  }
  bool accept_punct(std::string_view p) {
    if (!is_punct(p)) return false;
    ++pos_;
    return true;
  }
  [[noreturn]] void fail_at(const Token& t, std::string message, std::string expected = {}) {
    ParseError e;
    e.line = t.line;
    e.column = t.column;
    e.offset = t.offset;
    e.length = t.kind == TokenKind::End
                   ? 1
                   : int(std::max<std::size_t>(1, t.text.size() + (t.kind == TokenKind::String ? 2 : 0)));
    e.message = std::move(message);
    e.expected = std::move(expected);
    throw Failure{e};
  }
  [[noreturn]] void fail(std::string message, std::string expected = {}) {
    fail_at(tok(), std::move(message), std::move(expected));
  }
  std::string describe(const Token& t) const {
    switch (t.kind) {
      case TokenKind::End: return "end of the query";  // "unexpected end of the query"
      case TokenKind::String: return "string \"" + t.text + "\"";
      default: return "'" + t.text + "'";
    }
  }
  void expect_punct(std::string_view p) {
    if (!accept_punct(p)) fail("unexpected " + describe(tok()), "'" + std::string(p) + "'");
  }
  std::string expect_string() {
    if (tok().kind != TokenKind::String) fail("unexpected " + describe(tok()), "a string literal");
    return toks_[pos_++].text;
  }

  NodePtr node(Op op, Type type, const Token& at) {
    auto n = make_node(op, type);
    n->line = at.line;
    n->column = at.column;
    return n;
  }

  // ---- typing helpers
  NodePtr as_set(NodePtr n) {
    if (n->type == Type::Piece) {
      auto s = make_node(Op::PieceAsSet, Type::Set);
      s->line = n->line;
      s->column = n->column;
      s->args.push_back(std::move(n));
      return s;
    }
    return n;
  }
  NodePtr require(NodePtr n, Type t, const Token& where, const char* what) {
    if (t == Type::Set) n = as_set(std::move(n));
    if (n->type != t)
      fail_at(where,
              std::string(what) + " needs a " + std::string(to_string(t)) + ", this is a " +
                  std::string(to_string(n->type)),
              "a " + std::string(to_string(t)) + " filter");
    return n;
  }
  NodePtr parse_typed(int max_level, Type t, const char* what) {
    const Token& start = tok();
    return require(parse_expr(max_level), t, start, what);
  }

  // ---- expressions
  struct InfixInfo {
    int level;
    bool right_assoc;
  };

  std::optional<InfixInfo> infix_info() const {
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

  // Whether the infix filter at the cursor accepts a left operand of type t.
  bool left_fits(Type t) const {
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

  NodePtr parse_expr(int max_level, bool raw_piece = false) {
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
      if (left->type == Type::String && is_punct("+") && right_type_of_plus() != Type::String) break;
      left = parse_infix(std::move(left), *info);
    }
    if (!raw_piece) left = as_set(std::move(left));
    return left;
  }

  // The type of the operand after a '+' (parsed speculatively, then undone):
  // "24" + 1 is not a String sum, so int "24" + 1 widens to (int "24") + 1.
  Type right_type_of_plus() {
    std::size_t saved_pos = pos_, saved_vars = vars_.size(), saved_sorts = sorts_.size();
    auto saved_scopes = scopes_;
    Type t = Type::None;
    ++pos_;
    try {
      t = parse_expr(below(Prec::Sum))->type;
    } catch (const Failure&) {
    }
    pos_ = saved_pos;
    vars_.resize(saved_vars);
    sorts_.resize(saved_sorts);
    scopes_ = std::move(saved_scopes);
    return t == Type::None ? Type::String : t;
  }

  NodePtr binary(Op op, Type type, const Token& at, NodePtr l, NodePtr r) {
    auto n = node(op, type, at);
    n->args.push_back(std::move(l));
    n->args.push_back(std::move(r));
    return n;
  }

  NodePtr parse_infix(NodePtr left, InfixInfo info) {
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
      return binary(p == "&" ? Op::Intersect : Op::Union, Type::Set, op, as_set(std::move(left)),
                    std::move(r));
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
    n->number = p == "=="   ? int(CompareOp::Eq)
                : p == "<"  ? int(CompareOp::Lt)
                : p == "<=" ? int(CompareOp::Le)
                : p == ">"  ? int(CompareOp::Gt)
                            : int(CompareOp::Ge);
    return n;
  }

  NodePtr parse_subscript(NodePtr left, const Token& op) {
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
    n->flag = bool(a);
    n->flag2 = bool(b);
    if (a) n->args.push_back(std::move(a));
    if (b) n->args.push_back(std::move(b));
    return n;
  }

  // A compound filter: filters until the closing bracket, implicitly ANDed.
  NodePtr parse_sequence(const Token& open, std::string_view close) {
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

  std::optional<std::int64_t> range_value() {
    if (tok().kind == TokenKind::Number) return toks_[pos_++].number;
    if (is_punct("-") && tok(1).kind == TokenKind::Number) {
      pos_ += 2;
      return -toks_[pos_ - 1].number;
    }
    return std::nullopt;
  }
  // A value followed by an arithmetic or comparison operator belongs to the
  // filter body, not to the range: "find 1 10 -3" is range 1, body 10 - 3.
  bool continues_expression() const {
    if (tok().kind != TokenKind::Punct) return false;
    static const std::set<std::string> ops = {
        "-", "+", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", ":", "&", "|"};
    if (!ops.count(tok().text)) return false;
    // "-" directly followed by a number is a negative literal only for the first value.
    return true;
  }
  std::optional<Range> parse_range() {
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

  // ---- variables
  int lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return -1;
  }
  int declare(const std::string& name, Type type) {
    vars_.push_back({name, type});
    int slot = int(vars_.size()) - 1;
    scopes_.back()[name] = slot;
    return slot;
  }
  NodePtr var_node(int slot, const Token& at) {
    auto n = node(Op::Var, vars_[slot].type, at);
    n->number = slot;
    n->text = vars_[slot].name;
    return n;
  }

  // persistent [quiet] $x = / op= value: a variable that survives from game to game.
  NodePtr parse_persistent(const Token& at) {
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

  Type dictionary_type() {
    if (accept_word("str") || accept_word("string")) return Type::String;
    if (accept_word("int")) return Type::Numeric;
    if (accept_word("set")) return Type::Set;
    fail("unexpected " + describe(tok()), "a dictionary type: str, int or set");
  }

  // dictionary [quiet] [(strategy)] [KEY --> VALUE] $name
  NodePtr parse_dictionary(const Token& t) {
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

  NodePtr parse_key_iteration(const Token& t) {
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
    n->number2 = dict;
    n->args.push_back(parse_expr(kFull));
    scopes_.pop_back();
    return n;
  }

  NodePtr parse_dictionary_access(int slot, const Token& t) {
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
      n->number2 = int(aop);
      n->args.push_back(std::move(key));
      n->args.push_back(std::move(rhs));
      return n;
    }
    auto n = node(Op::DictGet, info.value_type, t);
    n->number = slot;
    n->args.push_back(std::move(key));
    return n;
  }

  NodePtr parse_variable(bool declare_on_compound = false) {
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
        if (vt == Type::Piece && aop == AssignOp::Set && rhs->type != Type::Piece)
          rhs = as_set(std::move(rhs));
        if (vt == Type::Set) rhs = as_set(std::move(rhs));
        if (rhs->type != vt && !(aop == AssignOp::Add && vt == Type::String && rhs->type == Type::String))
          fail_at(op, "variable " + t.text + " is a " + std::string(to_string(vt)) + ", this value is a " +
                          std::string(to_string(rhs->type)));
      }
      auto n = node(Op::Assign, Type::Boolean, op);
      n->number = slot;
      n->number2 = int(aop);
      n->args.push_back(std::move(rhs));
      return n;
    }
    if (slot < 0) fail_at(t, "variable " + t.text + " is used before it is assigned", "an assignment first");
    return var_node(slot, t);
  }

  // ---- functions
  struct Function {
    std::vector<std::string> params;
    std::size_t body = 0;  // token index of the body's "{"
  };

  void skip_balanced() {
    // At "{": skip to the matching "}".
    int depth = 0;
    do {
      if (at_end()) fail("missing '}' at the end of the function body", "'}'");
      if (is_punct("{")) ++depth;
      if (is_punct("}")) --depth;
      ++pos_;
    } while (depth > 0);
  }

  void parse_function_definition() {
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

  NodePtr parse_call(const std::string& name, const Token& at) {
    const Function f = functions_.at(name);
    if (expanding_.count(name))
      fail_at(at, "function " + name + " calls itself; CQL functions cannot recurse");
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
      assign->number2 = int(AssignOp::Set);
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

  // ---- the cql() header
  // A file name of the header: a string, or the word the lexer read up to
  // white space or ')'.
  std::string raw_word_after() {
    const Token& t = tok();
    if (t.kind != TokenKind::String && t.kind != TokenKind::Word)
      fail("unexpected " + describe(t), "a file name");
    return toks_[pos_++].text;
  }

  void parse_header(Header& h) {
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

  std::string parse_result_text() {
    if (tok().kind == TokenKind::String) {
      std::string s = toks_[pos_++].text;
      if (s != "1-0" && s != "0-1" && s != "1/2-1/2" && s != "*")
        fail_at(toks_[pos_ - 1], "not a game result", "1-0, 0-1, 1/2-1/2 or *");
      return s;
    }
    if (accept_punct("*")) return "*";
    auto num = [&](int v) { return tok().kind == TokenKind::Number && tok().number == v; };
    if (num(1) && peek_punct(1, "-") && tok(2).kind == TokenKind::Number && tok(2).number == 0) {
      pos_ += 3;
      return "1-0";
    }
    if (num(0) && peek_punct(1, "-") && tok(2).kind == TokenKind::Number && tok(2).number == 1) {
      pos_ += 3;
      return "0-1";
    }
    if (num(1) && peek_punct(1, "/") && tok(2).kind == TokenKind::Number && tok(2).number == 2 &&
        peek_punct(3, "-") && tok(4).kind == TokenKind::Number && tok(4).number == 1 && peek_punct(5, "/") &&
        tok(6).kind == TokenKind::Number && tok(6).number == 2) {
      pos_ += 7;
      return "1/2-1/2";
    }
    fail("unexpected " + describe(tok()), "a result: 1-0, 0-1, 1/2-1/2 or *");
  }

  // ---- primaries
  NodePtr unary(Op op, Type type, const Token& at, NodePtr arg) {
    auto n = node(op, type, at);
    n->args.push_back(std::move(arg));
    return n;
  }

  std::vector<NodePtr> parenthesised_args(const char* what, int min_count, int max_count, bool raw = false) {
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

  // A function whose arguments all have one type: what(arg, ...).
  NodePtr typed_call(Op op, Type type, const Token& t, const char* what, Type arg_type, int min_count,
                     int max_count) {
    auto n = node(op, type, t);
    for (auto& a : parenthesised_args(what, min_count, max_count))
      n->args.push_back(require(std::move(a), arg_type, t, what));
    return n;
  }

  NodePtr parse_direction(const Token& t, std::uint8_t dirs) {
    auto n = node(Op::Direction, Type::Set, t);
    n->directions = dirs;
    n->number = 1;
    n->number2 = 7;
    if (auto r = parse_range()) {
      n->number = r->lo;
      n->number2 = r->hi;
    }
    n->args.push_back(parse_typed(below(Prec::LightDark), Type::Set, t.text.c_str()));
    return n;
  }

  std::optional<std::uint8_t> direction_word(const std::string& w) const {
    static const std::map<std::string, std::uint8_t> dirs = {
        {"up", 1 << Up},
        {"down", 1 << Down},
        {"left", 1 << Left},
        {"right", 1 << Right},
        {"northeast", 1 << NorthEast},
        {"northwest", 1 << NorthWest},
        {"southeast", 1 << SouthEast},
        {"southwest", 1 << SouthWest},
        {"vertical", 1 << Up | 1 << Down},
        {"horizontal", 1 << Left | 1 << Right},
        {"orthogonal", 1 << Up | 1 << Down | 1 << Left | 1 << Right},
        {"maindiagonal", 1 << NorthEast | 1 << SouthWest},
        {"offdiagonal", 1 << NorthWest | 1 << SouthEast},
        {"diagonal", 1 << NorthEast | 1 << SouthWest | 1 << NorthWest | 1 << SouthEast},
        {"anydirection", 0xFF},
    };
    auto it = dirs.find(w);
    if (it == dirs.end()) return std::nullopt;
    return it->second;
  }

  NodePtr parse_move(const Token& t) {
    auto n = node(Op::Move, Type::Boolean, t);
    MoveSpec& m = n->move;
    std::set<std::string> seen;
    bool first = true;
    bool have_mode = false;
    auto once = [&](const Token& at, const std::string& w) {
      if (!seen.insert(w).second) fail_at(at, "move parameter '" + w + "' given twice");
    };
    for (;;) {
      const Token p = tok();
      if (p.kind == TokenKind::Punct && p.text == ":") {
        if (m.mode == MoveSpec::Mode::Previous)
          fail_at(p, "'move previous' cannot be speculative; use 'parent :'");
        ++pos_;
        m.speculative = int(n->args.size());
        n->args.push_back(parse_expr(below(Prec::MoveParameter)));
        break;
      }
      if (p.kind != TokenKind::Word) break;
      const std::string w = p.text;
      if (w == "legal" || w == "pseudolegal" || w == "previous") {
        if (have_mode) fail_at(p, "at most one of previous, legal, pseudolegal");
        have_mode = true;
        ++pos_;
        m.mode = w == "legal"         ? MoveSpec::Mode::Legal
                 : w == "pseudolegal" ? MoveSpec::Mode::Pseudolegal
                                      : MoveSpec::Mode::Previous;
      } else if (w == "reverse") {
        once(p, w);
        ++pos_;
        m.reverse = true;
      } else if (w == "from" || w == "to" || w == "capture") {
        once(p, w);
        ++pos_;
        if (first)
          m.result = w == "from" ? MoveSpec::Result::From
                     : w == "to" ? MoveSpec::Result::To
                                 : MoveSpec::Result::Capture;
        int idx = int(n->args.size());
        n->args.push_back(parse_typed(below(Prec::MoveParameter), Type::Set, w.c_str()));
        (w == "from" ? m.from : w == "to" ? m.to : m.capture) = idx;
      } else if (w == "promote") {
        once(p, w);
        ++pos_;
        if (tok().kind != TokenKind::Designator || tok().squares != ~Bitboard(0) || tok().piece_mask == 0)
          fail("unexpected " + describe(tok()), "a piece type designator such as Q or [BNR]");
        std::uint16_t mask = toks_[pos_++].piece_mask;
        m.promote = std::uint16_t((mask | mask >> 8 | mask << 8) & kAllPieceBits);
      } else if (w == "enpassant" || w == "castle" || w == "o-o" || w == "o-o-o" || w == "null" ||
                 w == "primary" || w == "secondary" || w == "count" || w == "all") {
        once(p, w);
        if ((w == "castle" || w == "o-o" || w == "o-o-o") &&
            (seen.count("castle") + seen.count("o-o") + seen.count("o-o-o") > 1))
          fail_at(p, "at most one castling parameter");
        ++pos_;
        if (w == "enpassant") m.enpassant = true;
        if (w == "castle") m.castle = true;
        if (w == "o-o") m.castle_short = true;
        if (w == "o-o-o") m.castle_long = true;
        if (w == "null") m.null_move = true;
        if (w == "primary") m.primary = true;
        if (w == "secondary") m.secondary = true;
        if (w == "count") m.result = MoveSpec::Result::Count;
        if (w == "all") m.all = true;
      } else {
        break;
      }
      first = false;
    }
    if (seen.count("count")) m.result = MoveSpec::Result::Count;
    // A comment or message right after an ordinary move filter is run after the move (section 17).
    if (m.mode == MoveSpec::Mode::Played && m.speculative < 0 && (is_word("comment") || is_word("message"))) {
      const Token c = toks_[pos_++];
      m.adopted = int(n->args.size());
      n->args.push_back(c.text == "comment" ? parse_str_like(c, Op::Comment) : parse_message(c));
    }
    if (m.primary && m.secondary) fail_at(t, "move cannot be both primary and secondary");
    if ((m.primary || m.secondary) &&
        (m.mode == MoveSpec::Mode::Legal || m.mode == MoveSpec::Mode::Pseudolegal))
      fail_at(t, "primary/secondary cannot be combined with legal or pseudolegal");
    if (m.reverse && m.mode != MoveSpec::Mode::Legal && m.mode != MoveSpec::Mode::Pseudolegal)
      fail_at(t, "reverse needs legal or pseudolegal");
    if (m.all && m.speculative < 0) fail_at(t, "'all' needs a speculative move (move ... : filter)");
    switch (m.result) {
      case MoveSpec::Result::Count: n->type = Type::Numeric; break;
      case MoveSpec::Result::Boolean: n->type = Type::Boolean; break;
      default: n->type = Type::Set; break;
    }
    if (m.all && m.result != MoveSpec::Result::Count) n->type = Type::Boolean;
    return n;
  }

  NodePtr parse_pin(const Token& t) {
    auto n = node(Op::Pin, Type::Set, t);
    n->number = -1;
    n->number2 = -1;
    n->number3 = -1;
    n->flag = false;
    int result = 0;  // 0 pinned, 1 pinning, 2 pinned-to
    bool first = true;
    for (;;) {
      const Token p = tok();
      std::int64_t* slot = nullptr;
      if (is_word("from"))
        slot = &n->number;
      else if (is_word("through"))
        slot = &n->number2;
      else if (is_word("to"))
        slot = &n->number3;
      else
        break;
      if (*slot >= 0) fail_at(p, "pin parameter '" + p.text + "' given twice");
      ++pos_;
      if (first) result = p.text == "from" ? 1 : p.text == "to" ? 2 : 0;
      first = false;
      *slot = std::int64_t(n->args.size());
      n->args.push_back(parse_typed(below(Prec::MoveParameter), Type::Set, p.text.c_str()));
    }
    n->directions = std::uint8_t(result);
    return n;
  }

  NodePtr parse_transform(const Token& t) {
    std::vector<Transform> variants;
    transforms_of(t.text, variants);
    bool count = accept_word("count");
    bool restrict_shift = accept_word("restrict");
    if (restrict_shift && t.text.rfind("shift", 0) != 0)
      fail_at(toks_[pos_ - 1], "restrict is only for shift transforms");
    auto range = parse_range();
    NodePtr body = parse_expr(kFull, false);
    auto n = node(Op::Transform, Type::Boolean, t);
    n->flag = count;
    if (range) {
      n->flag2 = true;
      n->number = range->lo;
      n->number2 = range->hi;
    }
    std::set<std::string> seen;
    for (Transform& tr : variants) {
      tr.restrict_shift = restrict_shift;
      NodePtr copy = body->clone();
      if (!apply_transform(*copy, tr)) continue;
      std::string key = fingerprint(*copy);
      if (!seen.insert(key).second) continue;
      n->args.push_back(std::move(copy));
    }
    if (count || range)
      n->type = Type::Numeric;
    else if (body->type == Type::Set || body->type == Type::Numeric)
      n->type = body->type;
    return n;
  }

  NodePtr parse_fen_pattern(const Token& t, const std::string& text) {
    auto n = node(Op::FenMatch, Type::Boolean, t);
    n->fen_pattern.assign(64, 0);
    int rank = 7, file = 0;
    for (char c : text) {
      if (c == ' ') break;
      if (c == '/') {
        if (file != 8)
          fail_at(toks_[pos_ - 1],
                  "fen placement: rank " + std::to_string(rank + 1) + " does not have 8 squares");
        --rank;
        file = 0;
        if (rank < 0) fail_at(toks_[pos_ - 1], "fen placement has more than 8 ranks");
        continue;
      }
      if (c >= '1' && c <= '8') {
        for (int i = 0; i < c - '0'; ++i) {
          if (file > 7) fail_at(toks_[pos_ - 1], "fen placement: a rank has more than 8 squares");
          n->fen_pattern[rank * 8 + file++] = kEmptyBit;
        }
        continue;
      }
      std::uint16_t bits;
      static const std::string letters = "PNBRQKpnbrqk";
      auto i = letters.find(c);
      if (i != std::string::npos)
        bits = std::uint16_t(1u << ((i < 6 ? 1 : 9) + int(i % 6)));
      else if (c == 'A')
        bits = kWhitePieceBits;
      else if (c == 'a')
        bits = kBlackPieceBits;
      else if (c == '_')
        bits = kEmptyBit;
      else if (c == '.')
        bits = 0xFFFF;
      else
        fail_at(toks_[pos_ - 1], std::string("fen placement: unexpected character '") + c + "'");
      if (file > 7) fail_at(toks_[pos_ - 1], "fen placement: a rank has more than 8 squares");
      n->fen_pattern[rank * 8 + file++] = bits;
    }
    if (rank != 0 || file != 8) fail_at(toks_[pos_ - 1], "fen placement must describe 8 ranks of 8 squares");
    return n;
  }

  NodePtr parse_iteration(const Token& t, bool piece) {
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
    n->flag = all;
    n->args.push_back(std::move(set));
    n->args.push_back(std::move(body));
    return n;
  }

  // message [quiet] ...: quiet leaves out the position's description.
  NodePtr parse_message(const Token& t) {
    bool quiet = accept_word("quiet");
    NodePtr n = parse_str_like(t, Op::Message);
    n->flag = quiet;
    return n;
  }

  NodePtr parse_str_like(const Token& t, Op op) {
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

  NodePtr tag_filter(const Token& t, const std::string& tag, int color) {
    const std::size_t word_at = pos_ - (color == 1 || color == -1 ? 2 : 1);  // player white: two words
    if (tok().kind == TokenKind::String && word_at != message_arg_start_) {
      auto n = node(Op::TagContains, Type::Boolean, t);
      n->text = tag;
      n->number = color;
      auto s = node(Op::String, Type::String, tok());
      s->text = toks_[pos_++].text;
      n->args.push_back(std::move(s));
      return n;
    }
    auto n = node(Op::TagValue, Type::String, t);
    n->text = tag;
    n->number = color;
    return n;
  }

  NodePtr parse_find(const Token& t) {
    auto n = node(Op::Find, Type::Position, t);
    for (;;) {
      if (accept_word("quiet")) continue;
      if (accept_punct("<--")) {
        n->flag2 = true;  // backward
        continue;
      }
      if (accept_word("all")) {
        n->flag = true;
        n->type = Type::Numeric;
        continue;
      }
      break;
    }
    if (!n->flag) {
      if (auto r = parse_range()) {
        n->number = r->lo;
        n->number2 = r->hi;
        n->number3 = 1;  // has range
        n->type = Type::Numeric;
      }
    }
    n->args.push_back(parse_expr(kFull));
    return n;
  }

  // A malformed regular expression written as a literal is a parse error.
  void check_literal_regex(const Node& n, const Token& at) {
    if (n.op != Op::String) return;
    try {
      std::regex re(n.text, std::regex::ECMAScript | std::regex::multiline);
    } catch (const std::regex_error& e) {
      fail_at(at, "malformed regular expression \"" + n.text + "\": " + e.what());
    }
  }

  // ---- line
  struct LineItem {
    int filter = -1;              // index into the line node's args, or -1 for a group
    std::vector<LineItem> group;  // a parenthesised sequence
    int min = 1, max = 1;         // max -1: unbounded
  };

  bool group_ahead() const {
    // "(" whose contents hold an arrow at their own level is a group of constituents.
    int depth = 0;
    for (std::size_t i = pos_; i < toks_.size(); ++i) {
      const Token& k = toks_[i];
      if (k.kind == TokenKind::End) return false;
      if (k.kind == TokenKind::Punct) {
        if (k.text == "(" || k.text == "{" || k.text == "[")
          ++depth;
        else if (k.text == ")" || k.text == "}" || k.text == "]") {
          if (--depth == 0) return false;
        } else if (depth == 1 && (k.text == "-->" || k.text == "<--"))
          return true;
      }
    }
    return false;
  }

  // ? * +, bare or inside braces; false when none is next.
  bool accept_symbol_quantifier(LineItem& item) {
    if (accept_punct("?"))
      item.min = 0;
    else if (accept_punct("*"))
      item.min = 0, item.max = -1;
    else if (accept_punct("+"))
      item.max = -1;
    else
      return false;
    return true;
  }

  void parse_quantifier(LineItem& item) {
    if (accept_symbol_quantifier(item)) return;
    if (!is_punct("{") || !(peek_punct(1, "?") || peek_punct(1, "*") || peek_punct(1, "+") ||
                            peek_punct(1, ",") || tok(1).kind == TokenKind::Number))
      return;
    ++pos_;
    if (!accept_symbol_quantifier(item)) {
      std::int64_t lo = 0, hi = -1;
      if (tok().kind == TokenKind::Number) lo = toks_[pos_++].number;
      bool comma = accept_punct(",");
      if (tok().kind == TokenKind::Number)
        hi = toks_[pos_++].number;
      else if (!comma)
        hi = lo;
      if (lo > 9999 || hi > 9999) fail("a repetition bound must be at most 9999");
      if (hi >= 0 && hi < lo) fail("a repetition's upper bound is below its lower bound");
      item.min = int(lo);
      item.max = int(hi);
    }
    expect_punct("}");
  }

  std::vector<LineItem> parse_line_items(Node& line, const std::string& arrow, bool in_group) {
    std::vector<LineItem> items;
    bool first = true;
    for (;;) {
      if (!(in_group && first)) {
        if (!is_punct(arrow)) {
          if (is_punct(arrow == "-->" ? "<--" : "-->")) fail("a line filter cannot mix --> and <--");
          break;
        }
        ++pos_;
      }
      first = false;
      LineItem item;
      if (is_punct("(") && group_ahead()) {
        ++pos_;
        item.group = parse_line_items(line, arrow, true);
        expect_punct(")");
      } else {
        item.filter = int(line.args.size());
        line.args.push_back(parse_expr(kFull));
      }
      parse_quantifier(item);
      items.push_back(std::move(item));
      if (in_group && is_punct(")")) break;
    }
    if (items.empty()) fail("unexpected " + describe(tok()), "'" + arrow + "' and a constituent");
    return items;
  }

  // Thompson construction: out-edges are (state, field) pairs patched later.
  struct Fragment {
    int start;
    std::vector<std::pair<int, int>> outs;
  };
  int add_state(std::vector<std::int32_t>& nfa, LineState kind, int a, int b) {
    nfa.push_back(std::int32_t(kind));
    nfa.push_back(a);
    nfa.push_back(b);
    if (nfa.size() / 3 > 100000) fail("the line filter expands to more than 100000 constituents");
    return int(nfa.size() / 3) - 1;
  }
  static void patch(std::vector<std::int32_t>& nfa, const std::vector<std::pair<int, int>>& outs, int to) {
    for (auto [s, field] : outs) nfa[std::size_t(s * 3 + field)] = to;
  }
  Fragment build_sequence(std::vector<std::int32_t>& nfa, const std::vector<LineItem>& items) {
    Fragment f = build_item(nfa, items[0]);
    for (std::size_t i = 1; i < items.size(); ++i) {
      Fragment g = build_item(nfa, items[i]);
      patch(nfa, f.outs, g.start);
      f.outs = g.outs;
    }
    return f;
  }
  Fragment build_once(std::vector<std::int32_t>& nfa, const LineItem& item) {
    if (item.filter >= 0) {
      int s = add_state(nfa, LineState::Filter, item.filter, -1);
      return {s, {{s, 2}}};
    }
    return build_sequence(nfa, item.group);
  }
  Fragment build_item(std::vector<std::int32_t>& nfa, const LineItem& item) {
    std::optional<Fragment> f;
    auto append = [&](Fragment g) {
      if (!f)
        f = g;
      else {
        patch(nfa, f->outs, g.start);
        f->outs = g.outs;
      }
    };
    for (int i = 0; i < item.min; ++i) append(build_once(nfa, item));
    if (item.max < 0) {
      Fragment body = build_once(nfa, item);
      int split = add_state(nfa, LineState::Split, body.start, -1);
      patch(nfa, body.outs, split);
      append(Fragment{split, {{split, 2}}});
    } else {
      // (x (x (x)?)?)? for the optional copies.
      std::vector<std::pair<int, int>> exits;
      std::optional<Fragment> opt;
      for (int i = item.min; i < item.max; ++i) {
        Fragment body = build_once(nfa, item);
        int split = add_state(nfa, LineState::Split, body.start, -1);
        if (!opt)
          opt = Fragment{split, {}};
        else
          patch(nfa, opt->outs, split);
        exits.push_back({split, 2});
        opt->outs = body.outs;
      }
      if (opt) {
        for (auto& e : opt->outs) exits.push_back(e);
        append(Fragment{opt->start, exits});
      }
    }
    if (!f) {  // {0} or {0,0}: matches without consuming
      int split = add_state(nfa, LineState::Split, -1, -1);
      f = Fragment{split, {{split, 1}, {split, 2}}};
    }
    return *f;
  }

  NodePtr parse_line(const Token& t) {
    auto n = node(Op::Line, Type::Numeric, t);
    for (;;) {
      if (accept_word("firstmatch"))
        n->number |= kLineFirstMatch;
      else if (accept_word("nestban"))
        n->number |= kLineNestBan;
      else if (accept_word("singlecolor"))
        n->number |= kLineSingleColor;
      else if (accept_word("primary"))
        n->number |= kLinePrimary;
      else if (accept_word("secondary"))
        n->number |= kLineSecondary;
      else if (accept_word("lastposition"))
        n->flag2 = true;
      else if (accept_word("quiet"))
        n->number |= kLineQuiet;
      else if (accept_word("nonatomic")) {
        // Constituents here always update variables as they go: nonatomic is what they do.
      } else if (is_word("focus") || is_word("max") || is_word("piecepath") || is_word("nolinearize") ||
                 is_word("keepallbest") || is_word("verbose") || is_word("title"))
        fail("line parameter '" + tok().text + "' is not implemented yet");
      else
        break;
    }
    if (auto r = parse_range()) {
      n->number |= kLineHasRange;
      n->number2 = r->lo;
      n->number3 = r->hi;
    }
    std::string arrow;
    if (is_punct("-->"))
      arrow = "-->";
    else if (is_punct("<--"))
      arrow = "<--";
    else
      fail("unexpected " + describe(tok()), "'-->' or '<--' starting the line's constituents");
    n->flag = arrow == "<--";
    if (n->flag && (n->number & kLineNestBan)) fail_at(t, "nestban does not work on backward lines");
    std::vector<LineItem> items = parse_line_items(*n, arrow, false);
    std::vector<std::int32_t> nfa;
    add_state(nfa, LineState::Split, -1, -1);  // state 0 is the start
    Fragment f = build_sequence(nfa, items);
    nfa[1] = f.start;
    nfa[2] = f.start;
    int accept = add_state(nfa, LineState::Accept, -1, -1);
    patch(nfa, f.outs, accept);
    n->nfa = std::move(nfa);
    n->text = std::to_string(line_count_++);  // the line's identity for nestban
    if (n->flag2) n->type = Type::Position;
    return n;
  }

  NodePtr parse_imagine(const Token& t) {
    auto n = node(Op::Imagine, Type::Boolean, t);
    for (;;) {
      if (accept_word("piece")) {
        if (tok().kind != TokenKind::Designator || tok().squares != ~Bitboard(0) || tok().piece_mask == 0 ||
            (tok().piece_mask & (tok().piece_mask - 1)))
          fail("unexpected " + describe(tok()), "one piece type such as Q, n or _ (to remove pieces)");
        int mask = toks_[pos_++].piece_mask;
        expect_punct("-->");
        n->nfa.insert(n->nfa.end(), {0, mask, std::int32_t(n->args.size())});
        n->args.push_back(parse_typed(kFull, Type::Set, "imagine piece"));
      } else if (accept_word("swap")) {
        n->nfa.insert(n->nfa.end(), {1, std::int32_t(n->args.size()), std::int32_t(n->args.size() + 1)});
        n->args.push_back(parse_typed(below(Prec::PieceFunction), Type::Set, "swap"));
        n->args.push_back(parse_typed(below(Prec::PieceFunction), Type::Set, "swap"));
      } else if (accept_word("sidetomove")) {
        int side = accept_word("black") ? 0 : accept_word("white") ? 1 : accept_word("reverse") ? 2 : -1;
        if (side < 0) fail("unexpected " + describe(tok()), "black, white or reverse");
        n->nfa.insert(n->nfa.end(), {2, side, 0});
      } else {
        break;
      }
    }
    if (n->nfa.empty())
      fail("unexpected " + describe(tok()), "an imagine specifier: piece, swap or sidetomove");
    expect_punct(":");
    n->args.push_back(parse_expr(kFull));
    n->type = n->args.back()->type;
    return n;
  }

  NodePtr parse_echo(const Token& t) {
    accept_word("quiet");
    expect_punct("(");
    // Section 15 writes the names bare, echo (source target); $names are the usual convention.
    auto is_name = [&] { return tok().kind == TokenKind::Variable || tok().kind == TokenKind::Word; };
    if (!is_name()) fail("unexpected " + describe(tok()), "a variable for the source position");
    const Token source = toks_[pos_++];
    if (!is_name()) fail("unexpected " + describe(tok()), "a variable for the target position");
    const Token target = toks_[pos_++];
    expect_punct(")");
    bool in_all = false;
    if (is_word("in") && is_word("all", 1)) {
      pos_ += 2;
      in_all = true;
    }
    scopes_.emplace_back();
    auto n = node(Op::Echo, Type::Boolean, t);
    n->number = declare(source.text, Type::Position);
    n->number2 = declare(target.text, Type::Position);
    n->flag = in_all;
    n->args.push_back(parse_expr(kFull));
    scopes_.pop_back();
    if (n->args[0]->type == Type::Numeric) n->type = Type::Numeric;
    return n;
  }

  NodePtr parse_original_comment(const Token& t) {
    if (tok().kind != TokenKind::String) return node(Op::OriginalComment, Type::String, t);
    std::string s = toks_[pos_++].text;
    static const std::map<std::string, int> symbols = {
        {"!", 1},    {"?", 2},    {"!!", 3},   {"??", 4},   {"!?", 5},  {"?!", 6}, {"=", 10},
        {"+/=", 14}, {"=/+", 15}, {"+/-", 16}, {"-/+", 17}, {"+-", 18}, {"-+", 19}};
    int nag = -1;
    if (s.size() > 1 && s[0] == '$' && s.find_first_not_of("0123456789", 1) == std::string::npos)
      nag = std::atoi(s.c_str() + 1);
    else if (auto it = symbols.find(s); it != symbols.end())
      nag = it->second;
    if (nag >= 0) {
      auto n = node(Op::HasAnnotation, Type::Boolean, t);
      n->number = nag;
      return n;
    }
    auto n = node(Op::InString, Type::Boolean, t);
    auto lit = node(Op::String, Type::String, t);
    lit->text = s;
    n->args.push_back(std::move(lit));
    n->args.push_back(node(Op::OriginalComment, Type::String, t));
    return n;
  }

  NodePtr parse_sort(const Token& t) {
    SortKey key;
    for (;;) {
      if (accept_word("quiet"))
        key.quiet = true;
      else if (accept_word("min"))
        key.minimize = true;
      else if (accept_word("max"))
        key.minimize = false;
      else
        break;
    }
    if (tok().kind == TokenKind::String) key.description = toks_[pos_++].text;
    const Token& body_start = tok();
    NodePtr body = parse_expr(kFull);
    if (body->type != Type::Numeric && body->type != Type::String && body->type != Type::Set)
      fail_at(body_start,
              "sort needs a Numeric, String or Set filter, this is a " + std::string(to_string(body->type)));
    key.type = body->type == Type::String ? Type::String : Type::Numeric;
    if (key.description.empty()) key.description = "sort " + std::string(to_string(body->type));
    int index = -1;
    for (std::size_t i = 0; i < sorts_.size(); ++i)
      if (sorts_[i].description == key.description) index = int(i);
    if (index < 0) {
      sorts_.push_back(key);
      index = int(sorts_.size()) - 1;
    }
    auto n = node(Op::Sort, body->type, t);
    n->number = index;
    n->args.push_back(std::move(body));
    return n;
  }

  NodePtr parse_primary() {
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
    if (w == "true") return node(Op::True, Type::Boolean, t);
    if (w == "false") return node(Op::False, Type::Boolean, t);
    if (w == "white" || w == "black") {
      auto n = node(Op::Number, Type::Numeric, t);
      n->number = w == "white" ? 1 : -1;
      n->flag2 = true;
      return n;
    }
    if (w == "not") return unary(Op::Not, Type::Boolean, t, parse_expr(below(Prec::Not)));
    if (w == "power")
      return unary(Op::Power, Type::Numeric, t, parse_typed(below(Prec::PieceFunction), Type::Set, "power"));
    if (w == "colortype")
      return unary(Op::ColorType, Type::Numeric, t,
                   parse_typed(below(Prec::PieceFunction), Type::Set, "colortype"));
    if (w == "type")
      return unary(Op::PieceType, Type::Numeric, t,
                   parse_typed(below(Prec::PieceFunction), Type::Set, "type"));
    if (w == "file")
      return unary(Op::File, Type::Numeric, t, parse_typed(below(Prec::PieceFunction), Type::Set, "file"));
    if (w == "rank")
      return unary(Op::Rank, Type::Numeric, t, parse_typed(below(Prec::PieceFunction), Type::Set, "rank"));
    if (w == "light")
      return unary(Op::Light, Type::Set, t, parse_typed(below(Prec::LightDark), Type::Set, "light"));
    if (w == "dark")
      return unary(Op::Dark, Type::Set, t, parse_typed(below(Prec::LightDark), Type::Set, "dark"));
    if (w == "abs")
      return unary(Op::Abs, Type::Numeric, t, parse_typed(below(Prec::Function), Type::Numeric, "abs"));
    if (w == "sqrt")
      return unary(Op::Sqrt, Type::Numeric, t, parse_typed(below(Prec::Function), Type::Numeric, "sqrt"));
    if (w == "int")
      return unary(Op::Int, Type::Numeric, t, parse_typed(below(Prec::Count), Type::String, "int"));
    if (w == "lowercase")
      return unary(Op::Lowercase, Type::String, t,
                   parse_typed(below(Prec::PieceFunction), Type::String, "lowercase"));
    if (w == "uppercase")
      return unary(Op::Uppercase, Type::String, t,
                   parse_typed(below(Prec::PieceFunction), Type::String, "uppercase"));
    if (w == "position")
      return unary(Op::PositionById, Type::Position, t,
                   parse_typed(below(Prec::Function), Type::Numeric, "position"));
    if (w == "pieceid") {
      const Token& s = tok();
      NodePtr a = parse_expr(below(Prec::PieceFunction), true);
      if (a->type != Type::Piece) a = require(std::move(a), Type::Set, s, "pieceid");
      return unary(Op::PieceId, Type::Numeric, t, std::move(a));
    }
    if (w == "assert") return unary(Op::Assert, Type::Boolean, t, parse_expr(kFull));
    if (w == "notransform") {
      auto n = node(Op::Block, Type::Boolean, t);
      n->number3 = 1;
      n->args.push_back(parse_expr(kFull));
      n->type = n->args[0]->type;
      return n;
    }
    if (auto d = direction_word(w)) return parse_direction(t, *d);
    if (auto stat = book_stat_keyword(w)) {
      auto n = node(stat->first, Type::Numeric, t);
      n->number = std::int64_t(stat->second);
      return n;
    }
    if (w == "attackedby" || w == "attacks")
      fail_at(t, "'" + w + "' needs a Set on its left", "a filter before it");
    if (w == "between") return typed_call(Op::Between, Type::Set, t, "between", Type::Set, 2, 2);
    if (w == "ray" || w == "xray") {
      std::uint8_t directions = 0;
      while (w == "ray" && tok().kind == TokenKind::Word) {
        auto d = direction_word(tok().text);
        if (!d) break;
        directions |= *d;
        ++pos_;
      }
      auto n = typed_call(w == "ray" ? Op::Ray : Op::Xray, Type::Set, t, w.c_str(), Type::Set, 2, 64);
      n->directions = directions ? directions : 0xFF;
      return n;
    }
    if (w == "pin") return parse_pin(t);
    if (w == "move") return parse_move(t);
    if (w == "makesquare") {
      auto args = parenthesised_args("makesquare", 1, 2);
      if (args.size() == 1) {
        auto n = node(Op::MakeSquareString, Type::Set, t);
        n->args.push_back(require(std::move(args[0]), Type::String, t, "makesquare"));
        return n;
      }
      auto n = node(Op::MakeSquare, Type::Set, t);
      for (auto& a : args) n->args.push_back(require(std::move(a), Type::Numeric, t, "makesquare"));
      return n;
    }
    if (w == "fen") {
      if (tok().kind == TokenKind::String) {
        ++pos_;
        return parse_fen_pattern(t, t.text == "fen" ? toks_[pos_ - 1].text : "");
      }
      return node(Op::CurrentFen, Type::String, t);
    }
    if (w == "max" || w == "min")
      return typed_call(w == "max" ? Op::Max : Op::Min, Type::Numeric, t, w.c_str(), Type::Numeric, 2, 1000);
    if (w == "replace") {
      auto args = parenthesised_args("replace", 3, 4);
      auto n = node(Op::Replace, Type::String, t);
      for (std::size_t i = 0; i < args.size(); ++i)
        n->args.push_back(require(std::move(args[i]), i == 3 ? Type::Numeric : Type::String, t, "replace"));
      check_literal_regex(*n->args[1], t);
      return n;
    }
    if (w == "indexof") return typed_call(Op::IndexOf, Type::Numeric, t, "indexof", Type::String, 2, 2);
    if (w == "if") {
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
    if (w == "while") {
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
    if (w == "loop") {
      scopes_.emplace_back();
      auto n = unary(Op::Loop, Type::Boolean, t, parse_expr(kFull));
      scopes_.pop_back();
      return n;
    }
    if (w == "square") return parse_iteration(t, false);
    if (w == "piece") return parse_iteration(t, true);
    if (w == "str") return parse_str_like(t, Op::Str);
    if (w == "comment") return parse_str_like(t, Op::Comment);
    if (w == "message") return parse_message(t);
    if (w == "ascii") {
      const Token& s = tok();
      NodePtr a = parse_expr(below(Prec::Function));
      if (a->type != Type::String && a->type != Type::Numeric)
        fail_at(s, "ascii needs a String or a Numeric, this is a " + std::string(to_string(a->type)));
      Type result = a->type == Type::String ? Type::Numeric : Type::String;
      return unary(Op::Ascii, result, t, std::move(a));
    }
    std::vector<Transform> tr;
    if (transforms_of(w, tr)) return parse_transform(t);
    if (w == "result") {
      auto n = node(Op::Result, Type::Boolean, t);
      n->text = parse_result_text();
      return n;
    }
    if (w == "date" || w == "eco" || w == "event" || w == "eventdate" || w == "site") {
      static const std::map<std::string, std::string> tags = {
          {"date", "Date"}, {"eco", "ECO"}, {"event", "Event"}, {"eventdate", "EventDate"}, {"site", "Site"}};
      return tag_filter(t, tags.at(w), 0);
    }
    if (w == "player") {
      if (accept_word("white")) return tag_filter(t, "White", 1);
      if (accept_word("black")) return tag_filter(t, "Black", -1);
      return tag_filter(t, "Players", 2);
    }
    if (w == "elo") {
      auto n = node(Op::Elo, Type::Numeric, t);
      if (accept_word("white"))
        n->number = 1;
      else if (accept_word("black"))
        n->number = -1;
      return n;
    }
    if (w == "tag") {
      auto n = node(Op::Tag, Type::String, t);
      n->text = expect_string();
      return n;
    }
    if (w == "removetag") {
      auto n = node(Op::RemoveTag, Type::Boolean, t);
      n->text = expect_string();
      return n;
    }
    if (w == "settag") return typed_call(Op::SetTag, Type::Boolean, t, "settag", Type::String, 2, 2);
    if (w == "child") {
      if (is_punct("(")) return typed_call(Op::Child, Type::Position, t, "child", Type::Numeric, 1, 1);
      return node(Op::Child, Type::Position, t);
    }
    if (w == "distance" || w == "lca")
      return typed_call(w == "distance" ? Op::Distance : Op::Lca,
                        w == "distance" ? Type::Numeric : Type::Position, t, w.c_str(), Type::Position, 2, 2);
    if (w == "ancestor" || w == "descendant") {
      auto n = typed_call(Op::Compare, Type::Position, t, w.c_str(), Type::Position, 2, 2);
      n->number = int(w == "ancestor" ? CompareOp::Lt : CompareOp::Gt);
      // Boolean result: not not X
      return unary(Op::Not, Type::Boolean, t, unary(Op::Not, Type::Boolean, t, std::move(n)));
    }
    if (w == "find") return parse_find(t);
    if (w == "echo") return parse_echo(t);
    if (w == "persistent") return parse_persistent(t);
    if (w == "dictionary") return parse_dictionary(t);
    if (w == "key" || w == "string") return parse_key_iteration(t);
    if (w == "imagine") return parse_imagine(t);
    if (w == "line") return parse_line(t);
    if (w == "originalcomment" || w == "hascomment") return parse_original_comment(t);
    if (w == "sort") return parse_sort(t);
    if (w == "unbind") {
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
    if (w == "isbound" || w == "isunbound") {
      if (tok().kind != TokenKind::Variable && tok().kind != TokenKind::Word)
        fail("unexpected " + describe(tok()), "a variable name");
      int slot = lookup(toks_[pos_++].text);
      auto n = node(Op::IsBound, Type::Boolean, t);
      n->number = slot;
      n->flag = w == "isunbound";
      return n;
    }
    if (w == "consecutivemoves") {
      accept_word("quiet");
      auto range = parse_range();
      auto n = typed_call(Op::ConsecutiveMoves, Type::Numeric, t, "consecutivemoves", Type::Position, 2, 2);
      if (range) {
        n->flag = true;
        n->number = range->lo;
        n->number2 = range->hi;
      }
      return n;
    }
    if (w == "readfile" || w == "writefile" || w == "saveposition" || w == "currentmutation" ||
        w == "reachableposition" || w == "cqlbegin" || w == "cqlend" || w == "import" || w == "commandpipe" ||
        w == "variant" || w == "variantwin" || w == "variantloss" || w == "variantdraw" ||
        w == "variantend" || w == "hhdb")
      fail_at(t, "filter '" + w + "' is not implemented in graphbook's CQL engine yet");
    if (functions_.count(w)) return parse_call(w, t);
    // A bare name that is no filter may be a variable in scope, such as echo's (source target).
    if (lookup(w) >= 0) {
      --pos_;
      return parse_variable();
    }
    if (w == "function") fail_at(t, "a function may only be defined at the top level");
    fail_at(t, "unknown filter '" + w + "'", "a filter (see the filter index of the CQL reference)");
  }

  NodePtr parse_punct_primary(const Token& t) {
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
      return unary(Op::Negate, Type::Numeric, t,
                   parse_typed(below(Prec::Prefix), Type::Numeric, "unary '-'"));
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

  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  // The first token of the message or comment argument being parsed (none: SIZE_MAX).
  std::size_t message_arg_start_ = SIZE_MAX;
  std::vector<std::map<std::string, int>> scopes_;
  std::vector<VariableInfo> vars_;
  std::vector<SortKey> sorts_;
  std::map<std::string, Function> functions_;
  std::set<std::string> expanding_;
  int line_count_ = 0;
  int depth_ = 0;
};

}  // namespace

std::variant<Program, ParseError> parse(std::string_view text) {
  std::vector<Token> tokens;
  LexError lex_error;
  if (!lex(text, tokens, lex_error)) {
    ParseError e;
    e.line = lex_error.line;
    e.column = lex_error.column;
    e.offset = lex_error.offset;
    e.message = lex_error.message;
    return e;
  }
  try {
    Parser parser(std::move(tokens));
    Program p = parser.run();
    if (p.root->args.empty()) {
      ParseError e;
      e.line = 1;
      e.column = 1;
      e.message = "the query has no filter";
      e.expected = "at least one filter, e.g. 'mate'";
      return e;
    }
    return p;
  } catch (const Failure& f) {
    return f.error;
  }
}

}  // namespace gb::cql
