#include "uci-adapter/book_moves.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"
#include "book/explore/bucket_view.h"
#include "book/explore/position_report.h"
#include "book/store/book_snapshot.h"
#include "book/store/evaluation.h"
#include "book/store/records.h"

namespace gb::uci_adapter {

namespace {

std::string percent(std::uint32_t part, std::uint32_t whole) {
  return std::to_string(whole ? int(100.0 * part / whole + 0.5) : 0) + "%";
}

// A move only an imported .bin knows has a weight and no games: "weight 120"
// says what the book has, where "0 games, +0%" would read as a move that never
// scored. Never " score ": fastchess takes any info line holding it for an
// evaluation.
std::string weight_text(const explore::Candidate& c) {
  return "weight " + std::to_string(*c.imported_weight);
}

std::string pawns(double cp) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", cp / 100.0);
  return buf;
}

double evaluation_cp(const store::Evaluation& e) {
  if (e.kind == store::Evaluation::Kind::Mate) return e.score > 0 ? 10000 : -10000;
  return e.score;
}

// True when a line of plies book moves, each of at least min_games games,
// starts at key. failed remembers (key, plies) that have none.
bool has_line(store::BookSnapshot& snapshot, Key key, int plies, std::uint32_t min_games,
              std::set<std::pair<Key, int>>& failed) {
  if (plies <= 0) return true;
  if (failed.count({key, plies})) return false;
  auto section = snapshot.section(key);
  std::vector<store::BookEdge> edges;
  if (section) store::append_edges(*section, edges);
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
    return a.record.counters.games > b.record.counters.games;  // the likeliest line first
  });
  for (const store::BookEdge& e : edges) {
    if (e.record.counters.games < min_games || (e.record.flags & store::kEdgeKeyOnly)) continue;
    if (has_line(snapshot, e.record.child_key, plies - 1, min_games, failed)) return true;
  }
  failed.insert({key, plies});
  return false;
}

}  // namespace

std::optional<std::string> exit_guard_reason(store::Book& book, const Position& pos, Move move,
                                             const ExitGuard& guard, bool chess960) {
  Position next = pos;
  UndoInfo undo;
  next.do_move(move, undo);
  auto snapshot = store::BookSnapshot::begin(book, nullptr);
  if (!snapshot) return std::nullopt;
  const std::string name = to_uci(move, chess960);
  if (guard.margin_cp > 0) {
    // The evaluations of the position and of its child, each in the part of its key.
    auto evaluation = [&](Key key) -> std::optional<store::Evaluation> {
      store::ReadTxn& txn = snapshot->txn(snapshot->part_of(key));
      auto evals = store::open_evals(txn, false, nullptr);
      return evals ? store::get_evaluation(txn, *evals, key) : std::nullopt;
    };
    store::ReadTxn& next_txn = snapshot->txn(snapshot->part_of(next.key()));
    auto values = store::open_values(next_txn, false, nullptr);
    auto here = evaluation(pos.key());
    std::optional<double> move_cp;
    if (auto v = values ? store::get_value(next_txn, *values, next.key()) : std::nullopt)
      move_cp = store::centipawns_of_expected_score(1 - v->score);
    else if (auto e = evaluation(next.key()))
      move_cp = -evaluation_cp(*e);
    if (here && move_cp) {
      double below = evaluation_cp(*here) - *move_cp;
      if (below > guard.margin_cp)
        return name + " backs up to " + pawns(*move_cp) + ", " + pawns(below).substr(1) +
               " below the position's evaluation " + pawns(evaluation_cp(*here)) + " (BookExitMargin " +
               std::to_string(guard.margin_cp) + ")";
    }
  }
  if (guard.lookahead > 1) {
    std::set<std::pair<Key, int>> failed;
    if (!has_line(*snapshot, next.key(), guard.lookahead - 1, guard.min_games, failed))
      return name + " has no line of " + std::to_string(guard.lookahead) + " plies with " +
             std::to_string(guard.min_games) + " games each (BookLookahead " +
             std::to_string(guard.lookahead) + ")";
  }
  return std::nullopt;
}

std::vector<explore::Candidate> book_candidates(store::Book& book, const Position& pos,
                                                const store::BucketFilter* buckets) {
  std::vector<explore::Candidate> out;
  MoveList legal;
  if (buckets) {
    // The report as probe filters it: a book that fails to read here has no
    // moves, as find_all's has none below.
    store::Error error;
    auto reader = explore::BookReader::open(book, &error);
    if (!reader || !reader->bucket_params()) return out;
    auto report =
        explore::make_report(*reader, explore::ResolvedPosition{pos, {pos.key()}, ""}, nullptr, &error);
    if (!report || explore::filter_report(*reader, *report, *buckets)) return out;
    generate_legal(pos, legal);
    for (explore::Candidate& c : explore::to_candidates(*report))
      if (legal.contains(c.move)) out.push_back(std::move(c));
    return out;
  }
  auto edges = book.find_all(pos.key());
  if (edges.empty()) return out;
  generate_legal(pos, legal);
  for (const auto& e : edges)
    if (legal.contains(e.move))
      out.push_back(explore::to_candidate(e.move, e.record, e.learning, pos.side_to_move()));
  return out;
}

