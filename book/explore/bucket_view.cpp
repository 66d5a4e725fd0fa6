#include "book/explore/bucket_view.h"

#include <algorithm>

#include "book/explore/move_choice.h"

namespace gb::explore {

using store::sum_selected;

store::Status filter_report(BookReader& reader, PositionReport& report, const store::BucketFilter& filter) {
  assert(reader.bucket_params());
  const bool by_month = reader.bucket_params()->by_month;
  std::vector<store::BucketEntry> entries, child_entries;
  if (auto s = reader.buckets(report.position.key(), entries)) return s;
  const store::BucketSum node = sum_selected(entries, 0, filter, by_month);
  if (node.any && report.node) {
    report.node->counters = counters_of(node);
    report.node->min_ply = node.counters.min_ply;
  } else {
    report.node.reset();
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> first_plays;  // (first play, row) of the moves kept
  std::vector<MoveRow> kept;
  for (MoveRow& row : report.moves) {
    const store::BucketSum sum = sum_selected(entries, row.move.raw(), filter, by_month);
    if (!sum.any) continue;
    row.counters = counters_of(sum);
    row.imported_weight.reset();
    if (row.child) {
      Position after = report.position;
      UndoInfo undo;
      after.do_move(row.move, undo);
      if (auto s = reader.buckets(after.key(), child_entries)) return s;
      const store::BucketSum child = sum_selected(child_entries, 0, filter, by_month);
      if (child.any) {
        row.child->counters = counters_of(child);
        row.child->min_ply = child.counters.min_ply;
      } else {
        row.child.reset();
      }
    }
    first_plays.emplace_back(sum.counters.first_play, kept.size());
    kept.push_back(std::move(row));
  }
  std::sort(first_plays.begin(), first_plays.end());
  for (std::size_t r = 0; r < first_plays.size(); ++r)
    kept[first_plays[r].second].polyglot_rank = std::uint32_t(std::min<std::size_t>(r, 255));
  const Color mover = report.position.side_to_move();
  std::stable_sort(kept.begin(), kept.end(), [mover](const MoveRow& a, const MoveRow& b) {
    if (a.counters.games != b.counters.games) return a.counters.games > b.counters.games;
    const double sa = mover_score(a.counters, mover) * a.counters.games,
                 sb = mover_score(b.counters, mover) * b.counters.games;
    if (sa != sb) return sa > sb;
    return a.polyglot_rank < b.polyglot_rank;
  });
  report.moves = std::move(kept);
  return std::nullopt;
}

std::optional<store::NodeRecord> filter_node(const std::vector<store::BucketEntry>& entries,
                                             const store::NodeRecord& node, const store::BucketFilter& filter,
                                             bool by_month) {
  const store::BucketSum sum = sum_selected(entries, 0, filter, by_month);
  if (!sum.any) return std::nullopt;
  store::NodeRecord out = node;
  out.counters = counters_of(sum);
  out.min_ply = sum.counters.min_ply;
  return out;
}

std::optional<store::EdgeRecord> filter_edge(const std::vector<store::BucketEntry>& entries,
                                             std::uint16_t move, const store::EdgeRecord& edge,
                                             const store::BucketFilter& filter, bool by_month,
                                             std::uint64_t* first_play) {
  if (edge.flags & store::kEdgeKeyOnly) return std::nullopt;
  const store::BucketSum sum = sum_selected(entries, move, filter, by_month);
  if (!sum.any) return std::nullopt;
  store::EdgeRecord out = edge;
  out.counters = counters_of(sum);
  out.occurrences = sum.counters.occurrences;
  out.score = sum.counters.score;
  out.min_ply = sum.counters.min_ply;
  if (first_play) *first_play = sum.counters.first_play;
  return out;
}

bool filter_section(std::string_view section, const std::vector<store::BucketEntry>& entries,
                    const store::BucketFilter& filter, bool by_month, std::string& out) {
  out.clear();
  store::Section in;
  if (!store::from_bytes(section, in)) return false;
  store::Section kept;
  if (in.node) {
    kept.node = filter_node(entries, *in.node, filter, by_month);
    if (!kept.node) return false;
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> first_plays;  // (first play, edge) of the moves kept
  for (const auto& [move, edge] : in.edges) {
    std::uint64_t first_play = 0;
    if (auto e = filter_edge(entries, move, edge, filter, by_month, &first_play)) {
      first_plays.emplace_back(first_play, kept.edges.size());
      kept.edges.emplace_back(move, *e);
    }
  }
  if (!kept.node && kept.edges.empty()) return false;
  std::sort(first_plays.begin(), first_plays.end());
  for (std::size_t r = 0; r < first_plays.size(); ++r)
    kept.edges[first_plays[r].second].second.polyglot_rank = std::uint8_t(std::min<std::size_t>(r, 255));
  store::to_bytes(kept, out);
  return true;
}

}  // namespace gb::explore
