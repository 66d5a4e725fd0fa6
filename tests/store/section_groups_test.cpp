// Groups of sections (store/section_groups.h): what is put is found, in key
// order, however the writes come; damage is refused, not read past.
#include "book/store/section_groups.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "book/store/book.h"
#include "temp_dir.h"

using namespace gb;
using namespace gb::store;

using gb::test::TempDir;

namespace {

// A section's stand-in: the groups hold any bytes (sections are their callers').
std::string bytes_for(Key key, std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = char((key >> (8 * (i % 8))) + i);
  return s;
}

// Everything the database holds, in the order each_section gives it.
std::vector<std::pair<Key, std::string>> read_all(Book& book) {
  std::vector<std::pair<Key, std::string>> out;
  auto txn = ReadTxn::begin(book.env(), nullptr);
  REQUIRE(txn);
  REQUIRE_FALSE(each_section(*txn, book.dbs().positions, [&](Key key, std::string_view section) {
    out.emplace_back(key, std::string(section));
    return true;
  }));
  return out;
}

// The LMDB records' value sizes and whether each group's key is at most its
// first position's and above the last position of the group before it.
void check_groups(Book& book, std::size_t largest) {
  auto txn = ReadTxn::begin(book.env(), nullptr);
  REQUIRE(txn);
  auto cursor = Cursor::open(*txn, book.dbs().positions, nullptr);
  REQUIRE(cursor);
  std::optional<Key> last;
  for (auto item = cursor->first(); item; item = cursor->next()) {
    const auto g = group_key(item->key);
    REQUIRE(g);
    CHECK(item->value.size() <= largest);
    if (last) CHECK(*g > *last);
    GroupReader group(*g, item->value);
    Key key;
    std::string_view section;
    bool any = false;
    while (group.next(key, section)) {
      CHECK(key >= *g);
      last = key;
      any = true;
    }
    CHECK_FALSE(group.damaged());
    CHECK(any);
  }
}

}  // namespace

TEST_CASE("Sections put in any order, changed and erased read back as a map of them would", "[store]") {
  TempDir dir;
  auto book = Book::open(dir.file("g.book"), OpenMode::Create, nullptr);
  REQUIRE(book);
  std::mt19937_64 rng(20261202);
  std::map<Key, std::string> want;  // the model
  // Rounds of writes, each one transaction in random key order: new keys,
  // a key below every group, new sizes for old keys, erasures.
  for (int round = 0; round < 6; ++round) {
    std::vector<std::pair<Key, std::string>> writes;
    for (int i = 0; i < 700; ++i) {
      const Key key = (round == 3 && i == 0) ? Key(1) : (rng() | 2);
      writes.emplace_back(key, bytes_for(key, 5 + rng() % 120));
    }
    if (round > 0)
      for (auto it = want.begin(); it != want.end(); ++it)
        if (rng() % 4 == 0)
          writes.emplace_back(it->first, rng() % 2 ? std::string() : bytes_for(it->first, 300));
    std::shuffle(writes.begin(), writes.end(), rng);
    REQUIRE_FALSE(book->write([&](WriteTxn& txn) -> Status {
      SectionUpdater positions(txn, book->dbs().positions);
      for (const auto& [key, section] : writes) {
        Error e;
        auto before = positions.get(key, &e);
        REQUIRE_FALSE(e.code);
        CHECK(before.has_value() == want.contains(key));
        if (before) CHECK(*before == want[key]);
        if (auto s = section.empty() ? positions.erase(key) : positions.put(key, section)) return s;
        if (section.empty())
          want.erase(key);
        else
          want[key] = section;
      }
      return positions.flush();
    }));
    INFO("round " << round);
    REQUIRE(want.size() > 600);
    const auto got = read_all(*book);
    CHECK(got == std::vector<std::pair<Key, std::string>>(want.begin(), want.end()));
    // A group grows to twice the bound before it is split.
    check_groups(*book, 2 * kGroupBytes);
  }
  auto txn = ReadTxn::begin(book->env(), nullptr);
  REQUIRE(txn);
  auto finder = SectionFinder::open(*txn, book->dbs().positions, nullptr);
  REQUIRE(finder);
  for (const auto& [key, section] : want) {
    auto found = finder->find(key);
    REQUIRE(found);
    CHECK(*found == section);
    CHECK(finder->find(key + 1).has_value() == want.contains(key + 1));
  }
  CHECK_FALSE(finder->find(0));
  std::uint64_t n = 0;
  REQUIRE_FALSE(count_sections(*txn, book->dbs().positions, n));
  CHECK(n == want.size());
}

