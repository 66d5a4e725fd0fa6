// The evaluator's state and the functions that evaluate each op group
// (eval_*.cpp); private to book/cql/evaluator*.cpp and eval_*.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <functional>
#include <map>
#include <regex>
#include <tuple>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"
#include "book/cql/board.h"
#include "book/cql/book_stats.h"
#include "book/cql/evaluator.h"

namespace gb::cql {

constexpr Bitboard kAll = ~Bitboard(0);

struct Evaluator::Impl {
  const Program& program;
  const Game* game = nullptr;
  EvalOptions options;
  int node = 0;
  const Position* pos = nullptr;
  bool imaginary = false;
  // At an imaginary position made by a speculative move that is also a move
  // of the game (a book move under graphbook query): that child's ID, whose
  // book node and edge the book statistics read; -1 otherwise.
  int imagined_child = -1;
  std::vector<Value> vars;
  GameResult* out = nullptr;
  // Inside a forward line constituent: the child the sequence goes on to
  // (-1: none); -2 outside lines. Ordinary move filters see only that move.
  int linear_next = -2;
  std::map<std::string, std::vector<char>> line_bans;  // nestban, per line filter, reset per game
  // Regular expressions (ECMAScript, multiline), compiled once per pattern.
  std::map<std::string, std::regex> regexes;
  // The capture groups of the last ~~ evaluated in this game (none when it
  // failed): text and code-point start, or unset.
  std::vector<std::optional<std::pair<std::string, std::int64_t>>> groups;

  const std::regex* regex(const std::string& pattern) {
    auto it = regexes.find(pattern);
    if (it != regexes.end()) return &it->second;
    try {
      return &regexes.try_emplace(pattern, pattern, std::regex::ECMAScript | std::regex::multiline)
                  .first->second;
    } catch (const std::regex_error& e) {
      if (!out->assert_failure)
        out->assert_failure = "malformed regular expression \"" + pattern + "\": " + e.what();
      return nullptr;
    }
  }

  explicit Impl(const Program& p) : program(p) {}

  const GameNode& current() const { return game->nodes[std::size_t(node)]; }

  // A scoped change of the current position.
  struct At {
    Impl& e;
    int node;
    const Position* pos;
    bool imaginary;
    int imagined_child;
    At(Impl& ev, int n, const Position* p, bool imag)
        : e(ev), node(ev.node), pos(ev.pos), imaginary(ev.imaginary), imagined_child(ev.imagined_child) {
      e.node = n;
      e.pos = p;
      e.imaginary = imag;
      e.imagined_child = -1;
    }
    ~At() {
      e.node = node;
      e.pos = pos;
      e.imaginary = imaginary;
      e.imagined_child = imagined_child;
    }
  };

  bool visible(int id) const { return options.variations || game->nodes[std::size_t(id)].depth == 0; }

  // ---- piece portrayal needs the board
  std::string portray_piece(const Value& v) const {
    Bitboard b = piece_square(v.number);
    if (!b) return "[absent]";
    return piece_char(pos->piece_on(lsb(b))) + square_name(lsb(b));
  }

  // The square of the piece with this ID at the current position, empty when it is gone.
  Bitboard piece_square(std::int64_t id) const {
    for (int sq = 0; sq < 64; ++sq)
      if (current().piece_ids[sq] == id) return square_bb(Square(sq));
    return 0;
  }

  std::string to_text(const Node& arg) {
    Value v = eval(arg);
    if (v.kind == Value::Kind::Piece) return portray_piece(v);
    return portray(v, game);
  }
  // The arguments of str, comment and message, portrayed one after the other.
  std::string args_text(const Node& n) {
    std::string s;
    for (const auto& a : n.args) s += to_text(*a);
    return s;
  }

  // The deepest position on the way to the root from both x and y, and the
  // number of moves between x and y through it (parents have smaller IDs).
  std::pair<int, int> common_ancestor(int x, int y) const {
    int steps = 0;
    for (; x != y; ++steps) {
      if (x > y)
        x = game->nodes[std::size_t(x)].parent;
      else
        y = game->nodes[std::size_t(y)].parent;
    }
    return {x, steps};
  }

