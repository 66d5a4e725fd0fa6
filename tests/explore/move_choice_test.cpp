#include "book/explore/move_choice.h"

#include <catch2/catch.hpp>
#include <map>

#include "book/chess/notation.h"

using namespace gb;
using namespace gb::explore;

namespace {

Move uci(const char* text) { return *parse_uci(Position(), text); }

// Three start-position moves with made-up but plausible source results.
std::vector<Candidate> three_moves() {
  return {
      Candidate{uci("e2e4"), Results{40, 40, 20}, {}, LastResult::None, {}},  // 100 games, weight 120
      Candidate{uci("d2d4"), Results{30, 30, 20}, {}, LastResult::None, {}},  // 80 games, weight 90
      Candidate{uci("g1f3"), Results{5, 10, 5}, {}, LastResult::None, {}},    // 20 games, weight 20
  };
}

std::map<std::uint16_t, int> tally(std::span<const Candidate> cs, const PickOptions& o, int rounds,
                                   std::uint64_t seed = 1) {
  Rng rng(seed);
  std::map<std::uint16_t, int> count;
  for (int i = 0; i < rounds; ++i) ++count[choose(cs, o, rng)->move.raw()];
  return count;
}

}  // namespace

TEST_CASE("The same seed gives the same choice, other seeds reach every move", "[explore][pick]") {
  auto cs = three_moves();
  for (Policy p : {Policy::Weighted, Policy::Uniform, Policy::Learned}) {
    PickOptions o{p, 1, 1.0};
    std::map<std::uint16_t, int> seen;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      Rng a(seed), b(seed);
      auto ca = choose(cs, o, a);
      auto cb = choose(cs, o, b);
      REQUIRE(ca);
      REQUIRE(cb);
      CHECK(ca->move == cb->move);
      ++seen[ca->move.raw()];
    }
    CHECK(seen.size() == 3);
  }
}

TEST_CASE("Weighted chooses in proportion to Polyglot's weight 2*wins + draws", "[explore][pick]") {
  auto cs = three_moves();
  auto ws = weigh(cs, PickOptions{Policy::Weighted, 1, 1.0});
  CHECK(ws[0].weight == 120);
  CHECK(ws[1].weight == 90);
  CHECK(ws[2].weight == 20);
  CHECK(ws[0].probability == Approx(120.0 / 230));
  auto count = tally(cs, PickOptions{Policy::Weighted, 1, 1.0}, 23000);
  CHECK(count[uci("e2e4").raw()] == Approx(12000).margin(400));
  CHECK(count[uci("d2d4").raw()] == Approx(9000).margin(400));
  CHECK(count[uci("g1f3").raw()] == Approx(2000).margin(300));
}

TEST_CASE("Best takes the heaviest move and temperature 0 does the same", "[explore][pick]") {
  auto cs = three_moves();
  Rng rng(7);
  CHECK(choose(cs, PickOptions{Policy::Best, 1, 1.0}, rng)->move == uci("e2e4"));
  CHECK(choose(cs, PickOptions{Policy::Weighted, 1, 0.0}, rng)->move == uci("e2e4"));
  CHECK(choose(cs, PickOptions{Policy::Learned, 1, 0.0}, rng)->move == uci("e2e4"));
  auto ws = weigh(cs, PickOptions{Policy::Best, 1, 1.0});
  CHECK(ws[0].reason == Reason::Best);
  CHECK(ws[1].reason == Reason::NotBest);
}

TEST_CASE("A high temperature flattens the weights towards uniform", "[explore][pick]") {
  auto cs = three_moves();
  auto hot = weigh(cs, PickOptions{Policy::Weighted, 1, 100.0});
  for (const auto& w : hot) CHECK(w.probability == Approx(1.0 / 3).margin(0.02));
  auto uniform = weigh(cs, PickOptions{Policy::Uniform, 1, 1.0});
  for (const auto& w : uniform) CHECK(w.probability == Approx(1.0 / 3));
}

