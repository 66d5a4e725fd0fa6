#include "book/cql/evaluator.h"

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

namespace gb::cql {

namespace {

constexpr Bitboard kAll = ~Bitboard(0);

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

std::string portray(const Value& v, const Game* game) {
  switch (v.kind) {
    case Value::Kind::None: return "";
    case Value::Kind::Boolean: return v.number ? "true" : "false";
    case Value::Kind::Numeric: return std::to_string(v.number);
    case Value::Kind::String: return v.text;
    case Value::Kind::Set: {
      if (v.set && !more_than_one(v.set)) return square_name(lsb(v.set));
      std::string s = "[";
      for (Bitboard b = v.set; b;) {
        s += square_name(pop_lsb(b));
        if (b) s += ",";
      }
      return s + "]";
    }
    case Value::Kind::Position: {
      if (!game) return "position " + std::to_string(v.number);
      const GameNode& n = game->nodes[std::size_t(v.number)];
      std::string s = "move " + std::to_string(n.position.fullmove_number()) +
                      (n.position.side_to_move() == Color::White ? "(wtm)" : "(btm)");
      if (n.depth > 0) s += "[" + std::to_string(v.number) + "]";
      return s;
    }
    case Value::Kind::Piece: return "piece " + std::to_string(v.number);
  }
  return "";
}

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

