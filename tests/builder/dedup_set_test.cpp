// The build's set of game fingerprints.
#include "builder/dedup_set.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "temp_dir.h"

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
  std::vector<FingerprintRun> runs;
  REQUIRE_FALSE(set.take(runs));
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
  std::vector<FingerprintRun> runs;
  for (DedupSet& set : sets) REQUIRE_FALSE(set.take(runs));
  std::vector<Fingerprint> out;
  for (const auto& run : runs) out.insert(out.end(), run.begin(), run.end());
  CHECK(out == std::vector<Fingerprint>(seen.begin(), seen.end()));
}

TEST_CASE("A dedup set over its memory limit spills runs and still knows every fingerprint once",
          "[builder]") {
  gb::test::TempDir dir;
  for (std::uint32_t ranges : {1u, 3u}) {
    INFO(ranges << " key ranges");
    std::vector<DedupSet> sets;
    // 16 KiB: the tables' first slots alone are more, so every check spills
    // what came since the one before, and runs merge level by level.
    for (std::uint32_t r = 0; r < ranges; ++r) sets.emplace_back(KeyRange{r, ranges}, dir.path, 16 << 10);
    std::set<Fingerprint> seen;  // the reference
    std::vector<Fingerprint> inserted;
    std::uint64_t x = 777;
    auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull; };
    for (int i = 0; i < 120000; ++i) {
      Fingerprint fp;
      if (i % 5 == 2 && !inserted.empty())
        fp = inserted[next() % inserted.size()];  // a duplicate, mostly of a spilled one
      else if (i == 60000 || i == 90000)
        fp = Fingerprint{};  // twice: the second time it is in a run
      else if (i % 13 == 0)
        fp = {next() & ~0xFFFull, x & 0x3};  // neighbours in fp[0] order
      else
        fp = {next(), next()};
      std::uint32_t r = 0;
      while (!KeyRange{r, ranges}.holds(fp[0])) ++r;
      CHECK(sets[r].insert(fp) == seen.insert(fp).second);
      inserted.push_back(fp);
      if (i % 500 == 499)
        for (DedupSet& s : sets) REQUIRE_FALSE(s.spill_if_over());
    }
    std::size_t runs_held = 0;
    for (DedupSet& s : sets) runs_held += s.runs();
    CHECK(runs_held >= ranges);                        // they spilled
    CHECK(runs_held < 240 / DedupSet::kRunsPerMerge);  // and merged: 240 spills in all
    std::size_t held = 0;
    for (DedupSet& s : sets) held += s.size();
    CHECK(held == seen.size());
    std::vector<FingerprintRun> runs;
    for (DedupSet& s : sets) REQUIRE_FALSE(s.take(runs));
    CHECK(runs.size() == ranges);  // one merged run per range
    std::vector<Fingerprint> out;
    for (const auto& run : runs) out.insert(out.end(), run.begin(), run.end());
    CHECK(out == std::vector<Fingerprint>(seen.begin(), seen.end()));
  }
  // The runs' files are gone already: a mapped run needs no name.
  CHECK(std::filesystem::is_empty(dir.path));
}

TEST_CASE(
    "A run finds each of its fingerprints and none other, wherever interpolation lands, and never has a name",
    "[builder]") {
  gb::test::TempDir dir;
  // Fingerprints crowded at both ends and a gap in the middle: interpolation
  // guesses far from where they are.
  std::vector<Fingerprint> fps;
  for (std::uint64_t i = 0; i < 3000; ++i) fps.push_back({i * 7, i});
  for (std::uint64_t i = 0; i < 3000; ++i) fps.push_back({~0ull - 3000 * 11 + i * 11, i});
  fps.push_back({1ull << 63, 5});
  std::sort(fps.begin(), fps.end());
  FingerprintRunWriter writer;
  REQUIRE_FALSE(writer.open(dir.path, dir.file("run")));
  for (const Fingerprint& fp : fps) REQUIRE_FALSE(writer.add(fp));
  // Written (more than the writer's buffer) and not yet mapped, the run has
  // no name in the folder: a build killed now leaves nothing there.
  CHECK(std::filesystem::is_empty(dir.path));
  FingerprintRun run;
  REQUIRE_FALSE(writer.finish(run));
  REQUIRE(run.size() == fps.size());
  const KeyRange all;
  for (const Fingerprint& fp : fps) CHECK(run.contains(fp, all.spread(fp[0])));
  std::size_t absent = 0;
  for (const Fingerprint& fp : fps)
    for (Fingerprint other : {Fingerprint{fp[0], fp[1] + 1000000}, Fingerprint{fp[0] + 1, 0}}) {
      if (std::binary_search(fps.begin(), fps.end(), other)) continue;
      CHECK_FALSE(run.contains(other, all.spread(other[0])));
      ++absent;
    }
  CHECK(absent > fps.size());
  CHECK_FALSE(run.contains({~0ull, ~0ull}, ~0ull));
  CHECK_FALSE(FingerprintRun().contains({1, 1}, 1));
}