  Value eval(const Node& n) {
    std::size_t mark = out->comments.size();
    Value v = dispatch(n);
    if (out->comments.size() != mark && !v.matches()) out->comments.resize(mark);
    return v;
  }

  bool matches(const Node& n) { return eval(n).matches(); }

  // The position ID a Position operand yields, -1 for None; a variable is
  // read in place, without copying its Value (echo's source & target runs
  // once per pair of positions of a game).
  int position_operand(const Node& a) {
    if (a.op == Op::Var) {
      const Value& v = vars[std::size_t(a.number)];
      return v.is_none() ? -1 : int(v.number);
    }
    Value v = eval(a);
    return v.is_none() ? -1 : int(v.number);
  }

  Bitboard eval_set(const Node& n) {
    Value v = eval(n);
    return v.kind == Value::Kind::Set ? v.set : 0;
  }

  // Numeric view of a value (a Set is its cardinality).
  static std::optional<std::int64_t> numeric(const Value& v) {
    if (v.kind == Value::Kind::Numeric) return v.number;
    if (v.kind == Value::Kind::Set) return popcount(v.set);
    return std::nullopt;
  }

  // The position whose book node and edge the book statistics read: the
  // current one, or at an imaginary position the child the speculative move
  // made; -1 when there is none.
  int book_position() const { return imaginary ? imagined_child : node; }

  // The child of the current position reached by mi's move, -1 when none is.
  int child_by_move(const MoveInfo& mi) const {
    for (int c : current().children) {
      const GameNode& g = game->nodes[std::size_t(c)];
      if (g.null_move == mi.null_move && (mi.null_move || g.move == mi.move)) return c;
    }
    return -1;
  }

  Value book_stat(Op op, BookStat stat) const {
    const int id = book_position();
    if (!options.book || id < 0) return Value::none();
    std::optional<std::int64_t> v;
    if (op == Op::BookNodeStat) {
      if (const BookNode* b = options.book->node(id)) v = node_stat(*b, stat, pos->side_to_move());
    } else if (const BookCounts* c = options.book->edge(id)) {
      v = edge_stat(*c, stat, ~pos->side_to_move());
    }
    return v ? Value::numeric(*v) : Value::none();
  }

  bool is_ancestor_or_self(int a, int b) const {
    const GameNode& n = game->nodes[std::size_t(a)];
    return b >= a && b < a + n.subtree_size;
  }

  bool compare(const Value& l, const Value& r, CompareOp op, bool& ok) const {
    ok = true;
    if (l.kind == Value::Kind::Set && r.kind == Value::Kind::Set && op == CompareOp::Eq)
      return l.set == r.set;
    if (l.kind == Value::Kind::String && r.kind == Value::Kind::String) {
      int c = l.text.compare(r.text);
      switch (op) {
        case CompareOp::Eq: return c == 0;
        case CompareOp::Lt: return c < 0;
        case CompareOp::Le: return c <= 0;
        case CompareOp::Gt: return c > 0;
        case CompareOp::Ge: return c >= 0;
      }
    }
    if (l.kind == Value::Kind::Position && r.kind == Value::Kind::Position) {
      int a = int(l.number), b = int(r.number);
      switch (op) {
        case CompareOp::Eq: return a == b;
        case CompareOp::Lt: return a != b && is_ancestor_or_self(a, b);
        case CompareOp::Le: return is_ancestor_or_self(a, b);
        case CompareOp::Gt: return a != b && is_ancestor_or_self(b, a);
        case CompareOp::Ge: return is_ancestor_or_self(b, a);
      }
    }
    auto a = numeric(l), b = numeric(r);
    if (!a || !b) {
      ok = false;
      return false;
    }
    switch (op) {
      case CompareOp::Eq: return *a == *b;
      case CompareOp::Lt: return *a < *b;
      case CompareOp::Le: return *a <= *b;
      case CompareOp::Gt: return *a > *b;
      case CompareOp::Ge: return *a >= *b;
    }
    return false;
  }

  const std::string* tag(std::string_view name) const { return game->tag(name); }