  Value dispatch(const Node& n);
  Value eval_move(const Node& n);
  Value eval_transform(const Node& n);
  Value eval_find(const Node& n);
  Value eval_assign(const Node& n);
  Value eval_line(const Node& n);

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

Value Evaluator::Impl::eval_line(const Node& n) {
  const auto& nfa = n.nfa;
  const bool backward = n.flag;
  const std::int64_t flags = n.number;
  const int states = int(nfa.size() / 3);
  auto kind = [&](int s) { return LineState(nfa[std::size_t(s * 3)]); };
  auto field = [&](int s, int f) { return nfa[std::size_t(s * 3 + f)]; };
  std::vector<char>* bans = nullptr;
  if (flags & kLineNestBan) {
    auto& b = line_bans[n.text];
    if (b.size() != game->nodes.size()) b.assign(game->nodes.size(), 0);
    if (b[std::size_t(node)]) return Value::none();
    bans = &b;
  }
  if (imaginary) return Value::none();
  const Color start_color = pos->side_to_move();

  // Filter states reachable from seeds without consuming; sets *accept when Accept is.
  std::vector<char> mark(static_cast<std::size_t>(states));
  auto closure = [&](const std::vector<int>& seeds, bool* accept) {
    std::fill(mark.begin(), mark.end(), 0);
    std::vector<int> stack = seeds, out;
    while (!stack.empty()) {
      int s = stack.back();
      stack.pop_back();
      if (s < 0 || mark[std::size_t(s)]) continue;
      mark[std::size_t(s)] = 1;
      switch (kind(s)) {
        case LineState::Filter: out.push_back(s); break;
        case LineState::Split:
          stack.push_back(field(s, 1));
          stack.push_back(field(s, 2));
          break;
        case LineState::Accept: *accept = true; break;
      }
    }
    return out;
  };
  auto successors = [&](int p) {
    std::vector<int> next;
    auto step = [&](int from, std::vector<int>& into) {
      if (backward) {
        int parent = game->nodes[std::size_t(from)].parent;
        if (parent >= 0) into.push_back(parent);
        return;
      }
      const auto& ch = game->nodes[std::size_t(from)].children;
      for (std::size_t i = 0; i < ch.size(); ++i) {
        if (!visible(ch[i])) continue;
        if ((flags & kLinePrimary) && i > 0) continue;
        if ((flags & kLineSecondary) && i == 0) continue;
        into.push_back(ch[i]);
      }
    };
    step(p, next);
    if (flags & kLineSingleColor) {
      std::vector<int> two;
      for (int c : next) step(c, two);
      next = std::move(two);
    }
    return next;
  };
  // The child on the way from p to a successor q (for move linearization).
  auto child_towards = [&](int p, int q) {
    if (backward || q < 0) return backward ? -2 : -1;
    while (game->nodes[std::size_t(q)].parent != p) q = game->nodes[std::size_t(q)].parent;
    return q;
  };
  std::map<std::tuple<int, int, int>, bool> cache;
  auto test = [&](int filter, int p, int q) {
    auto key = std::make_tuple(filter, p, q);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    At at(*this, p, &game->nodes[std::size_t(p)].position, false);
    int saved = linear_next;
    linear_next = child_towards(p, q);
    bool r = matches(*n.args[std::size_t(filter)]);
    linear_next = saved;
    return cache[key] = r;
  };
  const bool has_range = flags & kLineHasRange;
  const bool shortest = flags & kLineFirstMatch;
  int best_len = -1, best_end = -1;
  std::vector<int> path, best_path;
  auto record = [&](int len, int end) {
    if (has_range && (len < n.number2 || len > n.number3)) return;
    bool better =
        best_len < 0 || (shortest ? len < best_len : len > best_len) || (len == best_len && end < best_end);
    if (!better) return;
    best_len = len;
    best_end = end;
    best_path = path;
  };
  std::function<void(int, const std::vector<int>&, int)> walk = [&](int p, const std::vector<int>& ready,
                                                                    int len) {
    if ((flags & kLineSingleColor) && game->nodes[std::size_t(p)].position.side_to_move() != start_color)
      return;
    path.push_back(p);
    std::vector<int> next = successors(p);
    if (next.empty()) next.push_back(-1);
    for (int q : next) {
      std::vector<int> seeds;
      for (int s : ready)
        if (test(field(s, 1), p, q)) seeds.push_back(field(s, 2));
      if (seeds.empty()) continue;
      bool accept = false;
      std::vector<int> more = closure(seeds, &accept);
      if (accept) record(len + 1, p);
      if (q >= 0 && !more.empty()) walk(q, more, len + 1);
    }
    path.pop_back();
  };
  bool accept_empty = false;
  std::vector<int> start = closure({0}, &accept_empty);
  walk(node, start, 0);
  if (best_len < 0) return Value::none();
  if (bans)
    for (int id : best_path) (*bans)[std::size_t(id)] = 1;
  if (!(flags & kLineQuiet)) {  // section 18's automatic comments, kept under Smart Comments
    std::string start = portray(Value::position(node), game), end = portray(Value::position(best_end), game);
    out->comments.push_back({node, "Start line that ends at " + end, true});
    out->comments.push_back(
        {best_end, "End line of length " + std::to_string(best_len) + " that starts at " + start, true});
  }
  if (n.flag2) return Value::position(best_end);
  return Value::numeric(best_len);
}

Value Evaluator::Impl::eval_assign(const Node& n) {
  Value rhs = eval(*n.args[0]);
  if (rhs.is_none()) return Value::boolean(false);
  Value& var = vars[std::size_t(n.number)];
  switch (AssignOp(n.number2)) {
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
  return Value::boolean(compound_assign(AssignOp(n.number2), var, rhs));
}

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
  if (n.flag2) {  // deprecated range form: the count if within the range
    if (count >= n.number && count <= n.number2) return Value::numeric(count);
    return Value::none();
  }
  if (n.flag) return Value::numeric(count);
  if (n.type == Type::Set) return Value::squares(set);
  if (n.type == Type::Numeric) return best ? Value::numeric(*best) : Value::none();
  return Value::boolean(count > 0);
}

Value Evaluator::Impl::eval_find(const Node& n) {
  const Node& body = *n.args[0];
  bool all = n.flag, backward = n.flag2, ranged = n.number3 == 1;
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
  if (ranged) return count >= n.number && count <= n.number2 ? Value::numeric(count) : Value::none();
  return found >= 0 ? Value::position(found) : Value::none();
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

Value Evaluator::Impl::dispatch(const Node& n) {
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
      return Value::boolean(n.flag ? !bound : bound);
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
      Value l = eval(*n.args[0]), r = eval(*n.args[1]);
      if (l.is_none() || r.is_none()) return Value::none();
      const Position& a = game->nodes[std::size_t(l.number)].position;
      const Position& b = game->nodes[std::size_t(r.number)].position;
      Bitboard same = 0;
      for (int sq = 0; sq < 64; ++sq)
        if (a.piece_on(Square(sq)) == b.piece_on(Square(sq))) same |= square_bb(Square(sq));
      return Value::squares(same);
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
      if (!compare(l, r, CompareOp(n.number), ok) || !ok) return Value::none();
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
      if (n.flag) {
        Value v = eval(*n.args[k++]);
        if (v.is_none()) return Value::none();
        a = v.number;
      }
      if (n.flag2) {
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
      return Value::squares(direction_squares(v.set, n.directions, int(n.number), int(n.number2)));
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
      Bitboard from = n.number >= 0 ? eval_set(*n.args[std::size_t(n.number)]) : pos->pieces();
      Bitboard through = n.number2 >= 0 ? eval_set(*n.args[std::size_t(n.number2)]) : pos->pieces();
      Bitboard to = n.number3 >= 0 ? eval_set(*n.args[std::size_t(n.number3)]) : pos->pieces(PieceType::King);
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
      if (n.flag) return Value::boolean(all);
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
      if (n.flag) {  // message quiet: the text alone
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
    case Op::Result: return Value::boolean(game->result == n.text);
    case Op::TagValue:
    case Op::TagContains: {
      std::optional<std::string> value;
      if (n.number == 2) {
        const std::string *w = tag("White"), *b = tag("Black");
        if (!w && !b) return n.op == Op::TagValue ? Value::none() : Value::boolean(false);
        value = (w ? *w : "") + "\n" + (b ? *b : "");
      } else {
        std::string name = n.number == 1 ? "White" : n.number == -1 ? "Black" : n.text;
        if (const std::string* t = tag(name))
          value = *t;
        else if (name == "Date")
          if (const std::string* u = tag("UTCDate")) value = *u;  // date: Date, else UTCDate
      }
      if (n.op == Op::TagValue) return value ? Value::string(*value) : Value::none();
      return Value::boolean(value && value->find(n.args[0]->text) != std::string::npos);
    }
    case Op::Year: {
      const std::string* d = tag("Date");
      if (!d || d->size() < 4 || !std::isdigit(static_cast<unsigned char>((*d)[0]))) d = tag("UTCDate");
      if (!d || d->size() < 4) return Value::none();
      std::int64_t y = 0;
      for (int i = 0; i < 4; ++i) {
        if (!std::isdigit(static_cast<unsigned char>((*d)[std::size_t(i)]))) return Value::none();
        y = y * 10 + ((*d)[std::size_t(i)] - '0');
      }
      return Value::numeric(y);
    }
    case Op::Elo: {
      if (n.number == 1 || n.number == -1) {
        auto e = elo_of(n.number == 1 ? Color::White : Color::Black);
        return e ? Value::numeric(*e) : Value::none();
      }
      auto w = elo_of(Color::White), b = elo_of(Color::Black);
      if (!w || !b) return Value::none();
      return Value::numeric(std::max(*w, *b));
    }
    case Op::Tag: {
      const std::string* t = tag(n.text);
      return t ? Value::string(*t) : Value::none();
    }
    case Op::SetTag: {
      Value name = eval(*n.args[0]), value = eval(*n.args[1]);
      if (name.is_none() || value.is_none() || name.text.empty()) return Value::boolean(false);
      for (char c : name.text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return Value::boolean(false);
      for (char& c : value.text)
        if (c == '\n' || c == '\r') c = ' ';
      out->tag_edits.emplace_back(name.text, value.text);
      return Value::boolean(true);
    }
    case Op::RemoveTag: out->tag_edits.emplace_back(n.text, std::nullopt); return Value::boolean(true);
    case Op::GameNumber: return Value::numeric(game->number);
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
    case Op::Line: return eval_line(n);
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
      if (n.flag && (best < n.number || best > n.number2)) return Value::none();
      return Value::numeric(best);
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
      AssignOp op = AssignOp(n.number2);
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
      for (const auto& [code, kv] : dicts[n.number2]) keys.push_back(kv.first);
      Value& var = vars[std::size_t(n.number)];
      for (const Value& k : keys) {
        var = k;
        eval(*n.args[0]);
      }
      var = Value::none();
      return Value::boolean(true);
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
    case Op::Echo: {
      Value& source = vars[std::size_t(n.number)];
      Value& target = vars[std::size_t(n.number2)];
      source = Value::position(node);
      std::optional<std::int64_t> best;
      bool any = false;
      for (int id = 0; id < int(game->nodes.size()); ++id) {
        if (!visible(id) || (id == node && !n.flag)) continue;
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
    case Op::BookNodeStat:
    case Op::BookMoveStat: return book_stat(n.op, BookStat(n.number));
    case Op::Distance:
    case Op::Lca: {
      Value a = eval(*n.args[0]), b = eval(*n.args[1]);
      if (a.is_none() || b.is_none()) return Value::none();
      auto [lca, distance] = common_ancestor(int(a.number), int(b.number));
      return n.op == Op::Lca ? Value::position(lca) : Value::numeric(distance);
    }
  }
  return Value::none();
}

Evaluator::Evaluator(const Program& program) : impl_(std::make_shared<Impl>(program)) {}

GameResult Evaluator::run(const Game& game, const EvalOptions& options) {
  Impl& e = *impl_;
  GameResult result;
  e.begin_game(game, options, result);
  for (int id = 0; id < int(game.nodes.size()); ++id) {
    if (!e.visible(id)) continue;
    e.node = id;
    e.pos = &game.nodes[std::size_t(id)].position;
    e.imaginary = false;
    if (e.matches(*e.program.root)) result.matched_positions.push_back(id);
    if (result.assert_failure) break;
  }
  if (result.matched())
    for (auto& list : e.sort_comments)
      for (auto& c : list) result.comments.push_back(std::move(c));
  e.sort_comments.clear();
  e.out = nullptr;
  return result;
}

GameResult Evaluator::run_at(const Game& game, int position_id, const EvalOptions& options) {
  assert(position_id >= 0 && position_id < int(game.nodes.size()));
  Impl& e = *impl_;
  GameResult result;
  e.begin_game(game, options, result);
  e.node = position_id;
  e.pos = &game.nodes[std::size_t(position_id)].position;
  e.imaginary = false;
  if (e.matches(*e.program.root)) {
    result.matched_positions.push_back(position_id);
    for (auto& list : e.sort_comments)
      for (auto& c : list) result.comments.push_back(std::move(c));
  }
  e.sort_comments.clear();
  e.out = nullptr;
  return result;
}

std::vector<std::string> Evaluator::persistent_values() const {
  std::vector<std::string> out;
  if (!impl_->started) return out;  // no game run yet: vars is still empty
  const auto& info = impl_->program.variables;
  for (std::size_t i = 0; i < info.size(); ++i)
    if (info[i].persistent && !info[i].quiet)
      out.push_back(info[i].name + " = " + portray(impl_->vars[i], nullptr));
  return out;
}

Value Evaluator::evaluate_at(const Game& game, int position_id, const EvalOptions& options) {
  Impl& e = *impl_;
  GameResult scratch;
  e.started = false;  // no persistent variable carries over
  e.begin_game(game, options, scratch);
  e.node = position_id;
  e.pos = &game.nodes[std::size_t(position_id)].position;
  e.imaginary = false;
  // Each top-level filter in turn; the last one's value, None if an earlier one fails.
  Value v;
  const auto& filters = e.program.root->args;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    v = e.eval(*filters[i]);
    if (i + 1 < filters.size() && !v.matches()) {
      v = Value::none();
      break;
    }
  }
  e.out = nullptr;
  return v;
}

}  // namespace gb::cql