TEST_CASE("Moves with fewer games than min-games never play", "[explore][pick]") {
  auto cs = three_moves();
  auto ws = weigh(cs, PickOptions{Policy::Uniform, 50, 1.0});
  CHECK(ws[2].weight == 0);
  CHECK(ws[2].reason == Reason::TooFewGames);
  auto count = tally(cs, PickOptions{Policy::Uniform, 50, 1.0}, 1000);
  CHECK(count.count(uci("g1f3").raw()) == 0);
  Rng rng(1);
  CHECK_FALSE(choose(cs, PickOptions{Policy::Weighted, 1000, 1.0}, rng));
  CHECK_FALSE(choose(std::span<const Candidate>(), PickOptions{}, rng));
}

TEST_CASE("Without learned games the learned policy is the weighted policy", "[explore][pick][learning]") {
  auto cs = three_moves();
  cs.push_back(Candidate{uci("c2c4"), Results{0, 1, 3}, {}, LastResult::None, {}});
  cs.push_back(Candidate{uci("b2b3"), Results{0, 0, 2}, {}, LastResult::None, {}});
  for (double t : {0.5, 1.0, 2.0}) {
    auto weighted = weigh(cs, PickOptions{Policy::Weighted, 1, t});
    auto learned = weigh(cs, PickOptions{Policy::Learned, 1, t});
    for (std::size_t i = 0; i < cs.size(); ++i)
      CHECK(learned[i].probability == Approx(weighted[i].probability));
    for (std::uint64_t seed = 0; seed < 100; ++seed) {
      Rng a(seed), b(seed);
      CHECK(choose(cs, PickOptions{Policy::Weighted, 1, t}, a)->move ==
            choose(cs, PickOptions{Policy::Learned, 1, t}, b)->move);
    }
  }
}

// The loop of an engine using its book: choose, play, learn the result. e4
// always loses; the other moves win, draw and lose in turn, so that they too
// lose now and then and the last-loss rule alone cannot keep e4 out.
TEST_CASE("A move that keeps losing stops being chosen", "[explore][pick][learning]") {
  auto cs = three_moves();
  Rng rng(2024);
  PickOptions o{Policy::Learned, 1, 1.0};
  int e4_early = 0, e4_late = 0;  // rounds 0-99, rounds 700-999
  int turn = 0;
  for (int round = 0; round < 1000; ++round) {
    auto c = choose(cs, o, rng);
    REQUIRE(c);
    Candidate& played = cs[c->index];
    if (played.move == uci("e2e4")) {
      ++played.learned.losses, played.last = LastResult::Loss;
      if (round < 100) ++e4_early;
      if (round >= 700) ++e4_late;
    } else {
      switch (turn++ % 3) {
        case 0: ++played.learned.wins, played.last = LastResult::Win; break;
        case 1: ++played.learned.draws, played.last = LastResult::Draw; break;
        case 2: ++played.learned.losses, played.last = LastResult::Loss; break;
      }
    }
  }
  INFO("e4 in rounds 0-99: " << e4_early << ", in rounds 700-999: " << e4_late);
  CHECK(e4_early > 0);
  CHECK(e4_late <= 6);  // at most 2% (weighted alone gives e4 about half of them)
  auto ws = weigh(cs, o);
  CHECK(ws[0].expected < 0.2);
  CHECK(ws[0].probability < 0.05);
}

TEST_CASE("A move that lost last time is avoided only if a comparable alternative exists",
          "[explore][pick][learning]") {
  std::vector<Candidate> cs{
      Candidate{
          uci("e2e4"), Results{60, 30, 10}, Results{0, 0, 1}, LastResult::Loss, {}},  // strong, lost once
      Candidate{uci("d2d4"), Results{50, 40, 10}, {}, LastResult::None, {}},          // comparable
  };
  auto ws = weigh(cs, PickOptions{Policy::Learned, 1, 1.0});
  CHECK(ws[0].weight == 0);
  CHECK(ws[0].reason == Reason::LostLastTime);
  CHECK(ws[1].probability == 1.0);

  cs[1].source = Results{2, 8, 90};  // far worse: its upper bound stays below e4's expected score
  ws = weigh(cs, PickOptions{Policy::Learned, 1, 1.0});
  CHECK(ws[0].weight > 0);
  CHECK(ws[0].reason == Reason::Weighted);

  cs[1].source = Results{50, 40, 10};
  cs[1].last = LastResult::Loss;  // both lost last time: neither is avoided
  ws = weigh(cs, PickOptions{Policy::Learned, 1, 1.0});
  CHECK(ws[0].weight > 0);
  CHECK(ws[1].weight > 0);
}

