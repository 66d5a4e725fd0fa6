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
#include "one_game_section.h"
#include "temp_dir.h"

using namespace gb;
using namespace gb::store;

using gb::test::TempDir;

namespace {

// A section's stand-in: the groups hold any bytes (sections are their
// callers'), but for a first byte from 0xc0 up (a packed node's, which a
// group reads to its end: records.h, self_delimited_length).
std::string bytes_for(Key key, std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = char((key >> (8 * (i % 8))) + i);
  if (size) s[0] = char(s[0] & 0x7f);
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
    // 150 small sections 1 apart (a delta of 1 byte, the first's a varint
    // 0, a size of 1 and 10 bytes: 1 + 12 × 64 = 769 bytes for 64, where a
    // group is closed), then 10 of 600 bytes (a delta, a size of 2 bytes),
    // then one of 3,000 (a group of its own, past the bound). The first of
    // 600 joins the 22 small ones left (1 + 12 × 22 + 1 + 602 = 868 bytes);
    // two of 600 would pass 1,002.
    Key key = 1000;
    for (int i = 0; i < 150; ++i, ++key) want[key] = bytes_for(key, 10);
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
  CHECK(st.ms_entries == 3 + 9 + 1);  // 64, 64, 22 and a 600; the other 9 of 600; the 3,000
  auto cursor = Cursor::open(*txn, book->dbs().positions, nullptr);
  REQUIRE(cursor);
  auto first = cursor->first();
  REQUIRE(first);
  CHECK(first->value.size() == 769);
}

TEST_CASE("A group that does not decode is damage, never read past", "[store]") {
  const std::string section = "abc";
  std::string good;
  GroupEncoder encoder;
  encoder.clear(100);
  encoder.add(100, section);
  encoder.add(400, section);
  encoder.encode(good);
  // 0x80 + width 2 (the delta 300), then the varint 0 (the first delta), 3
  // "abc", then 300 (0x2c 0x01), 3 "abc".
  REQUIRE(good == std::string("\x82\x00\x03"
                              "abc"
                              "\x2c\x01\x03"
                              "abc",
                              12));
  Key key;
  std::string_view got;
  // Format 5's layout (a width below 0x80: every delta in w bytes, every
  // size a varint) reads as it did.
  const std::string format5(
      "\x02\x00\x00\x03"
      "abc"
      "\x2c\x01\x03"
      "abc",
      13);
  for (const std::string& value : {good, format5}) {
    GroupReader reader(100, value);
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
      "\x80",                           // width 0
      "\x89",                           // width 9
      good.substr(0, good.size() - 1),  // a section cut short
      good.substr(0, 7),                // a delta cut short
      good.substr(0, 8),                // a delta without its section
      std::string("\x82\x00\x03"
                  "abc"
                  "\x00\x00\x03"
                  "abc",
                  12),                                             // a key twice (delta 0)
      std::string("\x81\x00\xc0\x01\x02", 5),                      // a packed node cut short
      std::string("\x81\x00\x80", 3),                              // a size cut short
      std::string("\x81\x00\x80\x01", 4) + std::string(100, 'x'),  // a size of 192 past the end
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

TEST_CASE("A group holds a one-game section without its size, and a large one after a longer size",
          "[store]") {
  // The one-game section of book_test's byte-exact case: a packed node (9
  // bytes) and its edge sharing it with the child key alone (11 bytes).
  Section one_game{gb::test::one_game_node(), {{gb::test::kOneGameMove, gb::test::one_game_edge()}}};
  std::string one;
  to_bytes(one_game, one);
  REQUIRE(one.size() == 20);
  const std::string large = bytes_for(7, 200);
  GroupEncoder encoder;
  encoder.clear(100);
  encoder.add(100, one);
  encoder.add(101, large);
  encoder.add(102, one);
  std::string value;
  encoder.encode(value);
  // 0x81, 0 (the first delta), the section inline (19 bytes: no size, the
  // edge's length byte gone); 1, the size 200 (0x80 + (72 & 63), 72 >> 6 =
  // 1), 200 bytes; 1, the inline section.
  CHECK(value.size() == 1 + 1 + 19 + 1 + 2 + 200 + 1 + 19);
  CHECK(value.substr(2, 1) == "\xfe");
  CHECK(value.substr(21, 3) == "\x01\x88\x01");
  GroupReader reader(100, value);
  Key key;
  std::string_view got;
  for (Key want : {Key(100), Key(101), Key(102)}) {
    REQUIRE(reader.next(key, got));
    CHECK(key == want);
    Section back;
    if (want == 101) {
      CHECK(got == large);
      continue;
    }
    CHECK(got.size() == 19);
    REQUIRE(from_bytes(got, back));
    CHECK(back.node == one_game.node);
    CHECK(back.edges == one_game.edges);
  }
  CHECK_FALSE(reader.next(key, got));
  CHECK_FALSE(reader.damaged());
}
