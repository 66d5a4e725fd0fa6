#include "book/explore/move_choice.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace gb::explore {

std::string_view to_string(Policy p) {
  switch (p) {
    case Policy::Best: return "best";
    case Policy::Weighted: return "weighted";
    case Policy::Uniform: return "uniform";
    case Policy::Learned: return "learned";
    case Policy::Lcb: return "lcb";
  }
  return "?";
}

std::optional<Policy> parse_policy(std::string_view text) {
  for (Policy p : {Policy::Best, Policy::Weighted, Policy::Uniform, Policy::Learned, Policy::Lcb})
    if (to_string(p) == text) return p;
  return std::nullopt;
}

std::string_view to_string(Reason r) {
  switch (r) {
    case Reason::Weighted: return "weighted";
    case Reason::ImportedWeight: return "weight of an imported .bin, no games";
    case Reason::Uniform: return "uniform";
    case Reason::LowerBound: return "best lower bound";
    case Reason::NotBestBound: return "not the best lower bound";
    case Reason::NoInterval: return "no games, no interval";
    case Reason::Best: return "best";
    case Reason::NotBest: return "not the best";
    case Reason::TooFewGames: return "too few games";
    case Reason::NoWeight: return "weight 0";
    case Reason::LostLastTime: return "lost last time, a comparable alternative exists";
  }
  return "?";
}

namespace {

// The learned policy's expected score and one-sigma bounds (docs/LEARNING.md).
// A weight-only move has no source score: its prior is an even score with
// the strength of kPriorGames games, so that learning moves it as it moves
// a move with many games.
void learned_estimate(const Candidate& c, Weighing& w) {
  double k = c.weight_only() ? kPriorGames : std::min<double>(c.source.games(), kPriorGames);
  double prior = c.weight_only() ? 0.5 : c.source.score();
  double n = c.learned.games();
  if (k + n == 0) return;
  double mean = (k * prior + c.learned.wins + 0.5 * c.learned.draws) / (k + n);
  w.expected = mean;
  // The 95 % interval of the posterior mean over the k + n games it weighs.
  Interval bounds = *wilson_interval(mean, k + n);
  w.lower = bounds.low;
  w.upper = bounds.high;
  // Polyglot's weight scaled by the square of how far learning moved the score.
  w.weight = prior > 0 ? polyglot_weight(c) * (mean / prior) * (mean / prior) : 0.0;
}

// lcb: the lower bound of the source score's interval.
void lower_bound_weight(const Candidate& c, Weighing& w) {
  auto bounds = score_interval(c.source);
  if (!bounds || c.weight_only()) {
    w.weight = 0, w.reason = Reason::NoInterval;
    return;
  }
  w.lower = bounds->low;
  w.upper = bounds->high;
  // keep_best ranks by weight: the bound, or a trace for a move that never scored (its bound is 0).
  w.weight = bounds->low > 0 ? bounds->low : 1e-12;
}

// Ranks a over b for best: weight, then games, then the lower move.
bool heavier(const Candidate& a, const Weighing& wa, const Candidate& b, const Weighing& wb) {
  if (wa.weight != wb.weight) return wa.weight > wb.weight;
  if (a.source.games() != b.source.games()) return a.source.games() > b.source.games();
  return a.move.raw() < b.move.raw();
}

// Keeps only the heaviest playable candidate.
void keep_best(std::span<const Candidate> cs, std::vector<Weighing>& ws) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (ws[i].weight <= 0) continue;
    if (!best || heavier(cs[i], ws[i], cs[*best], ws[*best])) best = i;
  }
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (ws[i].weight <= 0) continue;
    ws[i].weight = i == best ? 1.0 : 0.0;
    ws[i].reason = i == best ? Reason::Best : Reason::NotBest;
  }
}

// The paper's rule: a move that lost the last time it was played here is
// avoided while another playable move did not, and its upper bound reaches
// the lost move's expected score.
void avoid_last_losses(std::span<const Candidate> cs, std::vector<Weighing>& ws) {
  std::vector<bool> avoid(cs.size(), false);
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (cs[i].last != LastResult::Loss || ws[i].weight <= 0) continue;
    for (std::size_t j = 0; j < cs.size(); ++j)
      if (j != i && ws[j].weight > 0 && cs[j].last != LastResult::Loss && ws[j].upper >= ws[i].expected)
        avoid[i] = true;
  }
  for (std::size_t i = 0; i < cs.size(); ++i)
    if (avoid[i]) ws[i].weight = 0, ws[i].reason = Reason::LostLastTime;
}

}  // namespace

