#include "book/cql/game.h"

#include <functional>

#include "book/chess/notation.h"

namespace gb::cql {

const std::string* Game::tag(std::string_view name) const {
  for (const auto& [k, v] : tags)
    if (k == name) return &v;
  return nullptr;
}

int add_child(std::vector<GameNode>& nodes, int parent, Move m, bool null_move) {
  GameNode child(nodes[parent].position);
  {
    const GameNode& p = nodes[parent];
    child.piece_ids = p.piece_ids;
    child.promoted = p.promoted;
    child.depth = p.depth + (p.children.empty() ? 0 : 1);
    child.ply = p.ply + 1;
  }
  child.parent = parent;
  child.move = m;
  child.null_move = null_move;
  UndoInfo undo;
  if (null_move) {
    child.position.do_null_move(undo);
  } else {
    const Position& before = nodes[parent].position;
    Square from = m.from(), to = m.to();
    Color us = before.side_to_move();
    std::uint8_t id = child.piece_ids[from];
    bool promoted = child.promoted & square_bb(from);
    child.piece_ids[from] = 0;
    child.promoted &= ~square_bb(from);
    if (m.kind() == Move::Kind::Castling) {
      bool king_side = to > from;
      std::uint8_t rook_id = child.piece_ids[to];
      child.piece_ids[to] = 0;
      child.piece_ids[Position::castle_king_to(us, king_side)] = id;
      child.piece_ids[Position::castle_rook_to(us, king_side)] = rook_id;
    } else {
      if (m.kind() == Move::Kind::EnPassant) {
        Square cap = Square(to - pawn_push(us));
        child.piece_ids[cap] = 0;
      }
      child.promoted &= ~square_bb(to);
      child.piece_ids[to] = id;
      if (m.kind() == Move::Kind::Promotion || promoted) child.promoted |= square_bb(to);
    }
    child.position.do_move(m, undo);
  }
  nodes.push_back(std::move(child));
  int id = int(nodes.size()) - 1;
  nodes[parent].children.push_back(id);
  return id;
}

std::optional<FenError> GameBuilder::begin(std::string_view fen) {
  Position start;
  if (!fen.empty()) {
    FenError e;
    auto pos = Position::from_fen(fen, &e);
    if (!pos) return e;
    start = *pos;
  }
  begin(start);
  return std::nullopt;
}

void GameBuilder::begin(const Position& start) {
  nodes_.clear();
  result_ = "*";
  current_ = 0;
  stack_.clear();
  pending_before_.clear();
  after_move_ = false;
  GameNode root(start);
  std::uint8_t next = 1;
  for (int r = 7; r >= 0; --r)
    for (int f = 0; f < 8; ++f) {
      Square s = make_square(File(f), Rank(r));
      if (!root.position.empty(s)) root.piece_ids[s] = next++;
    }
  nodes_.push_back(std::move(root));
}

void GameBuilder::reset() {
  nodes_.clear();
  tags_.clear();
  stack_.clear();
  pending_before_.clear();
}

void GameBuilder::add_tag(std::string name, std::string value) {
  tags_.emplace_back(std::move(name), std::move(value));
}

std::string SanError::message() const {
  if (!reason) return "null move while in check";
  return std::string(to_string(*reason)) + " move '" + san + "'";
}

std::optional<SanError> GameBuilder::add_san(std::string_view san) {
  const Position& pos = nodes_[current_].position;
  bool null_move = san == "--" || san == "Z0" || san == "null" || san == "pass" || san == "0000";
  Move m;
  if (null_move) {
    if (pos.in_check()) return SanError{std::string(san), std::nullopt};
  } else {
    MoveParse parsed = parse_san(pos, san);
    if (!parsed.ok()) return SanError{std::string(san), parsed.error};
    m = parsed.move;
  }
  add_move(m, null_move);
  return std::nullopt;
}

void GameBuilder::add_move(Move m, bool null_move) {
  int child = add_child(nodes_, current_, m, null_move);
  nodes_[child].comments_before = std::move(pending_before_);
  pending_before_.clear();
  current_ = child;
  after_move_ = true;
}

void GameBuilder::add_comment(std::string text) {
  if (after_move_ || (current_ == 0 && stack_.empty()))
    nodes_[current_].comments.push_back(std::move(text));
  else
    pending_before_.push_back(std::move(text));
}

void GameBuilder::add_nag(int nag) { nodes_[current_].nags.push_back(nag); }

bool GameBuilder::begin_variation() {
  if (current_ == 0 || nodes_[current_].parent < 0) return false;
  stack_.push_back(current_);
  current_ = nodes_[current_].parent;
  after_move_ = false;
  return true;
}

void GameBuilder::end_variation() {
  if (stack_.empty()) return;
  current_ = stack_.back();
  stack_.pop_back();
  pending_before_.clear();
  after_move_ = true;
}

void GameBuilder::set_result(std::string_view result) { result_ = std::string(result); }

Game GameBuilder::finish(std::int64_t number) {
  // Renumber depth-first, primary child first.
  std::vector<int> order;
  order.reserve(nodes_.size());
  std::vector<int> stack{0};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    order.push_back(n);
    const auto& ch = nodes_[n].children;
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);
  }
  Game g;
  bool identity = true;
  for (std::size_t i = 0; i < order.size(); ++i) identity &= order[i] == int(i);
  if (identity) {
    g.nodes = std::move(nodes_);
  } else {
    std::vector<int> new_id(nodes_.size());
    for (std::size_t i = 0; i < order.size(); ++i) new_id[std::size_t(order[i])] = int(i);
    g.nodes.reserve(nodes_.size());
    for (int old : order) {
      GameNode& n = nodes_[std::size_t(old)];
      if (n.parent >= 0) n.parent = new_id[std::size_t(n.parent)];
      for (int& c : n.children) c = new_id[std::size_t(c)];
      g.nodes.push_back(std::move(n));
    }
  }
  for (int i = int(g.nodes.size()) - 1; i > 0; --i)
    g.nodes[g.nodes[i].parent].subtree_size += g.nodes[i].subtree_size;
  g.tags = std::move(tags_);
  g.result = result_;
  g.number = number;
  nodes_.clear();
  tags_.clear();
  return g;
}

}  // namespace gb::cql
