// Damaged, truncated, empty and foreign book files, through the real binary:
// every command ends with a clear error or a result, never a crash, and
// never writes; `graphbook check` names the damage. The damage is made here
// from LMDB's documented on-disk layout (64-bit: a page starts with its page
// number u64, a pad u16, flags u16, lower u16, upper u16; the meta record
// follows the header of pages 0 and 1: magic u32, version u32, address,
// map size, the free list's and the main database's MDB_db of 48 bytes each
// (pad u32 = page size for the free list, flags u16, depth u16, four counts,
// root), last page, transaction id), not from graphbook's own reader.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "book/store/lmdb.h"
#include "run_graphbook.h"
#include "temp_dir.h"
#include "test_data.h"

using gb::test::graphbook;
using gb::test::quote;
using gb::test::read_file;
using gb::test::Run;
using gb::test::TempDir;

namespace {

constexpr std::size_t kHeader = 16;

std::uint64_t le(const std::string& bytes, std::size_t at, int size) {
  std::uint64_t v = 0;
  for (int i = size - 1; i >= 0; --i) v = v << 8 | std::uint8_t(bytes[at + i]);
  return v;
}

void put_le(std::string& bytes, std::size_t at, std::uint64_t v, int size) {
  for (int i = 0; i < size; ++i, v >>= 8) bytes[at + i] = char(v & 0xff);
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The LMDB facts a damage needs, read from the file as the format lays it out.
struct Layout {
  std::size_t page_size = 0;
  std::size_t meta_offset = 0;  // of the meta page with the higher transaction id
  std::uint64_t last_page = 0;
  std::uint64_t main_root = 0;
  std::set<std::uint64_t> free_pages;  // in the free list: not part of the book's trees
};

// The page numbers of the free list's records under page (LMDB's FREE_DBI:
// a transaction id per key, a count and the pages as data).
void free_pages_below(const std::string& bytes, std::size_t page_size, std::uint64_t page,
                      std::set<std::uint64_t>& out) {
  const std::size_t at = page * page_size;
  const std::uint64_t flags = le(bytes, at + 10, 2), lower = le(bytes, at + 12, 2);
  for (std::size_t ptr = kHeader; ptr < lower; ptr += 2) {
    const std::size_t node = at + le(bytes, at + ptr, 2);
    const std::uint64_t lo = le(bytes, node, 2), hi = le(bytes, node + 2, 2),
                        node_flags = le(bytes, node + 4, 2);
    if (flags & 1) {  // a branch: the child's page number
      free_pages_below(bytes, page_size, lo | hi << 16 | node_flags << 32, out);
      continue;
    }
    std::size_t data = node + 8 + le(bytes, node + 6, 2);
    if (node_flags & 1) data = le(bytes, data, 8) * page_size + kHeader;  // on an overflow page
    const std::uint64_t count = le(bytes, data, 8);
    for (std::uint64_t i = 1; i <= count; ++i) out.insert(le(bytes, data + 8 * i, 8));
  }
}

Layout layout_of(const std::string& bytes) {
  Layout l;
  l.page_size = le(bytes, kHeader + 24, 4);  // the free list's pad
  REQUIRE((l.page_size == 4096 || l.page_size == 8192 || l.page_size == 16384 || l.page_size == 65536));
  const std::uint64_t txn0 = le(bytes, kHeader + 128, 8), txn1 = le(bytes, l.page_size + kHeader + 128, 8);
  l.meta_offset = txn1 > txn0 ? l.page_size : 0;
  l.last_page = le(bytes, l.meta_offset + kHeader + 120, 8);
  l.main_root = le(bytes, l.meta_offset + kHeader + 72 + 40, 8);
  REQUIRE((l.last_page + 1) * l.page_size <= bytes.size());
  REQUIRE(l.main_root >= 2);
  REQUIRE(l.main_root <= l.last_page);
  const std::uint64_t free_root = le(bytes, l.meta_offset + kHeader + 24 + 40, 8);
  if (free_root <= l.last_page) free_pages_below(bytes, l.page_size, free_root, l.free_pages);
  return l;
}

// A B-tree page of the file at or after page `from` (flags say branch or leaf)
// that is not the main database's root nor free (a page a commit replaced).
std::uint64_t tree_page_from(const std::string& bytes, const Layout& l, std::uint64_t from) {
  for (std::uint64_t p = from; p <= l.last_page; ++p) {
    const std::size_t at = p * l.page_size;
    const std::uint64_t flags = le(bytes, at + 10, 2);
    if (le(bytes, at, 8) == p && (flags & 3) && p != l.main_root && !l.free_pages.contains(p)) return p;
  }
  FAIL("no B-tree page from page " << from);
  return 0;
}

struct Outcome {
  std::string command;
  Run run;
};

// Runs the commands that open a book on path; each must end on its own.
std::vector<Outcome> run_commands(const std::string& path, const TempDir& dir, bool with_build) {
  const std::string pgn = dir.write("more.pgn", "[Event \"x\"]\n[Result \"1-0\"]\n\n1. d4 d5 2. c4 e6 1-0\n");
  std::vector<std::string> commands = {
      "info " + quote(path), "export " + quote(path) + " " + quote(dir.file("o.bin")),
      "tree " + quote(path) + " --depth 3 --no-names", "probe " + quote(path) + " --moves e4"};
  if (with_build) commands.push_back("build " + quote(path) + " " + quote(pgn) + " --quiet");
  std::vector<Outcome> out;
  for (const auto& c : commands) out.push_back({c, graphbook(c)});
  return out;
}

void require_no_crash(const Outcome& o) {
  INFO(o.command << "\nstderr: " << o.run.err);
  CHECK(o.run.status >= 0);  // -1: killed by a signal
  CHECK(o.run.status < 128);
}

std::string build_twic_book(const TempDir& dir) {
  const std::string book = dir.file("clean.book");
  Run r = graphbook("build " + quote(book) + " " + quote(gb::test::data_path("pgn/small/twic0920.pgn")) +
                    " --quiet");
  REQUIRE(r.status == 0);
  Run c = graphbook("check " + quote(book));
  INFO(c.out << c.err);
  REQUIRE(c.status == 0);  // the undamaged book is sound
  return book;
}

}  // namespace

TEST_CASE(
    "Every command refuses a book whose meta page, size or main database is damaged, and writes nothing",
    "[store]") {
  TempDir dir;
  const std::string clean = read_file(build_twic_book(dir));
  const Layout l = layout_of(clean);

  struct Damage {
    const char* what;
    std::string bytes;
  };
  std::vector<Damage> damages;
  {
    std::string b = clean;  // the current meta page names pages past the end of the file
    put_le(b, l.meta_offset + kHeader + 120, l.last_page + 1000, 8);
    damages.push_back({"last page past the end", b});
  }
  {
    std::string b = clean;  // the main database's root page says it is another page
    put_le(b, l.main_root * l.page_size, 0x0123456789abcdefull, 8);
    damages.push_back({"main root page number", b});
  }
  {
    std::string b = clean;  // the main database's root page: node offsets overwritten
    std::memset(b.data() + l.main_root * l.page_size + kHeader, 0xff, 16);
    damages.push_back({"main root node offsets", b});
  }
  {
    std::string b = clean;  // the current meta page names a main root past the last page
    put_le(b, l.meta_offset + kHeader + 72 + 40, l.last_page + 7, 8);
    damages.push_back({"main root past the last page", b});
  }
  damages.push_back({"truncated to half", clean.substr(0, clean.size() / 2)});
  damages.push_back({"truncated inside page 1", clean.substr(0, l.page_size + 100)});
  {
    std::string b = clean;  // page size 3 in meta page 0: not a power of two
    put_le(b, kHeader + 24, 3, 4);
    damages.push_back({"page size", b});
  }

  for (const Damage& d : damages) {
    INFO("damage: " << d.what);
    const std::string path = dir.file("damaged.book");
    std::filesystem::remove(path + "-lock");
    write_bytes(path, d.bytes);
    for (const Outcome& o : run_commands(path, dir, true)) {
      INFO(o.command << "\nstderr: " << o.run.err);
      require_no_crash(o);
      CHECK(o.run.status == 3);  // README, "Exit status": a damaged book
      CHECK(o.run.err.find(path) != std::string::npos);
      CHECK(o.run.err.find("damaged book") != std::string::npos);
    }
    CHECK(read_file(path) == d.bytes);                     // nothing written
    CHECK_FALSE(std::filesystem::exists(path + "-lock"));  // refused before LMDB opened it
    Run check = graphbook("check " + quote(path) + " --json");
    CHECK(check.status == 3);
    CHECK(check.out.find("\"sound\": false") != std::string::npos);
  }
}

namespace {

// The lines of check's findings ("damaged: ..."), without its summary.
std::string findings(const std::string& check_err) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t end; (end = check_err.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string line = check_err.substr(at, end - at);
    if (line.find(": damaged: ") != std::string::npos) out += line + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE(
    "Damage deep in the positions database is named by check, readers end cleanly and build writes nothing",
    "[store]") {
  TempDir dir;
  const std::string clean = read_file(build_twic_book(dir));
  const Layout l = layout_of(clean);
  REQUIRE(l.last_page > 100);  // a book of many pages: the damage below is not in its root

  for (std::uint64_t quarter = 1; quarter <= 3; ++quarter) {
    const std::uint64_t page = tree_page_from(clean, l, l.last_page * quarter / 4);
    for (int kind = 0; kind < 3; ++kind) {
      std::string b = clean;
      const std::size_t at = page * l.page_size;
      if (kind == 0) std::memset(b.data() + at + kHeader, 0xff, 32);           // node offsets
      if (kind == 1) put_le(b, at + 12, 2, 2);                                 // lower below the header
      if (kind == 2) std::memset(b.data() + at + l.page_size - 64, 0xee, 64);  // the last node's bytes
      INFO("page " << page << ", damage kind " << kind);
      const std::string path = dir.file("deep.book");
      write_bytes(path, b);
      Run check = graphbook("check " + quote(path));
      INFO("check: " << check.out << check.err);
      require_no_crash({"check", check});
      if (kind < 2) {  // the page's own structure: always found
        CHECK(check.status == 3);
        CHECK(check.err.find("page " + std::to_string(page)) != std::string::npos);
      }
      if (check.status == 0) continue;  // bytes a record did not use
      for (const Outcome& o : run_commands(path, dir, true)) {
        INFO(o.command << "\nstderr: " << o.run.err);
        require_no_crash(o);
        if (o.run.status != 0) {
          CHECK(o.run.status == 3);
          CHECK(o.run.err.find("damaged") != std::string::npos);
        }
        if (o.command.rfind("build", 0) == 0 && (kind < 2 || o.run.status != 0)) {
          CHECK(o.run.status == 3);
          CHECK(o.run.err.find(path + ": damaged book") != std::string::npos);
          CHECK(read_file(path) == b);  // nothing written
        } else if (o.command.rfind("build", 0) == 0) {
          // Damage inside a record's bytes (a group of sections holds a page's
          // worth of positions) that the build did not read: it added its
          // games around it, and the damage is as it was, no more.
          Run after = graphbook("check " + quote(path));
          CHECK(after.status == 3);
          CHECK_FALSE(findings(check.err).empty());
          CHECK(findings(after.err) == findings(check.err));
        }
      }
    }
  }
}

TEST_CASE("An empty file and a file that is not a book get a clear error and nothing is left beside them",
          "[store]") {
  TempDir dir;
  const std::string empty = dir.write("empty.book", "");
  for (const Outcome& o : run_commands(empty, dir, false)) {
    INFO(o.command << "\nstderr: " << o.run.err);
    require_no_crash(o);
    CHECK(o.run.status == 2);  // README, "Exit status": not a book
    CHECK(o.run.err.find(empty + ": not a graphbook book (an empty file, 0 bytes)") != std::string::npos);
    CHECK(o.run.err.find("Bad file descriptor") == std::string::npos);
  }
  CHECK(read_file(empty).empty());
  CHECK_FALSE(std::filesystem::exists(empty + "-lock"));

  const std::string text = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n";
  const std::string pgn = dir.write("notabook.pgn", text);
  for (const Outcome& o : run_commands(pgn, dir, false)) {
    INFO(o.command << "\nstderr: " << o.run.err);
    require_no_crash(o);
    CHECK(o.run.status == 2);
    CHECK(o.run.err.find(pgn + ": not a graphbook book (not an LMDB file") != std::string::npos);
  }
  CHECK(read_file(pgn) == text);
  CHECK_FALSE(std::filesystem::exists(pgn + "-lock"));
  Run check = graphbook("check " + quote(pgn));
  CHECK(check.status == 2);
  CHECK(check.err.find("not a book") != std::string::npos);
}

TEST_CASE("An LMDB file that is not a book keeps no lock file beside it after a refused open", "[store]") {
  TempDir dir;
  // A sound LMDB file without graphbook's format record: a one-game book
  // whose "format" value is overwritten in place (same length, so the leaf
  // node that holds it stays well-formed).
  const std::string path = dir.file("other.mdb");
  {
    Run r = graphbook("build " + quote(path) + " " +
                      quote(dir.write("g.pgn", "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n")) +
                      " --quiet");
    REQUIRE(r.status == 0);
  }
  std::string bytes = read_file(path);
  // A leaf node's key, then its value; in the current page and in pages
  // that earlier transactions left free.
  int replaced = 0;
  for (std::size_t at = 0; (at = bytes.find("formatgraphbook", at)) != std::string::npos; ++replaced)
    std::memcpy(bytes.data() + at + 6, "otherprog", 9);
  REQUIRE(replaced > 0);
  std::filesystem::remove(path + "-lock");
  write_bytes(path, bytes);
  Run info = graphbook("info " + quote(path));
  CHECK(info.status == 2);
  CHECK(info.err.find(path + ": not a graphbook book (no graphbook meta record)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(path + "-lock"));
}

TEST_CASE("check names a block of the games database that is not one, and blocks out of order", "[store]") {
  TempDir dir;
  const std::string book = build_twic_book(dir);
  // The second block's value cut to 15 bytes, then (another copy) the first
  // block's last fingerprint raised above the second block's key.
  for (int kind = 0; kind < 2; ++kind) {
    const std::string path = dir.file("games" + std::to_string(kind) + ".book");
    std::filesystem::copy_file(book, path, std::filesystem::copy_options::overwrite_existing);
    {
      gb::store::Error e;
      auto env = gb::store::Env::open(path, false, std::size_t(1) << 26, 16, &e);
      REQUIRE(env);
      auto txn = gb::store::WriteTxn::begin(*env, &e);
      REQUIRE(txn);
      auto games = txn->open_db("games", 0, &e);
      REQUIRE(games);
      std::string first_key, first_value, second_key;
      {
        // Closed before the commit: LMDB frees a write transaction's cursors
        // when it ends.
        auto cursor = gb::store::Cursor::open(*txn, *games, &e);
        REQUIRE(cursor);
        auto first = cursor->first(&e);
        REQUIRE(first);
        first_key = first->key;
        first_value = first->value;
        auto second = cursor->next(&e);
        REQUIRE(second);  // twic0920's 2,245 fingerprints: 36 blocks
        second_key = second->key;
      }
      REQUIRE(first_value.size() >= 16);
      if (kind == 0) {
        REQUIRE_FALSE(txn->put(*games, second_key, std::string(15, '\x7f')));
      } else {
        std::string raised = first_value;
        raised.replace(raised.size() - 16, 16, std::string(16, '\xff'));
        REQUIRE_FALSE(txn->put(*games, first_key, raised));
      }
      REQUIRE_FALSE(txn->commit());
    }
    Run check = graphbook("check " + quote(path));
    INFO(check.out << check.err);
    CHECK(check.status == 3);
    CHECK(check.err.find("games") != std::string::npos);
    CHECK(check.err.find(kind == 0 ? "not a block" : "not above the fingerprints of the block before") !=
          std::string::npos);
  }
}
