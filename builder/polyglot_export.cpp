#include "builder/polyglot_export.h"

#include <algorithm>
#include <cerrno>

#include "book/store/book_snapshot.h"

namespace gb::builder {

namespace {

// make-book halves every counter of a position ((n+1)/2, (sum+1)/2) each time
// one of its moves reaches 16384 occurrences, in game order. The book keeps
// totals, not the order, so the export replays the occurrences as if spread
// evenly over the games: exact for a position whose moves each had a single
// result (and whenever no move reaches 16384), close otherwise.
constexpr std::uint64_t kCountMax = 16384;

void scale_position(std::vector<store::EdgeRecord*>& edges) {
  std::uint32_t max_n = 0;
  for (auto* e : edges) max_n = std::max(max_n, e->occurrences);
  if (max_n < kCountMax) return;
  struct State {
    std::uint64_t n = 0, s = 0, left_n, left_s;
  };
  std::vector<State> st;
  for (auto* e : edges) st.push_back({0, 0, e->occurrences, e->score});
  for (;;) {
    // The share of the remaining occurrences after which the first move hits the limit.
    double f = 2;
    for (const State& x : st)
      if (x.left_n > 0 && x.n + x.left_n >= kCountMax)
        f = std::min(f, double(kCountMax - x.n) / double(x.left_n));
    if (f > 1) break;
    for (State& x : st) {
      std::uint64_t k =
          x.left_n ? std::min<std::uint64_t>(x.left_n, std::uint64_t(f * double(x.left_n) + 1e-9)) : 0;
      if (x.n + k >= kCountMax ||
          (x.left_n && x.n + x.left_n >= kCountMax && double(kCountMax - x.n) / double(x.left_n) <= f))
        k = kCountMax - x.n;
      std::uint64_t gain = x.left_n ? x.left_s * k / x.left_n : 0;
      x.n += k;
      x.s += gain;
      x.left_n -= k;
      x.left_s -= gain;
    }
    for (State& x : st) {
      x.n = (x.n + 1) / 2;
      x.s = (x.s + 1) / 2;
    }
  }
  for (std::size_t i = 0; i < edges.size(); ++i) {
    edges[i]->occurrences = std::uint32_t(st[i].n + st[i].left_n);
    edges[i]->score = std::uint32_t(st[i].s + st[i].left_s);
  }
}

}  // namespace

std::optional<std::vector<store::PolyglotEntry>> export_entries(store::Book& book,
                                                                const ExportOptions& options,
                                                                BuildError* error) {
  store::Error e;
  auto snapshot = store::BookSnapshot::begin(book, &e);
  if (!snapshot) return *error = BuildError::book(e.message()), std::nullopt;

  // Per part of the book (a sharded book's shards): its evaluations and buckets.
  std::vector<std::optional<MDB_dbi>> evals(snapshot->part_count()), buckets_dbi(snapshot->part_count());
  if (options.eval_learn)
    for (std::size_t p = 0; p < evals.size(); ++p) {
      evals[p] = store::open_evals(snapshot->txn(p), false, &e);
      if (!evals[p] && e.code != MDB_NOTFOUND) return *error = BuildError::book(e.message()), std::nullopt;
      e = store::Error{};  // a book never analysed exports learn 0
    }
  Key group_key_of_filter = 0;
  std::optional<store::BucketParams> bucket_params;
  if (options.filter) {
    bucket_params = store::bucket_params(snapshot->global_txn(), book.dbs().meta);
    if (auto refusal = store::filter_refusal(book.path(), bucket_params, *options.filter))
      return *error = BuildError::input(refusal->message), std::nullopt;
    for (std::size_t p = 0; p < buckets_dbi.size(); ++p) {
      buckets_dbi[p] = snapshot->txn(p).open_db(store::kBucketsDb, 0, &e);
      if (!buckets_dbi[p] && e.code != MDB_NOTFOUND)
        return *error = BuildError::book(e.message()), std::nullopt;
      e = store::Error{};  // a book with buckets and no game yet
    }
  }
  std::vector<store::BucketEntry> buckets;
  std::vector<std::pair<std::uint64_t, std::size_t>> first_plays;
  // The edges of the section as the selected buckets count them: the others
  // dropped, ranks of first play among the selected games.
  auto filter_group = [&](std::vector<store::EdgeRecord>& group, std::vector<std::uint16_t>& moves) -> bool {
    bool damaged = false;
    buckets.clear();
    const std::size_t part = snapshot->part_of(group_key_of_filter);
    if (buckets_dbi[part] &&
        !store::read_buckets(snapshot->txn(part), *buckets_dbi[part], group_key_of_filter, buckets, &damaged,
                             &e) &&
        (damaged || e.code)) {
      if (damaged) e = store::Error{EIO, "damaged book: the buckets of a position do not decode"};
      return false;
    }
    std::size_t kept = 0;
    first_plays.clear();
    for (std::size_t i = 0; i < group.size(); ++i) {
      store::BucketSum sum = store::sum_selected(buckets, moves[i], *options.filter, bucket_params->by_month);
      if (!sum.any) continue;
      store::EdgeRecord r = group[i];
      r.occurrences = sum.counters.occurrences;
      r.score = sum.counters.score;
      r.min_ply = sum.counters.min_ply;
      r.flags &= std::uint8_t(~store::kEdgeImported);
      first_plays.emplace_back(sum.counters.first_play, kept);
      group[kept] = r;
      moves[kept] = moves[i];
      ++kept;
    }
    group.resize(kept);
    moves.resize(kept);
    std::sort(first_plays.begin(), first_plays.end());
    for (std::size_t r = 0; r < first_plays.size(); ++r)
      group[first_plays[r].second].polyglot_rank = std::uint8_t(std::min<std::size_t>(r, 255));
    return true;
  };
  std::vector<store::PolyglotEntry> out;
  std::vector<std::uint8_t> ranks;  // the order of first play (or of the imported file) among equal weights
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
      std::uint32_t learn = r.polyglot_learn;
      if (options.eval_learn) {
        const std::size_t part = snapshot->part_of(r.child_key);
        auto child = evals[part] ? store::get_evaluation(snapshot->txn(part), *evals[part], r.child_key)
                                 : std::nullopt;
        learn = child && !(r.flags & store::kEdgeKeyOnly) ? eval_learn_field(*child) : 0;
      }
      out.push_back({group_key, store::to_polyglot_move(Move(moves[i])), std::uint16_t(w), learn});
      ranks.push_back(r.polyglot_rank);
    }
    group.clear();
    moves.clear();
  };
  store::Status scanned = snapshot->each_section([&](Key key, std::string_view value) {
    group_key = key;
    if (options.positions && !options.positions->contains(group_key)) return true;
    store::SectionReader section(value);
    std::uint16_t move;
    store::EdgeRecord r;
    while (section.next(move, r)) {
      group.push_back(r);
      moves.push_back(move);
    }
    group_key_of_filter = group_key;
    if (options.filter && !group.empty() && !filter_group(group, moves)) return false;
    if (!group.empty()) flush();
    return true;
  });
  if (scanned && !e.code) e = *scanned;
  if (e.code) return *error = BuildError::book(e.message()), std::nullopt;
  std::vector<std::size_t> order(out.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    const store::PolyglotEntry &a = out[i], &b = out[j];
    if (a.key != b.key) return a.key < b.key;
    if (a.weight != b.weight) return a.weight > b.weight;
    if (ranks[i] != ranks[j]) return ranks[i] < ranks[j];
    return a.move < b.move;
  });
  std::vector<store::PolyglotEntry> sorted;
  sorted.reserve(out.size());
  for (std::size_t i : order) sorted.push_back(out[i]);
  return sorted;
}

std::uint32_t eval_learn_field(const store::Evaluation& child) {
  constexpr std::int64_t kMate = 32000;
  std::int64_t cp =
      child.kind == store::Evaluation::Kind::Mate ? (child.score > 0 ? kMate : -kMate) : child.score;
  // The mover's side: the child's side to move is the other one.
  cp = std::clamp<std::int64_t>(-cp, -kMate, kMate);
  return std::uint32_t(cp + (std::int64_t(1) << 31));
}

}  // namespace gb::builder
