// The score's 95 % interval (Wilson, docs/VALUES.md), the lcb policy that
// plays its best lower bound, and the learned policy's bounds: each checked
// against the formula written out here.
#include <catch2/catch.hpp>
#include <cmath>

#include "book/explore/move_choice.h"
#include "probe_helpers.h"

using namespace gb;
using namespace gb::explore;

namespace {

Move uci(const char* text) { return *parse_uci(Position(), text); }

// The Wilson score interval as a statistics text writes it: centre and half-width over 1 + z^2/n.
std::pair<double, double> wilson(double p, double n) {
  const double z = 1.959963984540054;
  double denominator = 1 + z * z / n;
  double centre = (p + z * z / (2 * n)) / denominator;
  double half = z / denominator * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  return {centre - half, centre + half};
}

}  // namespace

TEST_CASE("The interval of 8 successes in 10 trials is the published Wilson interval", "[probe][interval]") {
  // 0.4902 to 0.9433: the 95 % Wilson interval of 8/10 in the statistics literature
  // (e.g. Newcombe 1998, "Two-sided confidence intervals for the single proportion", method 3).
  auto i = wilson_interval(0.8, 10);
  REQUIRE(i);
  CHECK(i->low == Approx(0.4902).margin(5e-5));
  CHECK(i->high == Approx(0.9433).margin(5e-5));
  CHECK(!wilson_interval(0.5, 0));
}

TEST_CASE("probe gives every move with games the Wilson interval of its score", "[probe][interval]") {
  using namespace gb::test;
  for (const char* moves : {"", "e4", "d4 Nf6", "e4 c5 Nf3"}) {
    auto j = graphbook_json("probe " + quote(twic_book()) + (*moves ? " --moves " + quote(moves) : "") +
                            " --json --no-names");
    REQUIRE(j["moves"].size() > 2);
    bool white = j["fen"].get<std::string>().find(" w ") != std::string::npos;
    for (const auto& m : j["moves"]) {
      double n = m["games"].get<double>();
      REQUIRE(n > 0);
      double wins = white ? m["white"].get<double>() : m["black"].get<double>();
      double half = m["draws"].get<double>() + m["unknown"].get<double>();
      auto [low, high] = wilson((wins + half / 2) / n, n);
      INFO(moves << " " << m["uci"]);
      REQUIRE(m["interval"].is_array());
      CHECK(m["interval"][0].get<double>() == Approx(low).margin(1e-12));
      CHECK(m["interval"][1].get<double>() == Approx(high).margin(1e-12));
    }
  }
}

TEST_CASE("lcb plays the best lower bound where best plays the heaviest", "[probe][pick][interval]") {
  std::vector<Candidate> cs{
      Candidate{uci("e2e4"), Results{45, 20, 35}, {}, LastResult::None, {}},  // 55 % of 100, weight 110
      Candidate{uci("d2d4"), Results{36, 12, 12}, {}, LastResult::None, {}},  // 70 % of 60, weight 84
      Candidate{uci("g1f3"), Results{5, 0, 0}, {}, LastResult::None, {}},     // 100 % of 5, weight 10
  };
  double e4 = wilson(0.55, 100).first, d4 = wilson(0.7, 60).first, nf3 = wilson(1.0, 5).first;
  REQUIRE(d4 > e4);
  REQUIRE(d4 > nf3);
  Rng rng(1);
  CHECK(choose(cs, PickOptions{Policy::Best, 1, 1.0}, rng)->move == uci("e2e4"));
  CHECK(choose(cs, PickOptions{Policy::Lcb, 1, 1.0}, rng)->move == uci("d2d4"));
  auto ws = weigh(cs, PickOptions{Policy::Lcb, 1, 1.0});
  CHECK(ws[1].reason == Reason::LowerBound);
  CHECK(ws[0].reason == Reason::NotBestBound);
  CHECK(ws[0].lower == Approx(e4));
  CHECK(ws[2].lower == Approx(nf3));
  // min-games still holds a move back: above 60 games only e4 may play.
  CHECK(choose(cs, PickOptions{Policy::Lcb, 61, 1.0}, rng)->move == uci("e2e4"));
}

TEST_CASE("pick --policy lcb on the twic book chooses the move whose interval starts highest",
          "[probe][pick]") {
  using namespace gb::test;
  auto probe = graphbook_json("probe " + quote(twic_book()) + " --moves e4 --json --no-names");
  std::string expected;
  double best = -1;
  for (const auto& m : probe["moves"]) {
    double n = m["games"].get<double>();
    double p = (m["black"].get<double>() + (m["draws"].get<double>() + m["unknown"].get<double>()) / 2) / n;
    if (wilson(p, n).first > best) best = wilson(p, n).first, expected = m["uci"];
  }
  REQUIRE(!expected.empty());
  auto pick = graphbook_json("pick " + quote(twic_book()) + " --moves e4 --policy lcb --json --no-names");
  CHECK(pick["move"]["uci"] == expected);
}

TEST_CASE("The learned policy's bounds are the Wilson interval of its posterior over k + n games",
          "[probe][pick][learning][interval]") {
  // 40 source games at 60 % (k = 8 of them count) and 6 learned: 1 win, 2 draws, 3 losses.
  std::vector<Candidate> cs{
      Candidate{uci("e2e4"), Results{20, 8, 12}, Results{1, 2, 3}, LastResult::Loss, {}}};
  auto ws = weigh(cs, PickOptions{Policy::Learned, 1, 1.0});
  double mean = (8 * 0.6 + 1 + 0.5 * 2) / (8 + 6);
  auto [low, high] = wilson(mean, 14);
  CHECK(ws[0].expected == Approx(mean));
  CHECK(ws[0].lower == Approx(low));
  CHECK(ws[0].upper == Approx(high));
}
