// Choosing a book move: the policies of `graphbook pick` and of the UCI
// adapter's own book. Pure code over a list of candidates; no I/O.
//
//   best      the move with the highest weight (2*wins + draws of the mover,
//             Polyglot's weight); ties go to more games, then the lower move.
//   weighted  at random, probability proportional to weight^(1/temperature).
//   uniform   at random, every candidate alike.
//   learned   at random like weighted, but the weight is the source games
//             scored at the expected score that learning gives, and a move
//             that lost the last time it was played here is avoided while an
//             alternative of comparable standing exists (docs/LEARNING.md has
//             the formula). Without learned games it equals weighted.
//   lcb       the move with the best lower bound of its score's 95 % interval
//             (wilson_interval below): a move scoring 60 % in 200 games beats
//             one scoring 70 % in 5. Ties go to more games, then the lower
//             move. A move without games (an imported .bin's) has no interval
//             and does not play.
//
// Candidates with fewer than min_games source games never play. temperature
// 0 makes weighted and learned pick their heaviest move.
//
// A move the book knows only from an imported Polyglot .bin has no games,
// only the .bin's weight (Candidate::imported_weight): best and weighted use
// that weight, uniform plays it like any other, learned scales it by what
// learning moved an even prior (docs/PROBE.md). min_games counts games, which
// such a move has none of, so it does not hold it back; weight 0 does (as
// Polyglot readers skip weight-0 entries).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "book/chess/types.h"

namespace gb::explore {

enum class Policy : std::uint8_t { Best, Weighted, Uniform, Learned, Lcb };
std::string_view to_string(Policy p);
std::optional<Policy> parse_policy(std::string_view text);

// Same numbering as the store's LearnRecord::last_result.
enum class LastResult : std::uint8_t { None = 0, Win = 1, Draw = 2, Loss = 3 };

// Results from the point of view of the side that plays the move.
struct Results {
  std::uint32_t wins = 0;
  std::uint32_t draws = 0;
  std::uint32_t losses = 0;
  std::uint32_t games() const { return wins + draws + losses; }
  double score() const { return games() ? (wins + 0.5 * draws) / games() : 0.0; }
};

// A score's 95 % confidence interval, docs/PROBE.md: the Wilson score
// interval of p = score over n games (a draw counts as half a win), z = 1.96:
//   (p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n)
// Treating each game as a win-or-loss trial with success rate p, it is wider
// than the interval draws would give (they vary less), so it errs on the safe
// side. nullopt for n = 0.
struct Interval {
  double low = 0;
  double high = 1;
};
inline constexpr double kIntervalZ = 1.959963984540054;  // the normal distribution's 97.5 % quantile
[[nodiscard]] std::optional<Interval> wilson_interval(double score, double games, double z = kIntervalZ);
[[nodiscard]] std::optional<Interval> score_interval(const Results& r);

struct Candidate {
  Move move;
  Results source;   // the book's games (unfinished games "*" counted as draws, as Polyglot does)
  Results learned;  // the games `graphbook learn` fed in
  LastResult last = LastResult::None;
  // Set for a move without source games that an imported .bin gave: its weight.
  std::optional<std::uint32_t> imported_weight;

  // The move has a weight but no games: only an imported .bin knows it.
  bool weight_only() const { return imported_weight && source.games() == 0; }
};

// A candidate's Polyglot weight: 2 * wins + draws of the mover over the
// source games (what `polyglot make-book` writes), or the imported weight of
// a move without games.
std::uint32_t polyglot_weight(const Candidate& c);

struct PickOptions {
  Policy policy = Policy::Weighted;
  std::uint32_t min_games = 1;
  double temperature = 1.0;  // >= 0
};

// Why a candidate got its weight.
enum class Reason : std::uint8_t {
  Weighted,        // weight from the source games (and learning)
  ImportedWeight,  // weight from an imported .bin: the move has no games (and learning)
  Uniform,         // every candidate alike
  LowerBound,      // lcb: the best lower bound of the 95 % interval
  NotBestBound,    // lcb chose another
  NoInterval,      // lcb: a move without games has no interval
  Best,            // the heaviest: chosen by best
  NotBest,         // best chose another
  TooFewGames,     // fewer source games than min_games
  NoWeight,        // weight 0: it never scored (or its expected score is 0)
  LostLastTime,    // learned: lost last time and an alternative of comparable standing exists
};
std::string_view to_string(Reason r);

// One candidate as the policy sees it (same order as the candidates).
struct Weighing {
  double weight = 0;  // relative; the probability is weight / sum of weights
  double probability = 0;
  double expected = 0;  // expected score of the mover (learned: posterior mean)
  double lower = 0;     // the 95 % interval of expected (learned and lcb; docs/LEARNING.md)
  double upper = 0;
  Reason reason = Reason::Weighted;
};

// A small deterministic generator (SplitMix64): the same seed gives the same
// sequence on every platform, so `--seed N` reproduces a choice.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  std::uint64_t state_;
};

// Every candidate's weight, probability and reason under the options.
std::vector<Weighing> weigh(std::span<const Candidate> candidates, const PickOptions& options);

struct Choice {
  std::size_t index;  // into the candidates
  Move move;
};

// The chosen move, or nullopt when no candidate may play (none, or all below
// min_games or of weight 0). Draws one number from rng for the random policies.
[[nodiscard]] std::optional<Choice> choose(std::span<const Candidate> candidates, const PickOptions& options,
                                           Rng& rng);
// The same with the weighing already done (to explain and choose at once).
[[nodiscard]] std::optional<Choice> choose(std::span<const Candidate> candidates,
                                           std::span<const Weighing> weighing, Rng& rng);

// The learned policy's parameters (docs/LEARNING.md).
inline constexpr double kPriorGames = 8.0;  // the source counts as at most this many of our own games

}  // namespace gb::explore
