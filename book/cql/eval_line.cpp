// The line filter: a non-backtracking automaton walked over the game tree.
#include "book/cql/evaluator_impl.h"

namespace gb::cql {

Value Evaluator::Impl::eval_line(const Node& n) {
  const auto& nfa = n.nfa;
  const bool backward = n.line_spec.backward;
  const std::int64_t flags = n.line_spec.flags;
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
  // focus: positions where its filter fails are stepped over, neither
  // breaking the sequence nor counting in its length; the start must match.
  std::map<int, bool> focus_cache;
  auto in_focus = [&](int p) {
    if (n.line_spec.focus < 0) return true;
    auto it = focus_cache.find(p);
    if (it != focus_cache.end()) return it->second;
    At at(*this, p, &game->nodes[std::size_t(p)].position, false);
    int saved = linear_next;
    linear_next = -2;
    bool r = matches(*n.args[std::size_t(n.line_spec.focus)]);
    linear_next = saved;
    return focus_cache[p] = r;
  };
  if (!in_focus(node)) return Value::none();

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
    if (n.line_spec.focus < 0) return next;
    // Step over the positions out of focus, as many as it takes.
    std::vector<int> focused;
    while (!next.empty()) {
      std::vector<int> beyond;
      for (int c : next) {
        if (in_focus(c))
          focused.push_back(c);
        else
          step(c, beyond);
      }
      next = std::move(beyond);
    }
    std::sort(focused.begin(), focused.end());
    return focused;
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
  std::optional<std::int64_t> best_value;  // of max's filter at best_end
  std::vector<int> path, best_path;
  auto value_at_end = [&](int end) -> std::optional<std::int64_t> {
    At at(*this, end, &game->nodes[std::size_t(end)].position, false);
    int saved = linear_next;
    linear_next = -2;
    Value v = eval(*n.args[std::size_t(n.line_spec.maximize)]);
    linear_next = saved;
    return numeric(v);
  };
  auto record = [&](int len, int end) {
    if (has_range && !n.range.contains(len)) return;
    if (n.line_spec.maximize >= 0) {
      // max: the sequence whose end maximises the filter (None there: not a candidate); ties go to
      // the lowest end position.
      std::optional<std::int64_t> v = value_at_end(end);
      if (!v) return;
      if (best_len >= 0 && (*v < *best_value || (*v == *best_value && end >= best_end))) return;
      best_value = v;
    } else {
      bool better =
          best_len < 0 || (shortest ? len < best_len : len > best_len) || (len == best_len && end < best_end);
      if (!better) return;
    }
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
  if (n.line_spec.piecepath >= 0) comment_piece_paths(n, best_end);
  if (n.line_spec.last_position) return Value::position(best_end);
  return Value::numeric(best_len);
}

void Evaluator::Impl::comment_piece_paths(const Node& n, int end) {
  // The game's positions from the sequence's start (the current position) to its end, in the
  // order the sequence walks them, skipped ones (focus, singlecolor) included: every move counts.
  std::vector<int> chain;
  if (n.line_spec.backward) {
    for (int id = node;; id = game->nodes[std::size_t(id)].parent) {
      chain.push_back(id);
      if (id == end) break;
    }
  } else {
    for (int id = end;; id = game->nodes[std::size_t(id)].parent) {
      chain.push_back(id);
      if (id == node) break;
    }
    std::reverse(chain.begin(), chain.end());
  }
  const Bitboard pieces = eval_set(*n.args[std::size_t(n.line_spec.piecepath)]) & pos->pieces();
  for (Bitboard b = pieces; b;) {
    const Square from = pop_lsb(b);
    const std::uint8_t id = current().piece_ids[from];
    std::string text = std::string("Path of ") + piece_char(pos->piece_on(from)) + square_name(from) + ": ";
    int last = from;
    text += square_name(from);
    for (int p : chain) {
      const auto& ids = game->nodes[std::size_t(p)].piece_ids;
      const auto it = std::find(ids.begin(), ids.end(), id);
      if (it == ids.end()) break;  // captured
      const int sq = int(it - ids.begin());
      if (sq != last) text += "-" + square_name(Square(sq));
      last = sq;
    }
    out->comments.push_back({end, text, true});
  }
}

}  // namespace gb::cql
