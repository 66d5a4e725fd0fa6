// `graphbook import` checks that its input is a Polyglot book before it writes
// anything (entries in key order, moves that decode, entries reached from the
// start position), and that the book it writes into is a book: a refused
// import leaves the book byte for byte as it was, or absent.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "process.h"
#include "test_data.h"

using gb::test::graphbook;
using gb::test::Output;
using gb::test::read_file;
using gb::test::TempDir;

namespace {

// Keys from the Polyglot book format's published test vectors
// (http://hgm.nubati.net/book_format.html): the start position, after 1.e4,
// after 1.e4 d5.
constexpr std::uint64_t kStartKey = 0x463b96181691fc9cULL;
constexpr std::uint64_t kAfterE4Key = 0x823c9b50fd114196ULL;
constexpr std::uint64_t kAfterE4D5Key = 0x0756b94461c50fb0ULL;

// Polyglot moves: to in bits 0-5, from in bits 6-11 (a1 = 0 ... h8 = 63),
// promotion piece in bits 12-14.
constexpr std::uint16_t move(int from, int to, int promotion = 0) {
  return std::uint16_t(to | from << 6 | promotion << 12);
}
constexpr int e2 = 12, e4 = 28, d7 = 51, d5 = 35;

struct Entry {
  std::uint64_t key;
  std::uint16_t move;
  std::uint16_t weight = 1;
};

// The entries as a .bin (16 bytes each, big-endian), in the order given.
std::string bin_bytes(const std::vector<Entry>& entries) {
  std::string out;
  auto put = [&](std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(char((v >> (8 * i)) & 0xff));
  };
  for (const Entry& e : entries) {
    put(e.key, 8);
    put(e.move, 2);
    put(e.weight, 2);
    put(0, 4);
  }
  return out;
}

// A real three-entry book: 1.e4 d5 2.exd5 (each position's only move).
std::vector<Entry> scandinavian() {
  return {{kAfterE4D5Key, move(e4, d5)}, {kStartKey, move(e2, e4)}, {kAfterE4Key, move(d7, d5)}};
}

bool exists(const std::string& path) { return std::filesystem::exists(path); }

// Runs the import and requires that it failed with a message naming what.
Output refused(const std::string& book, const std::string& in) {
  Output o = graphbook({"import", book, in});
  INFO(o.out);
  INFO(o.err);
  CHECK(o.status == 2);  // README, "Exit status": an input that is not what it should be
  CHECK(o.out.find("entries:") == std::string::npos);
  return o;
}

// A small book built from two games written here.
std::string small_book(const TempDir& dir, const std::string& name) {
  std::string pgn = dir.write(name + ".pgn",
                              "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n"
                              "[White \"C\"]\n[Black \"D\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n");
  std::string book = dir.file(name + ".book");
  Output o = graphbook({"build", book, pgn, "--quiet"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  return book;
}

}  // namespace

TEST_CASE("import refuses a PGN file given as a .bin and creates no book", "[builder][import]") {
  TempDir dir;
  // PGN text padded to a multiple of 16 bytes, as a file that passes the size test.
  std::string text =
      "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n";
  while (text.size() % 16) text += '\n';
  REQUIRE(text.size() >= 64);
  std::string in = dir.write("games.bin", text), book = dir.file("new.book");
  Output o = refused(book, in);
  CHECK(o.err.find(in) != std::string::npos);
  CHECK(o.err.find("not a Polyglot book") != std::string::npos);
  CHECK_FALSE(exists(book));
}

TEST_CASE("import refuses a graphbook book given as a .bin and leaves the target book as it was",
          "[builder][import]") {
  TempDir dir;
  std::string as_input = small_book(dir, "input"), book = small_book(dir, "target");
  REQUIRE(std::filesystem::file_size(as_input) % 16 == 0);  // an LMDB file is whole pages
  const std::string before = read_file(book);
  REQUIRE_FALSE(before.empty());
  Output o = refused(book, as_input);
  CHECK(o.err.find(as_input) != std::string::npos);
  CHECK(o.err.find("not a Polyglot book") != std::string::npos);
  CHECK(read_file(book) == before);
}

TEST_CASE("import refuses entries that are not in key order", "[builder][import]") {
  TempDir dir;
  auto entries = scandinavian();
  std::swap(entries[0], entries[2]);  // the largest key first
  REQUIRE(entries[0].key > entries[1].key);
  std::string in = dir.write("unsorted.bin", bin_bytes(entries)), book = dir.file("b.book");
  Output o = refused(book, in);
  CHECK(o.err.find(in) != std::string::npos);
  CHECK(o.err.find("key order") != std::string::npos);
  CHECK(o.err.find("entry 2") != std::string::npos);  // the first one out of order, counted from 1
  CHECK_FALSE(exists(book));
}

TEST_CASE("import refuses moves that do not decode: from equal to to, a promotion piece past queen",
          "[builder][import]") {
  TempDir dir;
  for (std::uint16_t bad :
       {move(e2, e2), move(d7, 59, 5), move(d7, 59, 7), std::uint16_t(0x8000 | move(e2, e4))}) {
    INFO(bad);
    auto entries = scandinavian();
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
    entries[1].move = bad;
    std::string in = dir.write("bad-move.bin", bin_bytes(entries)), book = dir.file("b.book");
    Output o = refused(book, in);
    CHECK(o.err.find(in) != std::string::npos);
    CHECK(o.err.find("entry 2") != std::string::npos);
    CHECK(o.err.find("move") != std::string::npos);
    CHECK_FALSE(exists(book));
  }
}

TEST_CASE("import refuses sorted entries with valid moves that no walk from the start position reaches",
          "[builder][import]") {
  TempDir dir;
  std::vector<Entry> entries;
  std::uint64_t key = 0x0123456789abcdefULL;
  for (int i = 0; i < 200; ++i) {
    key = key * 6364136223846793005ULL + 1442695040888963407ULL;  // any keys but the start's
    entries.push_back({key, move(e2, e4)});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  std::string in = dir.write("random.bin", bin_bytes(entries)), book = small_book(dir, "target");
  const std::string before = read_file(book);
  Output o = refused(book, in);
  CHECK(o.err.find(in) != std::string::npos);
  CHECK(o.err.find("start position") != std::string::npos);
  CHECK(read_file(book) == before);
}

TEST_CASE("import accepts a small real book, every entry reached from the start", "[builder][import]") {
  TempDir dir;
  auto entries = scandinavian();
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  std::string in = dir.write("scandinavian.bin", bin_bytes(entries)), book = dir.file("b.book");
  Output o = graphbook({"import", book, in});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("3 entries: 3 on 3 positions reached from the start, 0 kept by key only") !=
        std::string::npos);
}

TEST_CASE("import accepts the real books of the test data: python-chess's performance.bin and lasker trap",
          "[builder][import]") {
  // performance.bin: a real 92,954-entry book (the data's README); the lasker
  // trap book is make-book's -only-black output, which holds no entry for the
  // start position (White to move).
  for (const char* name :
       {"polyglot/python-chess-performance.bin", "polyglot/python-chess-lasker-trap.bin"}) {
    INFO(name);
    TempDir dir;
    std::string book = dir.file("b.book");
    Output o = graphbook({"import", book, gb::test::data_path(name)});
    INFO(o.err);
    CHECK(o.status == 0);
    CHECK(o.out.find("reached from the start") != std::string::npos);
  }
}

TEST_CASE("import into a path that is not a book refuses and leaves it as it was", "[builder][import]") {
  TempDir dir;
  auto entries = scandinavian();
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  std::string in = dir.write("scandinavian.bin", bin_bytes(entries));

  SECTION("a PGN file") {
    std::string pgn = dir.write("games.pgn", "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n");
    const std::string before = read_file(pgn);
    Output o = refused(pgn, in);
    CHECK(o.err.find(pgn) != std::string::npos);
    CHECK(o.err.find("not a graphbook book") != std::string::npos);
    CHECK(read_file(pgn) == before);
    CHECK_FALSE(exists(pgn + "-lock"));  // nor a lock file beside it
  }
  SECTION("a directory") {
    std::string folder = dir.file("folder");
    std::filesystem::create_directory(folder);
    Output o = refused(folder, in);
    CHECK(o.err.find(folder) != std::string::npos);
    CHECK(o.err.find("directory") != std::string::npos);
    CHECK(std::filesystem::is_empty(folder));
  }
}
