// Random games for the tests of a build's counting (section_slices_test,
// ply_partitions_test), made without PGN: plies and facts as a build's
// visitor hands them over.
#pragma once

#include <vector>

#include "builder/aggregator.h"

namespace gb::builder {

// Random games over a pool of 200,000 positions, half with White to move:
// each starts at one of them and plays one of 6 moves a ply, a move leading
// from a position always to the same one (as in chess, which the merge of a
// move's counts relies on); most positions are reached by several games.
struct Games {
  std::vector<std::vector<PlyRecord>> plies;
  std::vector<GameFacts> facts;
};

inline Games random_games(int count) {
  Games games;
  std::uint64_t x = 0x452821E638D01377ull;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull; };
  constexpr Key kHalf = 100000;
  auto key_of = [](Key index) { return (index + 1) * 0x9E3779B97F4A7C15ull; };
  for (int g = 0; g < count; ++g) {
    const int n = 2 + int((next() >> 33) % 24);
    Key index = ((next() >> 33) % kHalf) * 2;  // White to move
    std::vector<PlyRecord> plies;
    for (int i = 0; i < n; ++i) {
      const Key key = key_of(index);
      const auto c = int((next() >> 33) % 6);
      // A book keeps 32 bits of a position hash, never 0.
      plies.push_back(
          {key, std::uint32_t(key >> 32) | 1, i + 1 < n ? Move(Square(c), Square(c + 8)) : Move()});
      index = ((index / 2 * 7919 + Key(c) * 104729 + 17) % kHalf) * 2 + Key(1 - index % 2);
    }
    games.plies.push_back(std::move(plies));
    GameFacts f;
    f.result = store::Result(g % 4);
    f.white_elo = g % 3 ? 1800 + g % 900 : 0;
    f.black_elo = 1900 + g % 700;
    f.year = 1995 + g % 30;
    games.facts.push_back(f);
  }
  return games;
}

}  // namespace gb::builder
