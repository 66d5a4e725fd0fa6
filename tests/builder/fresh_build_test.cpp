// A build into a book that holds nothing yet writes a new file beside it in
// transactions of bounded size and renames it over the book; the book it
// gives is the one the single-transaction commit gives.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "book/store/book.h"
#include "book_dump.h"
#include "builder/build.h"
#include "process.h"
#include "test_data.h"

using namespace gb;
using gb::test::graphbook;
using gb::test::info_json;
using gb::test::open_book;
using gb::test::Output;
using gb::test::TempDir;

namespace {

ino_t inode(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// Creates an empty book, or one holding a learning record (not fresh: its
// build commits in one transaction into the file itself).
void make_book(const std::string& path, bool with_learning) {
  store::BookError e;
  auto book = store::Book::open(path, store::OpenMode::Create, &e);
  INFO(e.message);
  REQUIRE(book);
  if (with_learning) REQUIRE_FALSE(book->update_learning(Key(1), Move(), store::LearnRecord{}));
}

}  // namespace

TEST_CASE("A build into a new book renames a new file over it and leaves no other file", "[builder]") {
  TempDir dir;
  std::string path = dir.file("new.book");
  make_book(path, false);
  ino_t before = inode(path);
  Output o = graphbook({"build", path, gb::test::data_path("pgn/small/twic0920.pgn"), "--max-ply", "20"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(inode(path) != before);
  CHECK(files_in(dir.path) == std::vector<std::string>{"new.book"});  // not even the lock file
  auto info = info_json(path);
  CHECK(info["games"] == 2245);  // README: 2,245 games; the 11 without moves count at the start
  CHECK(info["games_at_start_position"] == 2245);
}

TEST_CASE("A build into a new book gives the book a build into a book with records gives", "[builder]") {
  TempDir dir;
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  std::string renamed = dir.file("renamed.book"), in_place = dir.file("in-place.book");
  make_book(in_place, true);
  ino_t in_place_inode = inode(in_place);
  REQUIRE(graphbook({"build", renamed, twic, "--max-ply", "30"}).status == 0);
  REQUIRE(graphbook({"build", in_place, twic, "--max-ply", "30"}).status == 0);
  CHECK(inode(in_place) == in_place_inode);  // the learning record keeps it in place
  auto a = open_book(renamed);
  auto b = open_book(in_place);
  CHECK(gb::test::sections(a, a.dbs().positions) == gb::test::sections(b, b.dbs().positions));
  CHECK(gb::test::fingerprints(a) == gb::test::fingerprints(b));
  CHECK(gb::test::fingerprints(a).size() == 2245);  // one a game: the README's 2,245
  CHECK(a.stats().games == 2245);
  CHECK(b.stats().games == 2245);
  CHECK(a.stats().builds == 1);
  CHECK(a.build_params() == b.build_params());
  REQUIRE(a.sources().size() == 1);
  CHECK(a.sources()[0].games_added == 2245);
  CHECK(b.learning(Key(1), Move()));
}

TEST_CASE("Two files built into a new book count as one file built into it and the other added",
          "[builder]") {
  TempDir dir;
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string carlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");
  REQUIRE(
      graphbook({"build", dir.file("both.book"), twic, carlsen, "--max-ply", "16", "--no-dedup"}).status ==
      0);
  REQUIRE(graphbook({"build", dir.file("inc.book"), twic, "--max-ply", "16", "--no-dedup"}).status == 0);
  REQUIRE(graphbook({"build", dir.file("inc.book"), carlsen, "--max-ply", "16", "--no-dedup"}).status == 0);
  auto both = info_json(dir.file("both.book"));
  auto inc = info_json(dir.file("inc.book"));
  // README: 2,245 + 1,860 games (two of them in both files: --no-dedup counts them twice).
  CHECK(both["games"] == 2245 + 1860);
  CHECK(both["games_at_start_position"] == 2245 + 1860);
  CHECK(inc["games_at_start_position"] == both["games_at_start_position"]);
  CHECK(inc["nodes"] == both["nodes"]);
  CHECK(inc["edges"] == both["edges"]);
  CHECK(inc["games"] == both["games"]);
}

TEST_CASE("A build into a new book in a tiny map grows the map between its transactions", "[builder]") {
  TempDir dir;
  builder::BuildOptions o;
  o.initial_map_size = 256 * 1024;  // the twic book at full depth is ~10 MB: several growths mid-stream
  o.threads = 2;
  o.max_ply = 0;
  std::ostringstream errors;
  builder::BuildError error;
  std::string path = dir.file("tiny.book");
  auto report = builder::run_build(path, {gb::test::data_path("pgn/small/twic0920.pgn")}, o, errors, &error);
  INFO(error.message);
  REQUIRE(report);
  CHECK(report->commit.renamed);
  REQUIRE(graphbook({"build", dir.file("big.book"), gb::test::data_path("pgn/small/twic0920.pgn"),
                     "--max-ply", "0"})
              .status == 0);
  auto tiny = open_book(path);
  auto big = open_book(dir.file("big.book"));
  CHECK(tiny.stats().games == 2245);
  CHECK(gb::test::sections(tiny, tiny.dbs().positions) == gb::test::sections(big, big.dbs().positions));
}

TEST_CASE("A build removes the new files that killed builds of its book left, and no others", "[builder]") {
  TempDir dir;
  std::string path = dir.file("b.book");
  // A pid that is gone: a child that has exited and been reaped.
  pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  gb::test::wait_status(gone);
  std::string stale = path + ".building-" + std::to_string(gone);
  std::string live = path + ".building-" + std::to_string(::getpid());
  std::string other = dir.file("other.book.building-") + std::to_string(gone);
  for (const std::string& f : {stale, stale + "-lock", live, other})
    dir.write(f.substr(dir.path.size() + 1), "x");
  REQUIRE(
      graphbook({"build", path, gb::test::data_path("pgn/small/twic0920.pgn"), "--max-ply", "4"}).status ==
      0);
  auto names = files_in(dir.path);
  CHECK(std::count(names.begin(), names.end(), "b.book.building-" + std::to_string(gone)) == 0);
  CHECK(std::count(names.begin(), names.end(), "b.book.building-" + std::to_string(gone) + "-lock") == 0);
  CHECK(std::count(names.begin(), names.end(), "b.book.building-" + std::to_string(::getpid())) == 1);
  CHECK(std::count(names.begin(), names.end(), "other.book.building-" + std::to_string(gone)) == 1);
  CHECK(open_book(path).stats().games == 2245);
}
