// The LMDB wrapper: what it adds to LMDB itself.
#include "book/store/lmdb.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "temp_dir.h"

using namespace gb::store;
using gb::test::TempDir;

namespace {

// The resident kilobytes of this process's mappings of path (/proc/self/smaps).
long resident_kb(const std::string& path) {
  std::FILE* smaps = std::fopen("/proc/self/smaps", "r");
  REQUIRE(smaps);
  long kb = 0;
  bool in = false;
  char line[1024];
  while (std::fgets(line, sizeof line, smaps)) {
    unsigned long start, end;
    if (std::sscanf(line, "%lx-%lx ", &start, &end) == 2)  // a mapping's first line
      in = std::strstr(line, path.c_str()) != nullptr;
    else if (in && std::strncmp(line, "Rss:", 4) == 0)
      kb += std::atol(line + 4);
  }
  std::fclose(smaps);
  return kb;
}

}  // namespace

TEST_CASE("Released map pages leave this process and are read again as they were", "[store]") {
  TempDir dir;
  const std::string path = dir.file("env");
  Error error;
  auto env = Env::open(path, false, std::size_t(64) << 20, 4, &error);
  REQUIRE(env);
  MDB_dbi dbi;
  const std::string value(1000, 'v');
  {
    auto txn = WriteTxn::begin(*env, &error);
    REQUIRE(txn);
    REQUIRE(mdb_dbi_open(txn->get(), "d", MDB_CREATE, &dbi) == 0);
    for (int i = 0; i < 8000; ++i) {  // about 8 MB
      char key[16];
      std::snprintf(key, sizeof key, "%08d", i);
      REQUIRE_FALSE(txn->put(dbi, key, value));
    }
    REQUIRE_FALSE(txn->commit());
  }
  auto read_all = [&] {
    auto txn = ReadTxn::begin(*env, &error);
    REQUIRE(txn);
    auto cursor = Cursor::open(*txn, dbi, &error);
    REQUIRE(cursor);
    int n = 0;
    for (auto item = cursor->first(&error); item; item = cursor->next(&error)) {
      char key[16];
      std::snprintf(key, sizeof key, "%08d", n++);
      CHECK(item->key == key);
      CHECK(item->value == value);
    }
    CHECK(n == 8000);
  };
  read_all();  // every page through the map
  CHECK(resident_kb(path) > 4000);
  env->release_mapped_pages();
  CHECK(resident_kb(path) < 1000);
  read_all();  // the same records, mapped again from the file
}
