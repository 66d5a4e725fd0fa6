// The CQL parser's machinery, private to parser.cpp and parse_*.cpp: the
// precedence levels, and the Parser whose keyword parsing is split by op
// group (parse_board.cpp, parse_control.cpp, parse_metadata.cpp,
// parse_game_tree.cpp, parse_line.cpp), each with its keyword table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "book/cql/book_stats.h"
#include "book/cql/lexer.h"
#include "book/cql/parser.h"
#include "book/cql/transform.h"

namespace gb::cql {

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

inline bool is_set_like(Type t) { return t == Type::Set || t == Type::Piece; }

// The assignment operators of variables and dictionary entries.
inline std::optional<AssignOp> assign_op(const Token& t) {
  static const std::map<std::string, AssignOp> ops = {
      {"=", AssignOp::Set},  {"=?", AssignOp::SetIfNonEmpty}, {"+=", AssignOp::Add}, {"-=", AssignOp::Sub},
      {"*=", AssignOp::Mul}, {"/=", AssignOp::Div},           {"%=", AssignOp::Mod}, {"|=", AssignOp::Or},
      {"&=", AssignOp::And}};
  if (t.kind != TokenKind::Punct) return std::nullopt;
  auto it = ops.find(t.text);
  if (it == ops.end()) return std::nullopt;
  return it->second;
}
// The most filters one query may make (some 75 MB of them), counting what
// its function calls and transforms expand.
inline constexpr std::size_t kMaxQueryNodes = std::size_t(1) << 18;

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) { scopes_.emplace_back(); }

  Program run();

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
  [[noreturn]] void fail_at(const Token& t, std::string message, std::string expected = {});
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

  // Counts n more filters made (made_), refusing the query at `at` past
  // kMaxQueryNodes; why: how they came to be so many.
  void count_made(std::size_t n, const Token& at, std::string_view why) {
    made_ += n;
    if (made_ > kMaxQueryNodes)
      fail_at(at, "this query makes more than " + std::to_string(kMaxQueryNodes) +
                      " filters: " + std::string(why));
  }

  NodePtr node(Op op, Type type, const Token& at) {
    count_made(1, at, "function calls and transforms copy their bodies, and nested ones multiply");
    auto n = make_node(op, type);
    n->line = at.line;
    n->column = at.column;
    return n;
  }

  // ---- typing helpers
  NodePtr as_set(NodePtr n);
  NodePtr require(NodePtr n, Type t, const Token& where, const char* what);
  NodePtr parse_typed(int max_level, Type t, const char* what) {
    const Token& start = tok();
    return require(parse_expr(max_level), t, start, what);
  }

  // ---- expressions
  struct InfixInfo {
    int level;
    bool right_assoc;
  };

  std::optional<InfixInfo> infix_info() const;

  // Whether the infix filter at the cursor accepts a left operand of type t.
  bool left_fits(Type t) const;

  NodePtr parse_expr(int max_level, bool raw_piece = false);

  // With a String left of the '+' at the cursor: parses the operand after
  // it and, when that is a String, makes left the sum and returns true. When
  // it is not, the operand's parse is undone and false returned, for an
  // enclosing production to take the '+' (precedence vitiation: "24" + 1 is
  // no String sum, so int "24" + 1 is (int "24") + 1). The operand is parsed
  // once; an error in it is the query's error, as it would be when parsed
  // for the sum, so no exception is caught to backtrack.
  [[nodiscard]] bool parse_string_sum(NodePtr& left);

  NodePtr binary(Op op, Type type, const Token& at, NodePtr l, NodePtr r) {
    auto n = node(op, type, at);
    n->args.push_back(std::move(l));
    n->args.push_back(std::move(r));
    return n;
  }

  NodePtr parse_infix(NodePtr left, InfixInfo info);

  NodePtr parse_subscript(NodePtr left, const Token& op);

  // A compound filter: filters until the closing bracket, implicitly ANDed.
  NodePtr parse_sequence(const Token& open, std::string_view close);

  std::optional<std::int64_t> range_value();
  // A value followed by an arithmetic or comparison operator belongs to the
  // filter body, not to the range: "find 1 10 -3" is range 1, body 10 - 3.
  bool continues_expression() const;
  std::optional<Range> parse_range();

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
  NodePtr parse_persistent(const Token& at);

  Type dictionary_type() {
    if (accept_word("str") || accept_word("string")) return Type::String;
    if (accept_word("int")) return Type::Numeric;
    if (accept_word("set")) return Type::Set;
    fail("unexpected " + describe(tok()), "a dictionary type: str, int or set");
  }

  // dictionary [quiet] [(strategy)] [KEY --> VALUE] $name
  NodePtr parse_dictionary(const Token& t);

  NodePtr parse_key_iteration(const Token& t);

  NodePtr parse_dictionary_access(int slot, const Token& t);

  NodePtr parse_variable(bool declare_on_compound = false);

  // ---- functions
  struct Function {
    std::vector<std::string> params;
    std::size_t body = 0;  // token index of the body's "{"
  };

  void skip_balanced();

  void parse_function_definition();

  NodePtr parse_call(const std::string& name, const Token& at);

  // ---- the cql() header
  // A file name of the header: a string, or the word the lexer read up to
  // white space or ')'.
  std::string raw_word_after() {
    const Token& t = tok();
    if (t.kind != TokenKind::String && t.kind != TokenKind::Word)
      fail("unexpected " + describe(t), "a file name");
    return toks_[pos_++].text;
  }

  void parse_header(Header& h);

  std::string parse_result_text();

  // ---- primaries
  NodePtr unary(Op op, Type type, const Token& at, NodePtr arg) {
    auto n = node(op, type, at);
    n->args.push_back(std::move(arg));
    return n;
  }

  std::vector<NodePtr> parenthesised_args(const char* what, int min_count, int max_count, bool raw = false);

  // A function whose arguments all have one type: what(arg, ...).
  NodePtr typed_call(Op op, Type type, const Token& t, const char* what, Type arg_type, int min_count,
                     int max_count) {
    auto n = node(op, type, t);
    for (auto& a : parenthesised_args(what, min_count, max_count))
      n->args.push_back(require(std::move(a), arg_type, t, what));
    return n;
  }

  NodePtr parse_direction(const Token& t, std::uint8_t dirs);

  std::optional<std::uint8_t> direction_word(const std::string& w) const;

  NodePtr parse_move(const Token& t);

  NodePtr parse_pin(const Token& t);

  NodePtr parse_transform(const Token& t);

  NodePtr parse_fen_pattern(const Token& t, const std::string& text);

  NodePtr parse_iteration(const Token& t, bool piece);

  // message [quiet] ...: quiet leaves out the position's description.
  NodePtr parse_message(const Token& t);

  NodePtr parse_str_like(const Token& t, Op op);

  NodePtr tag_filter(const Token& t, const std::string& tag, int color);

  NodePtr parse_find(const Token& t);

  // A malformed regular expression written as a literal is a parse error.
  void check_literal_regex(const Node& n, const Token& at);

  // ---- line
  struct LineItem {
    int filter = -1;              // index into the line node's args, or -1 for a group
    std::vector<LineItem> group;  // a parenthesised sequence
    int min = 1, max = 1;         // max -1: unbounded
  };

  bool group_ahead() const;

  // ? * +, bare or inside braces; false when none is next.
  bool accept_symbol_quantifier(LineItem& item);

  void parse_quantifier(LineItem& item);

  std::vector<LineItem> parse_line_items(Node& line, const std::string& arrow, bool in_group);

  // Thompson construction: out-edges are (state, field) pairs patched later.
  struct Fragment {
    int start;
    std::vector<std::pair<int, int>> outs;
  };
  int add_state(std::vector<std::int32_t>& nfa, LineState kind, int a, int b);
  static void patch(std::vector<std::int32_t>& nfa, const std::vector<std::pair<int, int>>& outs, int to);
  Fragment build_sequence(std::vector<std::int32_t>& nfa, const std::vector<LineItem>& items);
  Fragment build_once(std::vector<std::int32_t>& nfa, const LineItem& item);
  Fragment build_item(std::vector<std::int32_t>& nfa, const LineItem& item);

  NodePtr parse_line(const Token& t);

  NodePtr parse_imagine(const Token& t);

  NodePtr parse_echo(const Token& t);

  NodePtr parse_original_comment(const Token& t);

  NodePtr parse_sort(const Token& t);

  // The keywords of one op group, from its table: the filter the word at t
  // starts, or nullptr when it is none of the group's.
  NodePtr parse_value_keyword(const Token& t);      // parser.cpp: literals, variables
  NodePtr parse_board_keyword(const Token& t);      // parse_board.cpp
  NodePtr parse_control_keyword(const Token& t);    // parse_control.cpp
  NodePtr parse_metadata_keyword(const Token& t);   // parse_metadata.cpp
  NodePtr parse_game_tree_keyword(const Token& t);  // parse_game_tree.cpp
  NodePtr parse_line_keyword(const Token& t);       // parse_line.cpp
  NodePtr parse_primary();

  NodePtr parse_punct_primary(const Token& t);

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
  // The filters the query has made so far (node(), and the copies of the
  // transforms). A function call parses its body again in place, and a
  // transform copies its body once for each of its variants (flip 8, shift
  // up to 225): nested ones multiply, so that three nested shifts and flips
  // took minutes and gigabytes to parse (found by fuzz/cql_fuzz.cpp), and
  // twenty functions each calling the one before twice took seconds.
  std::size_t made_ = 0;
};

}  // namespace gb::cql
