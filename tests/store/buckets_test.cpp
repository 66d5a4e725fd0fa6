// Buckets (book/store/buckets.h): the bucket id of a game's rating band,
// speed, period and source; their encoding; the filter of --ratings,
// --speeds, --since, --until. The expected classes are lichess's thresholds
// (scalachess Speed.scala: estimated duration base + 40 x increment, below
// 30 s UltraBullet, 180 Bullet, 480 Blitz, 1500 Rapid, 21600 Classical) and
// its rating bands, written out here, not taken from the code.
#include "book/store/buckets.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

using namespace gb::store;

TEST_CASE("Rating bands are lichess's, the unrated apart", "[store][buckets]") {
  CHECK(rating_band(0) == Band::Unrated);
  CHECK(rating_band(1) == Band::Under1600);
  CHECK(rating_band(1599) == Band::Under1600);
  CHECK(rating_band(1600) == Band::R1600);
  CHECK(rating_band(1799) == Band::R1600);
  CHECK(rating_band(1800) == Band::R1800);
  CHECK(rating_band(2000) == Band::R2000);
  CHECK(rating_band(2199) == Band::R2000);
  CHECK(rating_band(2200) == Band::R2200);
  CHECK(rating_band(2499) == Band::R2200);
  CHECK(rating_band(2500) == Band::R2500);
  CHECK(rating_band(3300) == Band::R2500);
}

TEST_CASE("Speeds follow lichess's estimated duration base + 40 x increment", "[store][buckets]") {
  struct Case {
    const char* tag;
    Speed speed;
  };
  const Case cases[] = {
      {"15+0", Speed::UltraBullet},
      {"29+0", Speed::UltraBullet},
      {"30+0", Speed::Bullet},
      {"0+1", Speed::Bullet},
      {"60+0", Speed::Bullet},
      {"120+1", Speed::Bullet},  // 160
      {"179+0", Speed::Bullet},
      {"180+0", Speed::Blitz},
      {"140+1", Speed::Blitz},  // 180
      {"300+3", Speed::Blitz},
      {"479+0", Speed::Blitz},
      {"480+0", Speed::Rapid},  //
      {"600+5", Speed::Rapid},
      {"900+10", Speed::Rapid},
      {"1499", Speed::Rapid},  //
      {"1500+0", Speed::Classical},
      {"900+15", Speed::Classical},
      {"5400+30", Speed::Classical},
      {"40/7200:3600", Speed::Classical},
      {"21600+0", Speed::Correspondence},
      {"-", Speed::Correspondence},
      {"?", Speed::Unknown},
      {"", Speed::Unknown},
      {"abc", Speed::Unknown},
      {"300+", Speed::Unknown},
      {"-5+0", Speed::Unknown},
      {"*60", Speed::Bullet},
  };
  for (const Case& c : cases) {
    INFO(c.tag);
    CHECK(speed_of(c.tag) == c.speed);
  }
}

TEST_CASE("A bucket id keeps band, speed, period and source apart", "[store][buckets]") {
  for (int band = 0; band < kBands; ++band)
    for (int speed = 0; speed < kSpeeds; ++speed)
      for (std::uint32_t period :
           {0u, period_of(20150000, false), period_of(20200612, true), 9999u * 16 + 12})
        for (std::uint32_t source : {0u, 1u, 7u, 100000u}) {
          const std::uint64_t id = bucket_id(Band(band), Speed(speed), period, source);
          CHECK(int(bucket_band(id)) == band);
          CHECK(int(bucket_speed(id)) == speed);
          CHECK(bucket_period(id) == period);
          CHECK(bucket_source(id) == source);
        }
  CHECK(period_of(20200612, true) == 2020 * 16 + 6);
  CHECK(period_of(20200612, false) == 2020 * 16);
  CHECK(period_of(20200000, true) == 2020 * 16);  // month unknown
  CHECK(period_of(0, true) == 0);
}

