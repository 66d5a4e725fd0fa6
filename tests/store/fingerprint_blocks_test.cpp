// The games database in blocks (store/fingerprint_blocks.h), against a
// std::set of the same fingerprints: every fingerprint put is found, none
// other is, they read back in order, and every record stays a block whose
// fingerprints lie below the next one's key, through inserts into blocks
// and below all of them, cuts of grown blocks and erasures; a database of
// format 6's records (a key each, no value) reads and grows the same; and a
// damaged record is an error, not a fingerprint.
#include "book/store/fingerprint_blocks.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "temp_dir.h"

using namespace gb::store;
using gb::test::TempDir;

namespace {

struct Db {
  Env env;
  MDB_dbi games;
};

Db open_db(const TempDir& dir) {
  Error e;
  auto env = Env::open(dir.file("fp.mdb"), false, std::size_t(1) << 26, 4, &e);
  REQUIRE(env);
  auto txn = WriteTxn::begin(*env, &e);
  REQUIRE(txn);
  auto games = txn->open_db("games", MDB_CREATE, &e);
  REQUIRE(games);
  REQUIRE_FALSE(txn->commit());
  return Db{std::move(*env), *games};
}

// Every record a block, each above the one before; the fingerprints in order.
std::vector<Fingerprint> read_all(Db& db, std::size_t* records = nullptr, std::size_t* largest = nullptr) {
  Error e;
  auto txn = ReadTxn::begin(db.env, &e);
  REQUIRE(txn);
  auto cursor = Cursor::open(*txn, db.games, &e);
  REQUIRE(cursor);
  std::string last;
  std::size_t n = 0, most = 0;
  for (auto item = cursor->first(&e); item; item = cursor->next(&e)) {
    INFO(block_problem(item->key, item->value).value_or(""));
    CHECK_FALSE(block_problem(item->key, item->value));
    CHECK((last.empty() || std::string_view(last) < item->key));
    last.assign(item->value.empty() ? item->key : item->value.substr(item->value.size() - 16));
    ++n;
    most = std::max(most, 1 + item->value.size() / 16);
  }
  REQUIRE(e.code == 0);
  if (records) *records = n;
  if (largest) *largest = most;
  std::vector<Fingerprint> out;
  auto fps = FingerprintCursor::open(*txn, db.games, &e);
  REQUIRE(fps);
  while (auto fp = fps->next(&e)) out.push_back(*fp);
  REQUIRE(e.code == 0);
  return out;
}

bool has(Db& db, const Fingerprint& fp) {
  Error e;
  auto txn = ReadTxn::begin(db.env, &e);
  REQUIRE(txn);
  auto cursor = Cursor::open(*txn, db.games, &e);
  REQUIRE(cursor);
  auto found = has_fingerprint(*cursor, fp, &e);
  INFO(e.message());
  REQUIRE(found);
  return *found;
}

void insert(Db& db, std::vector<Fingerprint> fps) {
  std::sort(fps.begin(), fps.end());
  fps.erase(std::unique(fps.begin(), fps.end()), fps.end());
  Error e;
  auto txn = WriteTxn::begin(db.env, &e);
  REQUIRE(txn);
  REQUIRE_FALSE(insert_fingerprints(*txn, db.games, fps));
  REQUIRE_FALSE(txn->commit());
}

bool erase(Db& db, const Fingerprint& fp) {
  Error e;
  auto txn = WriteTxn::begin(db.env, &e);
  REQUIRE(txn);
  bool erased = false;
  REQUIRE_FALSE(erase_fingerprint(*txn, db.games, fp, &erased));
  REQUIRE_FALSE(txn->commit());
  return erased;
}

// Checks db against model: each fingerprint of the model found, as many
// absent ones not (some between the model's), all read in order.
void check_against(Db& db, const std::set<Fingerprint>& model, std::mt19937_64& rng) {
  REQUIRE_FALSE(model.empty());
  CHECK(read_all(db) == std::vector<Fingerprint>(model.begin(), model.end()));
  std::size_t missed = 0, false_found = 0;
  for (const Fingerprint& fp : model) missed += !has(db, fp);
  for (const Fingerprint& fp : model) {
    const Fingerprint next_to{fp[0], fp[1] + 1};  // just above one that is there
    if (!model.count(next_to)) false_found += has(db, next_to);
    const Fingerprint random{rng(), rng()};
    if (!model.count(random)) false_found += has(db, random);
  }
  CHECK(missed == 0);
  CHECK(false_found == 0);
}

}  // namespace