std::optional<BookAnswer> book_answer(store::Book& book, const Position& pos,
                                      const explore::PickOptions& options, explore::Rng& rng,
                                      const BookFilter& filter, const ExitGuard& guard,
                                      std::string* left_because, bool chess960,
                                      const store::BucketFilter* buckets) {
  auto candidates = book_candidates(book, pos, buckets);
  if (filter.active())
    std::erase_if(candidates, [&](const explore::Candidate& c) { return !filter.allows(pos, c.move); });
  if (candidates.empty()) return std::nullopt;
  if (guard.active()) {
    // Only moves the policy could play are judged, so that the reasons name what was given up; best
    // and lcb keep one move in their weighing, so every move they may choose from is judged.
    explore::PickOptions playable = options;
    playable.temperature = 1.0;
    if (options.policy == explore::Policy::Best) playable.policy = explore::Policy::Weighted;
    if (options.policy == explore::Policy::Lcb) playable.policy = explore::Policy::Uniform;
    auto weighing = explore::weigh(candidates, playable);
    std::vector<std::string> reasons;
    std::vector<explore::Candidate> kept;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (weighing[i].weight <= 0) continue;
      auto reason = exit_guard_reason(book, pos, candidates[i].move, guard, chess960);
      if (reason)
        reasons.push_back(*reason);
      else
        kept.push_back(candidates[i]);
    }
    if (kept.empty() && !reasons.empty() && left_because) {
      *left_because = "out of book:";
      for (std::size_t i = 0; i < reasons.size(); ++i) *left_because += (i ? "; " : " ") + reasons[i];
    }
    candidates = std::move(kept);
    if (candidates.empty()) return std::nullopt;
  }
  auto weighing = explore::weigh(candidates, options);
  auto choice = explore::choose(candidates, weighing, rng);
  if (!choice) return std::nullopt;
  BookAnswer a;
  a.move = choice->move;
  a.stats = candidates[choice->index];
  a.weighing = weighing[choice->index];
  a.candidates = candidates.size();
  for (const auto& c : candidates) a.position_games += c.source.games();

  Position next = pos;
  UndoInfo undo;
  next.do_move(a.move, undo);
  auto replies = book_candidates(book, next, buckets);
  explore::PickOptions best{explore::Policy::Best, options.min_games, 0.0};
  if (auto reply = explore::choose(replies, best, rng)) a.ponder = reply->move;
  return a;
}

std::string describe(const BookAnswer& a, const Position&, explore::Policy policy, bool chess960) {
  const auto& s = a.stats.source;
  char p[32];
  std::snprintf(p, sizeof p, "%.2f", a.weighing.probability);
  std::string out = "book " + to_uci(a.move, chess960) + ": ";
  if (a.stats.weight_only())
    out += weight_text(a.stats) + " (imported, no games)";
  else
    out += std::to_string(s.games()) + " games, +" + percent(s.wins, s.games()) + " =" +
           percent(s.draws, s.games()) + " -" + percent(s.losses, s.games()) + " for the mover";
  const auto& l = a.stats.learned;
  if (l.games())
    out += "; learned +" + std::to_string(l.wins) + " =" + std::to_string(l.draws) + " -" +
           std::to_string(l.losses);
  out += "; " + std::to_string(a.candidates) + " book moves";
  if (a.position_games) out += ", " + std::to_string(a.position_games) + " games here";
  out += "; policy " + std::string(explore::to_string(policy)) + ", probability " + p;
  return out;
}

std::string describe_all(const std::vector<explore::Candidate>& candidates, bool chess960) {
  std::vector<explore::Candidate> sorted = candidates;
  // Most games first; moves without games (imported) by their weight.
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (a.source.games() != b.source.games()) return a.source.games() > b.source.games();
    return a.source.games() == 0 && explore::polyglot_weight(a) > explore::polyglot_weight(b);
  });
  std::string out = "book moves:";
  for (const auto& c : sorted) {
    if (c.weight_only()) {
      out.append(" ")
          .append(to_uci(c.move, chess960))
          .append(" (")
          .append(weight_text(c))
          .append(", imported)");
      continue;
    }
    char score[16];
    std::snprintf(score, sizeof score, "%.0f%%", 100.0 * c.source.score());
    out.append(" ").append(to_uci(c.move, chess960)).append(" (").append(std::to_string(c.source.games()));
    out.append(" games, ").append(score).append(")");
  }
  return out;
}

}  // namespace gb::uci_adapter
