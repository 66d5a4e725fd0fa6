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

}  // namespace gb::explore