std::optional<Interval> wilson_interval(double p, double n, double z) {
  if (n <= 0) return std::nullopt;
  assert(p >= 0 && p <= 1);
  double z2 = z * z;
  double centre = p + z2 / (2 * n);
  double spread = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  double scale = 1 + z2 / n;
  return Interval{std::max(0.0, (centre - spread) / scale), std::min(1.0, (centre + spread) / scale)};
}

std::optional<Interval> score_interval(const Results& r) { return wilson_interval(r.score(), r.games()); }

std::uint32_t polyglot_weight(const Candidate& c) {
  return c.weight_only() ? *c.imported_weight : 2 * c.source.wins + c.source.draws;
}

std::vector<Weighing> weigh(std::span<const Candidate> cs, const PickOptions& options) {
  std::vector<Weighing> ws(cs.size());
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const Candidate& c = cs[i];
    Weighing& w = ws[i];
    w.expected = c.weight_only() ? 0.5 : c.source.score();
    if (c.weight_only()) w.reason = Reason::ImportedWeight;
    switch (options.policy) {
      case Policy::Best:
      case Policy::Weighted: w.weight = polyglot_weight(c); break;
      case Policy::Uniform: w.weight = 1, w.reason = Reason::Uniform; break;
      case Policy::Learned: learned_estimate(c, w); break;
      case Policy::Lcb: lower_bound_weight(c, w); break;
    }
    bool too_few_games = !c.weight_only() && (c.source.games() < options.min_games || c.source.games() == 0);
    if (too_few_games) {
      w.weight = 0, w.reason = Reason::TooFewGames;
    } else if (w.reason == Reason::NoInterval) {
      w.weight = 0;
    } else if (w.weight <= 0 || (c.weight_only() && *c.imported_weight == 0)) {
      w.weight = 0, w.reason = Reason::NoWeight;
    }
  }
  if (options.policy == Policy::Learned) avoid_last_losses(cs, ws);
  bool sharpen = options.policy == Policy::Weighted || options.policy == Policy::Learned;
  if (options.policy == Policy::Best || options.policy == Policy::Lcb ||
      (sharpen && options.temperature <= 0)) {
    keep_best(cs, ws);
    if (options.policy == Policy::Lcb)
      for (Weighing& w : ws)
        if (w.reason == Reason::Best || w.reason == Reason::NotBest)
          w.reason = w.reason == Reason::Best ? Reason::LowerBound : Reason::NotBestBound;
  } else if (sharpen && options.temperature != 1.0) {
    for (Weighing& w : ws)
      if (w.weight > 0) w.weight = std::pow(w.weight, 1.0 / options.temperature);
  }
  double sum = 0;
  for (const Weighing& w : ws) sum += w.weight;
  for (Weighing& w : ws) w.probability = sum > 0 ? w.weight / sum : 0;
  return ws;
}

std::optional<Choice> choose(std::span<const Candidate> cs, std::span<const Weighing> ws, Rng& rng) {
  double sum = 0;
  std::optional<std::size_t> last_playable;
  for (std::size_t i = 0; i < ws.size(); ++i)
    if (ws[i].weight > 0) sum += ws[i].weight, last_playable = i;
  if (!last_playable) return std::nullopt;
  double r = rng.uniform() * sum;
  for (std::size_t i = 0; i < ws.size(); ++i) {
    if (ws[i].weight <= 0) continue;
    if (r < ws[i].weight) return Choice{i, cs[i].move};
    r -= ws[i].weight;
  }
  return Choice{*last_playable, cs[*last_playable].move};  // rounding at the top end
}

std::optional<Choice> choose(std::span<const Candidate> cs, const PickOptions& options, Rng& rng) {
  std::vector<Weighing> ws = weigh(cs, options);
  return choose(cs, ws, rng);
}

}  // namespace gb::explore