  std::optional<std::int64_t> elo_of(Color c) const {
    static const char* white[] = {"WhiteElo",  "WhiteRating", "WhiteRapid", "WhiteICCF",
                                  "WhiteUSCF", "WhiteDWZ",    "WhiteBCF"};
    static const char* black[] = {"BlackElo",  "BlackRating", "BlackRapid", "BlackICCF",
                                  "BlackUSCF", "BlackDWZ",    "BlackBCF"};
    for (int i = 0; i < 7; ++i) {
      const std::string* v = tag(c == Color::White ? white[i] : black[i]);
      if (!v || v->empty()) continue;
      std::int64_t n = 0;
      bool digits = false;
      for (char ch : *v) {
        if (ch < '0' || ch > '9') break;
        n = n * 10 + (ch - '0');
        digits = true;
      }
      if (digits) return n;
    }
    return std::nullopt;
  }

  std::string fen_text(bool normalized) const {
    std::string f = fen_with_last_double_push(
        *pos, imaginary ? Move() : current().move,
        imaginary || node == 0 ? nullptr : &game->nodes[std::size_t(current().parent)].position);
    if (!normalized) return f;
    // Replace the two counters with 0 1.
    std::size_t sp = f.size();
    for (int i = 0; i < 2; ++i) sp = f.rfind(' ', sp - 1);
    return f.substr(0, sp) + " 0 1";
  }

  // Evaluation by op group (ast.h), one file each: dispatch sends a filter
  // to its group's function.
  Value dispatch(const Node& n);
  Value eval_value(const Node& n);      // eval_value.cpp: literals, variables, operators, dictionaries
  Value eval_board(const Node& n);      // eval_board.cpp
  Value eval_control(const Node& n);    // eval_control.cpp: control flow, strings, transforms
  Value eval_metadata(const Node& n);   // eval_metadata.cpp: tags, result, book statistics
  Value eval_game_tree(const Node& n);  // eval_game_tree.cpp
  Value eval_move(const Node& n);
  Value eval_transform(const Node& n);
  Value eval_find(const Node& n);
  Value eval_assign(const Node& n);
  Value eval_line(const Node& n);
  // line piecepath: comments at the sequence's end the squares each piece of
  // the filter's set (at the start) visited, "Path of Ng1: g1-f3-g5".
  void comment_piece_paths(const Node& n, int end);

  // Dictionaries by variable slot: encoded key -> (key, value); never reset.
  std::map<std::int64_t, std::map<std::string, std::pair<Value, Value>>> dicts;
  static std::string dict_key(const Value& k) {
    switch (k.kind) {
      case Value::Kind::Numeric: return "n" + std::to_string(k.number);
      case Value::Kind::Set: return "s" + std::to_string(k.set);
      default: return "t" + k.text;
    }
  }
  static Value default_of(Type t) {
    return t == Type::Numeric ? Value::numeric(0) : t == Type::Set ? Value::squares(0) : Value::string("");
  }

  std::vector<std::vector<GameResult::Comment>> sort_comments;  // per sort key, of the best value

  // Ordinary variables start every game unbound; persistent ones are set to
  // 0, [] or "" before the first game and then kept.
  bool started = false;
  // The state of one game's evaluation, set anew for every game (run) and
  // every evaluate_at: what it reads and writes, its variables (persistent
  // ones carried over unless started is false), nestban marks and regex
  // groups.
  void begin_game(const Game& g, const EvalOptions& o, GameResult& result) {
    result.sort_values.resize(program.sorts.size());
    game = &g;
    options = o;
    out = &result;
    reset_variables();
    line_bans.clear();
    groups.clear();
  }
  void reset_variables() {
    const auto& info = program.variables;
    if (!started) {
      vars.assign(info.size(), Value::none());
      for (std::size_t i = 0; i < info.size(); ++i)
        if (info[i].persistent) vars[i] = default_of(info[i].type);  // Numeric, Set or String
      started = true;
      return;
    }
    for (std::size_t i = 0; i < info.size(); ++i)
      if (!info[i].persistent) vars[i] = Value::none();
  }
  Value eval_reverse_move(const Node& n, Bitboard from_set, Bitboard to_set, Bitboard capture_set);
};

}  // namespace gb::cql
