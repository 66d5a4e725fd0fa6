#include "match/match.h"

#include <algorithm>

namespace gb::match {

namespace {

bool index_order(const store::IndexRow& a, const store::IndexRow& b) {
  return a.game != b.game ? a.game < b.game : a.ply < b.ply;
}

}  // namespace

bool ranks_before(const MatchRun& a, const MatchRun& b) {
  if (a.length != b.length) return a.length > b.length;
  if (a.submitted_start_ply != b.submitted_start_ply) return a.submitted_start_ply < b.submitted_start_ply;
  if (a.game != b.game) return a.game < b.game;
  return a.stored_start_ply < b.stored_start_ply;
}

void RunFinder::close(const Active& a) {
  MatchRun run{a.game, a.length, a.submitted_start, a.stored_start, a.move};
  if (a.game >= best_by_game_.size()) best_by_game_.resize(std::size_t(a.game) + 1);
  MatchRun& best = best_by_game_[a.game];
  if (best.length == 0) {
    touched_.push_back(a.game);
    best = run;
  } else if (ranks_before(run, best)) {
    best = run;
  }
}

// A merge of the open runs (sorted by game, stored ply) with the rows (sorted
// by game, ply): a row extends the run that stood one stored ply earlier at
// the previous submitted ply; runs no row extends are closed.
void RunFinder::add_ply(int ply, std::span<const store::IndexRow> rows) {
  if (!std::is_sorted(rows.begin(), rows.end(), index_order)) {
    sorted_.assign(rows.begin(), rows.end());
    std::sort(sorted_.begin(), sorted_.end(), index_order);
    rows = sorted_;
  }
  bool follows = ply == ply_ + 1;
  if (!follows)
    for (const Active& a : active_) close(a);
  if (!follows) active_.clear();
  ply_ = ply;
  next_.clear();
  std::size_t j = 0;
  for (const store::IndexRow& r : rows) {
    auto before = [&](const Active& a) {
      return a.game != r.game ? a.game < r.game : a.stored_ply + 1 < r.ply;
    };
    while (j < active_.size() && before(active_[j])) close(active_[j++]);
    if (j < active_.size() && active_[j].game == r.game && active_[j].stored_ply + 1 == r.ply) {
      Active a = active_[j++];
      a.stored_ply = r.ply;
      ++a.length;
      a.move = r.move;
      next_.push_back(a);
    } else {
      next_.push_back(Active{r.game, r.ply, ply, r.ply, 1, r.move});
    }
  }
  while (j < active_.size()) close(active_[j++]);
  active_.swap(next_);
}

std::vector<MatchRun> RunFinder::best(std::size_t top) {
  for (const Active& a : active_) close(a);
  active_.clear();
  std::vector<MatchRun> out;
  out.reserve(touched_.size());
  for (std::uint32_t g : touched_) out.push_back(best_by_game_[g]);
  std::size_t n = top == 0 ? out.size() : std::min(top, out.size());
  std::partial_sort(out.begin(), out.begin() + std::ptrdiff_t(n), out.end(), ranks_before);
  out.resize(n);
  return out;
}

void RunFinder::clear() {
  for (std::uint32_t g : touched_) best_by_game_[g] = MatchRun{};
  touched_.clear();
  active_.clear();
  ply_ = -1;
}

std::vector<MatchRun> longest_runs(std::span<const std::vector<store::IndexRow>> rows_by_ply,
                                   std::size_t top) {
  RunFinder finder;
  for (std::size_t i = 0; i < rows_by_ply.size(); ++i) finder.add_ply(int(i), rows_by_ply[i]);
  return finder.best(top);
}

store::Status match_keys(store::GameIndexReader& index, std::span<const Key> keys, std::size_t top,
                         RunFinder& finder, std::vector<store::IndexRow>& rows, std::vector<MatchRun>& out) {
  finder.clear();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    rows.clear();
    if (auto s = index.rows(keys[i], rows)) return s;
    finder.add_ply(int(i), rows);
  }
  out = finder.best(top);
  return std::nullopt;
}

}  // namespace gb::match