TEST_CASE("Learned wins raise a move's share and learned losses lower it", "[explore][pick][learning]") {
  auto cs = three_moves();
  auto before = weigh(cs, PickOptions{Policy::Learned, 1, 1.0});
  cs[2].learned = Results{6, 0, 0};
  cs[2].last = LastResult::Win;
  cs[1].learned = Results{0, 2, 2};
  cs[1].last = LastResult::Draw;
  auto after = weigh(cs, PickOptions{Policy::Learned, 1, 1.0});
  CHECK(after[2].probability > before[2].probability);
  CHECK(after[1].probability < before[1].probability);
  // docs/LEARNING.md: k = min(20, 8) = 8, mean = (8 * 0.5 + 6) / (8 + 6) = 10/14.
  CHECK(after[2].expected == Approx(10.0 / 14));
  CHECK(after[2].weight == Approx(20 * (10.0 / 14 / 0.5) * (10.0 / 14 / 0.5)));
  CHECK(after[2].lower < after[2].expected);
  CHECK(after[2].upper > after[2].expected);
}

TEST_CASE("Policies parse from their names", "[explore][pick]") {
  CHECK(parse_policy("learned") == Policy::Learned);
  CHECK(parse_policy("best") == Policy::Best);
  CHECK_FALSE(parse_policy("random"));
}

// An imported Polyglot book's moves: weights, no games (docs/PROBE.md).
TEST_CASE("Moves with an imported weight and no games play by that weight under every policy",
          "[explore][pick][import]") {
  std::vector<Candidate> cs(3);
  cs[0].move = uci("e2e4"), cs[0].imported_weight = 9;
  cs[1].move = uci("d2d4"), cs[1].imported_weight = 3;
  cs[2].move = uci("g2g4"), cs[2].imported_weight = 0;  // a .bin entry of weight 0 never plays
  // min-games counts games, which these moves have none of: it does not hold them back.
  auto weighted = weigh(cs, PickOptions{Policy::Weighted, 5, 1.0});
  CHECK(weighted[0].probability == Approx(0.75));
  CHECK(weighted[1].probability == Approx(0.25));
  CHECK(weighted[2].weight == 0);
  CHECK(weighted[2].reason == Reason::NoWeight);
  auto best = weigh(cs, PickOptions{Policy::Best, 5, 1.0});
  CHECK(best[0].reason == Reason::Best);
  auto uniform = weigh(cs, PickOptions{Policy::Uniform, 5, 1.0});
  CHECK(uniform[0].probability == Approx(0.5));
  CHECK(uniform[2].weight == 0);
  // Learned without learning equals weighted; a learned draw and a loss move an even prior of 8 games.
  auto learned = weigh(cs, PickOptions{Policy::Learned, 5, 1.0});
  CHECK(learned[0].probability == Approx(0.75));
  cs[0].learned = Results{0, 1, 1};
  learned = weigh(cs, PickOptions{Policy::Learned, 5, 1.0});
  double mean = (8 * 0.5 + 0.5) / 10;
  CHECK(learned[0].expected == Approx(mean));
  CHECK(learned[0].weight == Approx(9 * (mean / 0.5) * (mean / 0.5)));
  // A move with games keeps its games' weight, and min-games applies to it.
  cs[1].source = Results{1, 0, 0};
  CHECK(weigh(cs, PickOptions{Policy::Weighted, 1, 1.0})[1].weight == 2);
  CHECK(weigh(cs, PickOptions{Policy::Weighted, 2, 1.0})[1].reason == Reason::TooFewGames);
}
