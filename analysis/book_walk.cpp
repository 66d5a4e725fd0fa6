#include "analysis/book_walk.h"

#include <unordered_set>

#include "book/store/records.h"
#include "book/store/section_groups.h"

namespace gb::analysis {

std::optional<std::vector<Position>> positions_below(store::Book& book, const Position& root,
                                                     const WalkOptions& options, store::Error* error) {
  auto txn = store::ReadTxn::begin(book.env(), error);
  if (!txn) return std::nullopt;
  std::vector<Position> out;
  std::unordered_set<Key> seen{root.key()};
  std::vector<Position> level{root};
  std::vector<store::BookEdge> edges;
  auto finder = store::SectionFinder::open(*txn, book.dbs().positions, error);
  if (!finder) return std::nullopt;
  for (int ply = 0; !level.empty(); ++ply) {
    std::vector<Position> next;
    for (const Position& pos : level) {
      store::Error e;
      auto section = finder->find(pos.key(), &e);
      if (e.code) {
        if (error) *error = e;
        return std::nullopt;
      }
      if (!section) continue;
      auto node = store::SectionReader(*section).node();
      if (!node || node->counters.games < options.min_games) continue;
      out.push_back(pos);
      if (options.plies > 0 && ply >= options.plies) continue;
      edges.clear();
      store::append_edges(*section, edges);
      for (const store::BookEdge& edge : edges) {
        if (edge.record.flags & store::kEdgeKeyOnly) continue;
        if (!seen.insert(edge.record.child_key).second) continue;
        Position child = pos;
        UndoInfo undo;
        child.do_move(edge.move, undo);
        next.push_back(child);
      }
    }
    level = std::move(next);
  }
  return out;
}

}  // namespace gb::analysis
