// lichess's classes as the tests write them out, apart from graphbook's code
// (book/store/buckets.cpp): the speed of a TimeControl tag (scalachess
// Speed.scala: base + 40 x increment seconds) and the rating band of an Elo.
// The independent side of the bucket tests (tests/buckets, tests/serve).
#pragma once

#include <string>

namespace gb::test {

inline std::string speed_of(const std::string& tc) {
  if (tc == "-") return "correspondence";
  const auto plus = tc.find('+');
  if (plus == std::string::npos) return "unknown";
  const int total = std::stoi(tc.substr(0, plus)) + 40 * std::stoi(tc.substr(plus + 1));
  return total < 30      ? "ultrabullet"
         : total < 180   ? "bullet"
         : total < 480   ? "blitz"
         : total < 1500  ? "rapid"
         : total < 21600 ? "classical"
                         : "correspondence";
}

inline std::string band_of(int elo) {
  if (elo <= 0) return "unrated";
  for (int low : {2500, 2200, 2000, 1800, 1600})
    if (elo >= low) return std::to_string(low);
  return "0";
}

}  // namespace gb::test
