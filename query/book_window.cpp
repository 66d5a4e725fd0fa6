#include "query/book_window.h"

#include <algorithm>
#include <cassert>

#include "book/store/polyglot.h"

namespace gb::query {

void number_pieces(cql::GameNode& root) {
  std::uint8_t next = 1;
  for (int r = 7; r >= 0; --r)
    for (int f = 0; f < 8; ++f) {
      Square s = make_square(File(f), Rank(r));
      if (!root.position.empty(s)) root.piece_ids[s] = next++;
    }
}

void BookWindow::book_moves(const Position& pos, std::string_view section, std::vector<Move_>& out) const {
  out.clear();
  store::SectionReader reader(section);
  std::uint16_t move;
  store::EdgeRecord r;
  while (reader.next(move, r)) {
    if (r.flags & store::kEdgeKeyOnly) {  // an imported .bin's entry: its child is the position after it
      Move legal = store::from_polyglot_move(pos, store::to_polyglot_move(Move(move)));
      if (!legal) continue;
      Position after = pos;
      UndoInfo undo;
      after.do_move(legal, undo);
      r.child_key = after.key();
      move = legal.raw();
    }
    out.push_back({Move(move), r});
  }
  std::stable_sort(out.begin(), out.end(), [](const Move_& a, const Move_& b) {
    return a.record.counters.games > b.record.counters.games;
  });
}

void BookWindow::add_book_moves(int parent, Key parent_key, std::string_view section, int depth) {
  assert(std::size_t(depth) < scratch_.size());  // never resized: a deeper call keeps this list
  std::vector<Move_>& moves = scratch_[std::size_t(depth)];
  book_moves(game_.nodes[std::size_t(parent)].position, section, moves);
  for (const Move_& m : moves) {
    int id = cql::add_child(game_.nodes, parent, m.move, false);
    Slot& s = slot(id);
    s.edge = book_counts(m.record.counters);
    s.edge.learned = sections_.learned(parent_key, m.move);
    s.edge_known = Known::Yes;
    if (depth < window_depth_ && shape_.descendants)
      if (auto below = sections_.section(m.record.child_key))
        add_book_moves(id, m.record.child_key, *below, depth + 1);
  }
}

BookWindow::Slot& BookWindow::slot(int id) const {
  if (slots_.size() <= std::size_t(id)) slots_.resize(std::size_t(id) + 1);
  return slots_[std::size_t(id)];
}

const cql::Game& BookWindow::build(const NodeVisit& visit) {
  game_.nodes.clear();
  if (shape_.line) {
    game_.nodes.emplace_back(*visit.start);
    number_pieces(game_.nodes[0]);
    game_.nodes[0].ply = visit.ply - int(visit.line.size());
    for (std::size_t i = 0; i < visit.line.size(); ++i)
      cql::add_child(game_.nodes, int(i), visit.line[i], false);
  } else {
    game_.nodes.emplace_back(*visit.position);
    game_.nodes[0].ply = visit.ply;  // no piece identity: only the line's filters read it
  }
  current_ = int(game_.nodes.size()) - 1;
  assert(game_.nodes[std::size_t(current_)].position.key() == visit.key);
  for (Slot& s : slots_) s.node_known = s.edge_known = Known::No;
  if (shape_.children) add_book_moves(current_, visit.key, visit.section, 1);
  // The subtree sizes, children after their parents in ID order.
  for (auto& n : game_.nodes) n.subtree_size = 1;
  for (int id = int(game_.nodes.size()) - 1; id > 0; --id)
    game_.nodes[std::size_t(game_.nodes[std::size_t(id)].parent)].subtree_size +=
        game_.nodes[std::size_t(id)].subtree_size;
  // What the traversal already has of the node: its record and the edge it came by.
  Slot& s = slot(current_);
  if (visit.record) {
    s.node.counts = book_counts(visit.record->counters);
    s.node.ply = visit.record->min_ply;
    s.node.book_moves = 0;
    store::SectionReader reader(visit.section);
    std::uint16_t move;
    while (reader.next(move)) ++s.node.book_moves;
    s.node.counts.learned = sections_.learned(visit.key, Move());
    s.node_known = Known::Yes;
  } else {
    s.node_known = Known::Absent;
  }
  if (visit.arrival) {
    s.edge = book_counts(*visit.arrival);
    Move arrived = visit.line.empty() ? Move() : visit.line.back();
    s.edge.learned = sections_.learned(visit.parent_key, arrived);
    s.edge_known = Known::Yes;
  } else if (current_ == 0) {
    s.edge_known = Known::Absent;
  }
  return game_;
}

const cql::BookNode* BookWindow::node(int id) const {
  if (id < 0 || id >= int(game_.nodes.size())) return nullptr;
  Slot& s = slot(id);
  if (s.node_known == Known::No) {
    s.node_known = Known::Absent;
    if (auto section = sections_.section(game_.nodes[std::size_t(id)].position.key())) {
      store::SectionReader reader(*section);
      if (auto r = reader.node()) {
        s.node = cql::BookNode{};
        s.node.counts = book_counts(r->counters);
        s.node.ply = r->min_ply;
        std::uint16_t move;
        while (reader.next(move)) ++s.node.book_moves;
        s.node_known = Known::Yes;
      }
    }
    if (s.node_known == Known::Yes)
      s.node.counts.learned = sections_.learned(game_.nodes[std::size_t(id)].position.key(), Move());
  }
  return s.node_known == Known::Yes ? &s.node : nullptr;
}

const cql::BookCounts* BookWindow::edge(int id) const {
  if (id <= 0 || id >= int(game_.nodes.size())) {
    if (id == 0 && id < int(slots_.size()) && slots_[0].edge_known == Known::Yes) return &slots_[0].edge;
    return nullptr;
  }
  Slot& s = slot(id);
  if (s.edge_known == Known::No) {
    s.edge_known = Known::Absent;
    const cql::GameNode& child = game_.nodes[std::size_t(id)];
    Key parent_key = game_.nodes[std::size_t(child.parent)].position.key();
    if (auto section = sections_.section(parent_key)) {
      store::SectionReader reader(*section);
      std::uint16_t move;
      store::EdgeRecord r;
      while (reader.next(move, r))
        if (move == child.move.raw()) {
          s.edge = book_counts(r.counters);
          s.edge.learned = sections_.learned(parent_key, child.move);
          s.edge_known = Known::Yes;
          break;
        }
    }
  }
  return s.edge_known == Known::Yes ? &s.edge : nullptr;
}

}  // namespace gb::query