TEST_CASE("An appender cuts groups by their bytes and their positions", "[store]") {
  TempDir dir;
  auto book = Book::open(dir.file("a.book"), OpenMode::Create, nullptr);
  REQUIRE(book);
  std::map<Key, std::string> want;
  REQUIRE_FALSE(book->write([&](WriteTxn& txn) -> Status {
    GroupAppender positions([&](std::string_view key, std::string_view value) {
      return txn.put(book->dbs().positions, key, value, MDB_APPEND);
    });
    // 100 small sections 1 apart (1-byte deltas: 2 + 10 bytes a position, 32
    // to a group), then 10 of 600 bytes, then one of 3,000 (a group of its
    // own, past the bound). The first of 600 joins the 4 small ones left
    // (1 + 5 + 44 + 602 = 652 bytes); two of 600 would pass 1,002.
    Key key = 1000;
    for (int i = 0; i < 100; ++i, ++key) want[key] = bytes_for(key, 10);
    for (int i = 0; i < 10; ++i, ++key) want[key] = bytes_for(key, 600);
    want[key] = bytes_for(key, 3000);
    for (const auto& [k, s] : want)
      if (auto st = positions.add(k, s)) return st;
    return positions.finish();
  }));
  CHECK(read_all(*book) == std::vector<std::pair<Key, std::string>>(want.begin(), want.end()));
  auto txn = ReadTxn::begin(book->env(), nullptr);
  MDB_stat st;
  REQUIRE_FALSE(txn->stat(book->dbs().positions, st));
  CHECK(st.ms_entries == 3 + 1 + 9 + 1);  // 32, 32, 32, 4 and a 600; the other 9 of 600; the 3,000
}

TEST_CASE("A group that does not decode is damage, never read past", "[store]") {
  const std::string section = "abc";
  std::string good;
  GroupEncoder encoder;
  encoder.clear(100);
  encoder.add(100, section);
  encoder.add(400, section);
  encoder.encode(good);
  // Width 2 (the delta 300), then 0 0 3 "abc", then 300 (0x2c 0x01) 3 "abc".
  REQUIRE(good == std::string("\x02\x00\x00\x03"
                              "abc"
                              "\x2c\x01\x03"
                              "abc",
                              13));
  Key key;
  std::string_view got;
  {
    GroupReader reader(100, good);
    REQUIRE(reader.next(key, got));
    CHECK((key == 100 && got == section));
    REQUIRE(reader.next(key, got));
    CHECK((key == 400 && got == section));
    CHECK_FALSE(reader.next(key, got));
    CHECK_FALSE(reader.damaged());
  }
  const std::vector<std::string> damaged = {
      "",                               // no width
      std::string("\x00", 1),           // width 0
      "\x09",                           // width 9
      good.substr(0, good.size() - 1),  // a section cut short
      good.substr(0, 9),                // a delta cut short
      std::string("\x02\x00\x00\x03"
                  "abc"
                  "\x00\x00\x03"
                  "abc",
                  13),  // a key twice (delta 0)
  };
  for (const std::string& bytes : damaged) {
    GroupReader reader(100, bytes);
    while (reader.next(key, got)) CHECK(got.data() + got.size() <= bytes.data() + bytes.size());
    CHECK(reader.damaged());
  }
  GroupReader past_the_end(~Key(0) - 10, good);  // a delta that would wrap the key
  past_the_end.next(key, got);
  CHECK_FALSE(past_the_end.next(key, got));
  CHECK(past_the_end.damaged());
}
