// The line filter: its constituents, quantifiers and the automaton built from them.
#include <cassert>

#include "book/cql/parser_impl.h"

namespace gb::cql {

namespace {

enum class LineKeyword : std::uint8_t {
  Line,
};

const std::unordered_map<std::string_view, LineKeyword> kLineKeywords = {
    {"line", LineKeyword::Line},
};

}  // namespace

NodePtr Parser::parse_line_keyword(const Token& t) {
  const std::string& w = t.text;
  auto it = kLineKeywords.find(w);
  if (it == kLineKeywords.end()) {
    return nullptr;
  }
  switch (it->second) {
    case LineKeyword::Line: return parse_line(t);
  }
  return nullptr;
}

bool Parser::group_ahead() const {
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

bool Parser::accept_symbol_quantifier(LineItem& item) {
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

void Parser::parse_quantifier(LineItem& item) {
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

std::vector<Parser::LineItem> Parser::parse_line_items(Node& line, const std::string& arrow, bool in_group) {
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

// The shape eval_line relies on: (kind, a, b) triples; state 0 a Split to
// the first constituent; every exit patched (a Filter goes on to a state, a
// Split to two, none to -1) and a Filter tests an argument the node has; one
// Accept, the last state.
[[maybe_unused]] static bool line_automaton_is_whole(const std::vector<std::int32_t>& nfa, std::size_t args) {
  const std::int32_t states = std::int32_t(nfa.size() / 3);
  if (nfa.size() % 3 != 0 || states < 2 || LineState(nfa[0]) != LineState::Split) return false;
  auto state = [&](std::int32_t s) { return s >= 0 && s < states; };
  for (std::int32_t s = 0; s < states; ++s) {
    const std::int32_t a = nfa[std::size_t(s) * 3 + 1], b = nfa[std::size_t(s) * 3 + 2];
    switch (LineState(nfa[std::size_t(s) * 3])) {
      case LineState::Filter:
        if (a < 0 || std::size_t(a) >= args || !state(b)) return false;
        break;
      case LineState::Split:
        if (!state(a) || !state(b)) return false;
        break;
      case LineState::Accept:
        if (s != states - 1) return false;
        break;
      default: return false;
    }
  }
  return LineState(nfa[std::size_t(states - 1) * 3]) == LineState::Accept;
}

int Parser::add_state(std::vector<std::int32_t>& nfa, LineState kind, int a, int b) {
  nfa.push_back(std::int32_t(kind));
  nfa.push_back(a);
  nfa.push_back(b);
  if (nfa.size() / 3 > 100000) fail("the line filter expands to more than 100000 constituents");
  return int(nfa.size() / 3) - 1;
}

void Parser::patch(std::vector<std::int32_t>& nfa, const std::vector<std::pair<int, int>>& outs, int to) {
  for (auto [s, field] : outs) nfa[std::size_t(s * 3 + field)] = to;
}

Parser::Fragment Parser::build_sequence(std::vector<std::int32_t>& nfa, const std::vector<LineItem>& items) {
  Fragment f = build_item(nfa, items[0]);
  for (std::size_t i = 1; i < items.size(); ++i) {
    Fragment g = build_item(nfa, items[i]);
    patch(nfa, f.outs, g.start);
    f.outs = g.outs;
  }
  return f;
}

Parser::Fragment Parser::build_once(std::vector<std::int32_t>& nfa, const LineItem& item) {
  if (item.filter >= 0) {
    int s = add_state(nfa, LineState::Filter, item.filter, -1);
    return {s, {{s, 2}}};
  }
  return build_sequence(nfa, item.group);
}

Parser::Fragment Parser::build_item(std::vector<std::int32_t>& nfa, const LineItem& item) {
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

NodePtr Parser::parse_line(const Token& t) {
  auto n = node(Op::Line, Type::Numeric, t);
  for (;;) {
    if (accept_word("firstmatch"))
      n->line_spec.flags |= kLineFirstMatch;
    else if (accept_word("nestban"))
      n->line_spec.flags |= kLineNestBan;
    else if (accept_word("singlecolor"))
      n->line_spec.flags |= kLineSingleColor;
    else if (accept_word("primary"))
      n->line_spec.flags |= kLinePrimary;
    else if (accept_word("secondary"))
      n->line_spec.flags |= kLineSecondary;
    else if (accept_word("lastposition"))
      n->line_spec.last_position = true;
    else if (accept_word("quiet"))
      n->line_spec.flags |= kLineQuiet;
    else if (accept_word("nonatomic")) {
      // Constituents here always update variables as they go: nonatomic is what they do.
    } else if (is_word("focus") || is_word("max") || is_word("piecepath")) {
      const Token p = tok();
      ++pos_;
      int& slot = p.text == "focus" ? n->line_spec.focus
                  : p.text == "max" ? n->line_spec.maximize
                                    : n->line_spec.piecepath;
      if (slot >= 0) fail_at(p, "line parameter '" + p.text + "' given twice");
      slot = int(n->args.size());
      n->args.push_back(p.text == "max"         ? parse_typed(kFull, Type::Numeric, "line max")
                        : p.text == "piecepath" ? parse_typed(kFull, Type::Set, "line piecepath")
                                                : parse_expr(kFull));
    } else if (is_word("nolinearize") || is_word("keepallbest") || is_word("verbose") || is_word("title"))
      fail("line parameter '" + tok().text + "' is not implemented yet");
    else
      break;
  }
  if (auto r = parse_range()) {
    n->line_spec.flags |= kLineHasRange;
    n->range = {true, r->lo, r->hi};
  }
  std::string arrow;
  if (is_punct("-->"))
    arrow = "-->";
  else if (is_punct("<--"))
    arrow = "<--";
  else
    fail("unexpected " + describe(tok()), "'-->' or '<--' starting the line's constituents");
  if ((n->line_spec.flags & kLineFirstMatch) && n->line_spec.maximize >= 0)
    fail_at(t, "firstmatch cannot be combined with max");
  n->line_spec.backward = arrow == "<--";
  if (n->line_spec.backward && (n->line_spec.flags & kLineNestBan))
    fail_at(t, "nestban does not work on backward lines");
  std::vector<LineItem> items = parse_line_items(*n, arrow, false);
  std::vector<std::int32_t> nfa;
  add_state(nfa, LineState::Split, -1, -1);  // state 0 is the start
  Fragment f = build_sequence(nfa, items);
  nfa[1] = f.start;
  nfa[2] = f.start;
  int accept = add_state(nfa, LineState::Accept, -1, -1);
  patch(nfa, f.outs, accept);
  assert(line_automaton_is_whole(nfa, n->args.size()));
  n->nfa = std::move(nfa);
  n->text = std::to_string(line_count_++);  // the line's identity for nestban
  if (n->line_spec.last_position) n->type = Type::Position;
  return n;
}

}  // namespace gb::cql
