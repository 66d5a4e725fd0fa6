// The build's set of game fingerprints.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "builder/build_visitor.h"

using namespace gb::builder;

TEST_CASE("The dedup set knows every fingerprint once, and gives them back in order", "[builder]") {
  DedupSet set;
  std::set<Fingerprint> seen;  // the reference
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull; };
  std::vector<Fingerprint> inserted;
  for (int i = 0; i < 200000; ++i) {
    Fingerprint fp;
    if (i % 7 == 3 && !inserted.empty())
      fp = inserted[next() % inserted.size()];  // a duplicate
    else if (i == 5000)
      fp = Fingerprint{};  // the all-zero fingerprint is a fingerprint too
    else if (i % 11 == 0)
      fp = {next(), x & 0xFF};  // clustered in one shard's first slots
    else
      fp = {next(), next()};
    CHECK(set.insert(fp) == seen.insert(fp).second);
    inserted.push_back(fp);
  }
  CHECK(set.size() == seen.size());
  std::vector<std::vector<Fingerprint>> runs;
  set.take(runs);
  CHECK(runs.size() > 1);
  std::vector<Fingerprint> out;
  for (const auto& run : runs) out.insert(out.end(), run.begin(), run.end());
  CHECK(out == std::vector<Fingerprint>(seen.begin(), seen.end()));  // in order, without a sort here
  CHECK(set.size() == 0);
  CHECK(set.insert(out.front()));  // empty after take
}

TEST_CASE("The dedup sets of key ranges give back their fingerprints in order, range after range",
          "[builder]") {
  std::vector<DedupSet> sets;
  for (std::uint32_t i = 0; i < 3; ++i) sets.emplace_back(KeyRange{i, 3});
  std::set<Fingerprint> seen;
  std::uint64_t x = 12345;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull; };
  for (int i = 0; i < 50000; ++i) {
    Fingerprint fp{next(), next()};
    for (std::uint32_t r = 0; r < 3; ++r)
      if (KeyRange{r, 3}.holds(fp[0])) CHECK(sets[r].insert(fp) == seen.insert(fp).second);
  }
  std::vector<std::vector<Fingerprint>> runs;
  for (DedupSet& set : sets) set.take(runs);
  std::vector<Fingerprint> out;
  for (const auto& run : runs) out.insert(out.end(), run.begin(), run.end());
  CHECK(out == std::vector<Fingerprint>(seen.begin(), seen.end()));
}