TEST_CASE("Fingerprints in blocks are found, read in order and kept as blocks through inserts and erasures",
          "[store]") {
  TempDir dir;
  Db db = open_db(dir);
  std::mt19937_64 rng(20261206);
  std::set<Fingerprint> model;
  // A database written as a build writes a new one: blocks of kBlockFingerprints.
  {
    std::vector<Fingerprint> first(1000);
    for (Fingerprint& fp : first) fp = {rng(), rng()};
    std::sort(first.begin(), first.end());
    Error e;
    auto txn = WriteTxn::begin(db.env, &e);
    REQUIRE(txn);
    FingerprintAppender blocks([&](std::string_view key, std::string_view value) {
      return txn->put(db.games, key, value, MDB_APPEND);
    });
    for (const Fingerprint& fp : first) {
      REQUIRE_FALSE(blocks.add(fp));
      model.insert(fp);
    }
    REQUIRE_FALSE(blocks.finish());  // 1,000 is not a multiple of 63: a last, shorter block
    REQUIRE_FALSE(txn->commit());
  }
  std::size_t records = 0;
  read_all(db, &records);
  CHECK(records == (1000 + kBlockFingerprints - 1) / kBlockFingerprints);
  check_against(db, model, rng);

  // Builds into it: new fingerprints anywhere (below every key too), some
  // already there, in batches small and large.
  for (std::size_t batch : {1, 7, 300, 5000}) {
    std::vector<Fingerprint> more;
    for (std::size_t i = 0; i < batch; ++i) more.push_back({rng(), rng()});
    more.push_back({0, 1 + batch});                 // below every fingerprint so far
    more.push_back(*std::next(model.begin(), 17));  // there already
    for (const Fingerprint& fp : more) model.insert(fp);
    insert(db, more);
    std::size_t largest = 0;
    read_all(db, &records, &largest);
    CHECK(largest <= kMaxBlockFingerprints);  // grown blocks are cut
    check_against(db, model, rng);
  }

  // Retracts: a block's first fingerprint (its key), others, and absent ones.
  std::size_t erased = 0, kept_absent = 0;
  std::vector<Fingerprint> all(model.begin(), model.end());
  for (std::size_t i = 0; i < all.size(); i += 3) {
    erased += erase(db, all[i]);
    model.erase(all[i]);
    kept_absent += !erase(db, all[i]);  // a second time: not there
  }
  CHECK(erased == (all.size() + 2) / 3);
  CHECK(kept_absent == erased);
  check_against(db, model, rng);
}

TEST_CASE(
    "A games database of a record a fingerprint (format 6) reads as blocks of one and grows into blocks",
    "[store]") {
  TempDir dir;
  Db db = open_db(dir);
  std::mt19937_64 rng(6);
  std::set<Fingerprint> model;
  {
    Error e;
    auto txn = WriteTxn::begin(db.env, &e);
    REQUIRE(txn);
    for (int i = 0; i < 500; ++i) {
      const Fingerprint fp{rng(), rng()};
      model.insert(fp);
      REQUIRE_FALSE(txn->put(db.games, FingerprintKey(fp).view(), {}));
    }
    REQUIRE_FALSE(txn->commit());
  }
  check_against(db, model, rng);
  std::vector<Fingerprint> more;
  for (int i = 0; i < 2000; ++i) more.push_back({rng(), rng()});
  for (const Fingerprint& fp : more) model.insert(fp);
  insert(db, more);
  std::size_t records = 0;
  read_all(db, &records);
  CHECK(records < 500 + 2000);  // the new ones joined the old records' blocks
  check_against(db, model, rng);
}

TEST_CASE("A damaged record of the games database is an error, not a fingerprint", "[store]") {
  TempDir dir;
  Db db = open_db(dir);
  const Fingerprint fp{5, 6};
  {
    Error e;
    auto txn = WriteTxn::begin(db.env, &e);
    REQUIRE(txn);
    // A value of 15 bytes: not 16-byte fingerprints.
    REQUIRE_FALSE(txn->put(db.games, FingerprintKey(fp).view(), std::string(15, '\x7f')));
    REQUIRE_FALSE(txn->commit());
  }
  CHECK(block_problem(FingerprintKey(fp).view(), std::string(15, '\x7f')));
  CHECK(block_problem(FingerprintKey(fp).view(), std::string(16, '\0')));  // below its key
  CHECK(block_problem("short", {}));
  Error e;
  auto txn = ReadTxn::begin(db.env, &e);
  REQUIRE(txn);
  auto cursor = Cursor::open(*txn, db.games, &e);
  REQUIRE(cursor);
  CHECK_FALSE(has_fingerprint(*cursor, Fingerprint{5, 7}, &e));  // in its range: the block is read
  CHECK(e.code == EIO);
  e = {};
  auto fps = FingerprintCursor::open(*txn, db.games, &e);
  REQUIRE(fps);
  CHECK_FALSE(fps->next(&e));
  CHECK(e.code == EIO);
  CHECK(e.message().find("games") != std::string::npos);
}