TEST_CASE("Bucket sections decode to what was encoded, and damage does not decode", "[store][buckets]") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<BucketEntry> entries;
    std::uint16_t move = 0;
    const int groups = int(rng() % 5) + 1;
    for (int g = 0; g < groups; ++g) {
      std::uint64_t id = rng() % 1000;
      for (int n = int(rng() % 4) + 1; n > 0; --n) {
        BucketEntry e;
        e.move = move;
        e.id = id;
        id += 1 + rng() % (std::uint64_t(1) << (rng() % 40));
        BucketCounters& c = e.counters;
        c.games = std::uint32_t(rng() % 3 ? 1 : 1 + rng() % 100000);
        c.white_wins = std::uint32_t(rng() % (c.games + 1));
        c.draws = std::uint32_t(rng() % (c.games - c.white_wins + 1));
        c.black_wins = std::uint32_t(rng() % (c.games - c.white_wins - c.draws + 1));
        c.rated_games = std::uint32_t(rng() % (c.games + 1));
        c.elo_sum = c.rated_games * (rng() % 3000);
        if (move) {
          c.occurrences = c.games + std::uint32_t(rng() % 3);
          c.score = std::uint32_t(rng() % (2 * c.occurrences + 1));
          c.first_play = rng() % (std::uint64_t(1) << 45);
        }
        c.min_ply = std::uint16_t(rng() % 300);
        entries.push_back(e);
      }
      move = std::uint16_t(move + 1 + rng() % 500);
    }
    std::string bytes;
    encode_buckets(entries, bytes);
    std::vector<BucketEntry> back;
    REQUIRE(decode_buckets(bytes, back));
    CHECK(back == entries);
    // Cut short anywhere, a section either fails or decodes to fewer buckets.
    const std::size_t cut = std::size_t(rng() % bytes.size());
    std::vector<BucketEntry> part;
    if (decode_buckets(std::string_view(bytes).substr(0, cut), part)) CHECK(part.size() < entries.size());
  }
  std::vector<BucketEntry> out;
  CHECK_FALSE(decode_buckets(std::string("\x00\x01\x01\x00", 4), out));  // a count, no bucket
  CHECK(decode_buckets("", out));
  CHECK(out.empty());
}

TEST_CASE("Merging bucket lists sums equal buckets and keeps the order", "[store][buckets]") {
  auto entry = [](std::uint16_t move, std::uint64_t id, std::uint32_t games, std::uint16_t min_ply,
                  std::uint64_t first_play) {
    BucketEntry e{move, id, {}};
    e.counters.games = games;
    e.counters.draws = games;
    e.counters.min_ply = min_ply;
    e.counters.first_play = first_play;
    return e;
  };
  std::vector<BucketEntry> a = {entry(0, 5, 1, 3, 0), entry(7, 2, 1, 4, 900), entry(7, 9, 2, 6, 50)};
  const std::vector<BucketEntry> b = {entry(0, 1, 1, 2, 0), entry(7, 9, 3, 5, 70), entry(8, 1, 1, 8, 10)};
  merge_buckets(a, b);
  REQUIRE(a.size() == 5);
  CHECK(a[0].id == 1);
  CHECK(a[1].id == 5);
  CHECK((a[3].move == 7 && a[3].id == 9));
  CHECK(a[3].counters.games == 5);
  CHECK(a[3].counters.draws == 5);
  CHECK(a[3].counters.min_ply == 5);
  CHECK(a[3].counters.first_play == 50);
  CHECK(a[4].move == 8);
}

TEST_CASE("A filter selects buckets by band, speed and period", "[store][buckets]") {
  FilterError why;
  auto f = parse_filter("2000,2200", "blitz,rapid", "2015", "2020-06", &why);
  REQUIRE(f);
  const std::uint32_t june = period_of(20200600, true), july = period_of(20200700, true);
  CHECK(f->selects(bucket_id(Band::R2000, Speed::Blitz, june, 1), true));
  CHECK_FALSE(f->selects(bucket_id(Band::R2000, Speed::Blitz, july, 1), true));
  CHECK_FALSE(f->selects(bucket_id(Band::R1800, Speed::Blitz, june, 1), true));
  CHECK_FALSE(f->selects(bucket_id(Band::R2200, Speed::Bullet, june, 1), true));
  CHECK_FALSE(f->selects(bucket_id(Band::R2200, Speed::Rapid, period_of(20141231, true), 1), true));
  CHECK_FALSE(f->selects(bucket_id(Band::R2200, Speed::Rapid, 0, 1), true));  // undated, as build --since
  CHECK(f->selects(bucket_id(Band::R2200, Speed::Rapid, period_of(20150000, true), 3), true));
  // A book of years cannot answer a month; a book of months no day.
  CHECK(f->too_fine(false));
  CHECK_FALSE(f->too_fine(true));
  auto day = parse_filter("", "", "2015-03-02", "", &why);
  REQUIRE(day);
  CHECK(day->too_fine(true));
  auto years = parse_filter("unrated,0", "", "2015", "2016", &why);
  REQUIRE(years);
  CHECK_FALSE(years->too_fine(false));
  CHECK(years->selects(bucket_id(Band::Unrated, Speed::Unknown, period_of(20161231, false), 1), false));
  CHECK_FALSE(years->selects(bucket_id(Band::Unrated, Speed::Unknown, period_of(20170101, false), 1), false));
  CHECK_FALSE(years->selects(bucket_id(Band::R1600, Speed::Unknown, period_of(20160101, false), 1), false));

  CHECK_FALSE(parse_filter("2100", "", "", "", &why));
  CHECK(why.message.find("--ratings 2100") != std::string::npos);
  CHECK_FALSE(parse_filter("", "blitz,slow", "", "", &why));
  CHECK(why.message.find("'slow' is no speed") != std::string::npos);
  CHECK_FALSE(parse_filter("", "", "2020", "2019", &why));
  CHECK_FALSE(parse_filter("", "", "20x0", "", &why));
}
