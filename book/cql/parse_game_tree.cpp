// The game tree filters: their keywords, find, echo, sort, imagine.
#include "book/cql/parser_impl.h"

namespace gb::cql {

namespace {

enum class GameTreeKeyword : std::uint8_t {
  Position,
  Child,
  DistanceLca,
  AncestorDescendant,
  Find,
  Echo,
  Imagine,
  OriginalComment,
  Sort,
  ConsecutiveMoves,
};

const std::unordered_map<std::string_view, GameTreeKeyword> kGameTreeKeywords = {
    {"position", GameTreeKeyword::Position},
    {"child", GameTreeKeyword::Child},
    {"distance", GameTreeKeyword::DistanceLca},
    {"lca", GameTreeKeyword::DistanceLca},
    {"ancestor", GameTreeKeyword::AncestorDescendant},
    {"descendant", GameTreeKeyword::AncestorDescendant},
    {"find", GameTreeKeyword::Find},
    {"echo", GameTreeKeyword::Echo},
    {"imagine", GameTreeKeyword::Imagine},
    {"originalcomment", GameTreeKeyword::OriginalComment},
    {"hascomment", GameTreeKeyword::OriginalComment},
    {"sort", GameTreeKeyword::Sort},
    {"consecutivemoves", GameTreeKeyword::ConsecutiveMoves},
};

}  // namespace

NodePtr Parser::parse_game_tree_keyword(const Token& t) {
  const std::string& w = t.text;
  auto it = kGameTreeKeywords.find(w);
  if (it == kGameTreeKeywords.end()) {
    return nullptr;
  }
  switch (it->second) {
    case GameTreeKeyword::Position:
      return unary(Op::PositionById, Type::Position, t,
                   parse_typed(below(Prec::Function), Type::Numeric, "position"));
    case GameTreeKeyword::Child: {
      if (is_punct("(")) return typed_call(Op::Child, Type::Position, t, "child", Type::Numeric, 1, 1);
      return node(Op::Child, Type::Position, t);
    }
    case GameTreeKeyword::DistanceLca:
      return typed_call(w == "distance" ? Op::Distance : Op::Lca,
                        w == "distance" ? Type::Numeric : Type::Position, t, w.c_str(), Type::Position, 2, 2);
    case GameTreeKeyword::AncestorDescendant: {
      auto n = typed_call(Op::Compare, Type::Position, t, w.c_str(), Type::Position, 2, 2);
      n->compare = w == "ancestor" ? CompareOp::Lt : CompareOp::Gt;
      // Boolean result: not not X
      return unary(Op::Not, Type::Boolean, t, unary(Op::Not, Type::Boolean, t, std::move(n)));
    }
    case GameTreeKeyword::Find: return parse_find(t);
    case GameTreeKeyword::Echo: return parse_echo(t);
    case GameTreeKeyword::Imagine: return parse_imagine(t);
    case GameTreeKeyword::OriginalComment: return parse_original_comment(t);
    case GameTreeKeyword::Sort: return parse_sort(t);
    case GameTreeKeyword::ConsecutiveMoves: {
      accept_word("quiet");
      auto range = parse_range();
      auto n = typed_call(Op::ConsecutiveMoves, Type::Numeric, t, "consecutivemoves", Type::Position, 2, 2);
      if (range) n->range = {true, range->lo, range->hi};
      return n;
    }
  }
  return nullptr;
}

NodePtr Parser::parse_find(const Token& t) {
  auto n = node(Op::Find, Type::Position, t);
  for (;;) {
    if (accept_word("quiet")) continue;
    if (accept_punct("<--")) {
      n->find.backward = true;
      continue;
    }
    if (accept_word("all")) {
      n->find.all = true;
      n->type = Type::Numeric;
      continue;
    }
    break;
  }
  if (!n->find.all) {
    if (auto r = parse_range()) {
      n->range = {true, r->lo, r->hi};
      n->type = Type::Numeric;
    }
  }
  n->args.push_back(parse_expr(kFull));
  return n;
}

NodePtr Parser::parse_imagine(const Token& t) {
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

NodePtr Parser::parse_echo(const Token& t) {
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
  n->echo.source = declare(source.text, Type::Position);
  n->echo.target = declare(target.text, Type::Position);
  n->echo.in_all = in_all;
  n->args.push_back(parse_expr(kFull));
  scopes_.pop_back();
  if (n->args[0]->type == Type::Numeric) n->type = Type::Numeric;
  return n;
}

NodePtr Parser::parse_original_comment(const Token& t) {
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

NodePtr Parser::parse_sort(const Token& t) {
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

}  // namespace gb::cql
