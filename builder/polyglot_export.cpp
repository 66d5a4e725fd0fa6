#include "builder/polyglot_export.h"

#include <algorithm>

namespace gb::builder {

namespace {

// make-book halves every counter of a position when one of its moves reaches
// 16384 occurrences. We emulate it per position from the totals: halve (n+1)/2,
// (sum+1)/2 until the largest n is below 16384 (exact while no move reaches it).
constexpr std::uint32_t kCountMax = 16384;

void scale_position(std::vector<store::EdgeRecord*>& edges) {
  auto max_n = [&] {
    std::uint32_t m = 0;
    for (auto* e : edges) m = std::max(m, e->occurrences);
    return m;
  };
  while (max_n() >= kCountMax)
    for (auto* e : edges) {
      e->occurrences = (e->occurrences + 1) / 2;
      e->score = (e->score + 1) / 2;
    }
}

}  // namespace

std::optional<std::vector<store::PolyglotEntry>> export_entries(store::Book& book, const ExportOptions& options,
                                                                std::string* error) {
  store::Error e;
  auto txn = store::ReadTxn::begin(book.env(), &e);
  if (!txn) return *error = e.message(), std::nullopt;
  auto cursor = store::Cursor::open(*txn, book.dbs().edges, &e);
  if (!cursor) return *error = e.message(), std::nullopt;

  std::vector<store::PolyglotEntry> out;
  std::vector<store::EdgeRecord> group;
  std::vector<std::uint16_t> moves;
  Key group_key = 0;
  auto flush = [&] {
    std::vector<store::EdgeRecord*> ptrs;
    bool any_imported = false;
    for (auto& r : group) {
      ptrs.push_back(&r);
      any_imported |= (r.flags & store::kEdgeImported) != 0;
    }
    if (!any_imported) scale_position(ptrs);
    for (std::size_t i = 0; i < group.size(); ++i) {
      const store::EdgeRecord& r = group[i];
      bool imported = r.flags & store::kEdgeImported;
      if (!imported && r.occurrences < options.min_games) continue;
      if (r.score == 0) continue;
      bool black = r.flags & store::kEdgeBlackMoves;
      if ((options.side == Side::White && black) || (options.side == Side::Black && !black)) continue;
      if (options.max_ply > 0 && r.min_ply >= options.max_ply) continue;
      std::uint32_t w = options.uniform ? 1 : std::min<std::uint32_t>(r.score, 65535);
      out.push_back({group_key, store::to_polyglot_move(Move(moves[i])), std::uint16_t(w), r.polyglot_learn});
    }
    group.clear();
    moves.clear();
  };
  for (auto item = cursor->first(&e); item; item = cursor->next(&e)) {
    if (item->key.size() != 10) continue;
    Key key = store::get_be64(item->key.data());
    if (!group.empty() && key != group_key) flush();
    group_key = key;
    store::EdgeRecord r;
    if (!store::from_bytes(item->value, r)) continue;
    group.push_back(r);
    moves.push_back(store::get_be16(item->key.data() + 8));
  }
  if (!group.empty()) flush();
  if (e.code) return *error = e.message(), std::nullopt;
  std::stable_sort(out.begin(), out.end(), [](const store::PolyglotEntry& a, const store::PolyglotEntry& b) {
    if (a.key != b.key) return a.key < b.key;
    if (a.weight != b.weight) return a.weight > b.weight;
    return a.move < b.move;
  });
  return out;
}

}  // namespace gb::builder
