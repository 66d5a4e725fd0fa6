// The build's set of game fingerprints.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "builder/build_visitor.h"

using namespace gb::builder;

TEST_CASE("The dedup set knows every fingerprint once, across its growths", "[builder]") {
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
  std::vector<Fingerprint> out;
  set.take(out);
  std::sort(out.begin(), out.end());
  CHECK(out == std::vector<Fingerprint>(seen.begin(), seen.end()));
  CHECK(set.size() == 0);
  CHECK(set.insert(out.front()));  // empty after take
}
