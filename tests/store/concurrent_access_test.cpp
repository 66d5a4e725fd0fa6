// Several processes at one book: two builds at once (one waits for the
// other's write transaction, or fails clearly, and the book counts exactly
// what the builds that succeeded added), a reader that holds a book open
// while a build commits into it or renames a new file over it, and a build
// into a book renamed over while a program held the old one open.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "book/chess/position.h"
#include "book/store/book.h"
#include "book/store/section_groups.h"
#include "run_graphbook.h"
#include "temp_dir.h"
#include "test_data.h"

using gb::test::graphbook;
using gb::test::quote;
using gb::test::read_file;
using gb::test::Run;
using gb::test::TempDir;

namespace {

// The games of twic0920 cut in two at a game boundary (both halves hold
// about a thousand games: enough for a build of each to take a while).
std::pair<std::string, std::string> twic_halves(const TempDir& dir) {
  const std::string all = read_file(gb::test::data_path("pgn/small/twic0920.pgn"));
  REQUIRE(all.size() > 100000);
  const std::size_t cut = all.find("\n[Event ", all.size() / 2);
  REQUIRE(cut != std::string::npos);
  return {dir.write("a.pgn", all.substr(0, cut + 1)), dir.write("b.pgn", all.substr(cut + 1))};
}

// What a book holds, as info and export tell it (export: every edge's counts).
struct Contents {
  nlohmann::json info;
  std::string polyglot;
};

Contents contents(const std::string& book, const TempDir& dir) {
  Run info = graphbook("info " + quote(book) + " --json");
  REQUIRE(info.status == 0);
  Contents c;
  c.info = nlohmann::json::parse(info.out);
  const std::string bin = dir.file("contents.bin");
  REQUIRE(graphbook("export " + quote(book) + " " + quote(bin)).status == 0);
  c.polyglot = read_file(bin);
  REQUIRE_FALSE(c.polyglot.empty());
  return c;
}

void require_same(const Contents& got, const Contents& want) {
  for (const char* key : {"games", "nodes", "edges", "duplicates_skipped", "games_at_start_position"}) {
    INFO(key);
    CHECK(got.info.at(key) == want.info.at(key));
  }
  CHECK(got.polyglot == want.polyglot);
}

// Builds inputs into a new book one after the other: what the book should hold.
Contents built_alone(const std::vector<std::string>& inputs, const TempDir& dir, const std::string& name) {
  const std::string book = dir.file(name);
  for (const auto& input : inputs)
    REQUIRE(graphbook("build " + quote(book) + " " + quote(input) + " --quiet").status == 0);
  return contents(book, dir);
}

// Runs two builds into book at once; their outcomes.
std::pair<Run, Run> build_at_once(const std::string& book, const std::string& a, const std::string& b) {
  Run ra, rb;
  std::thread first(
      [&] { ra = graphbook("build " + quote(book) + " " + quote(a) + " --quiet --threads 1"); });
  std::thread second(
      [&] { rb = graphbook("build " + quote(book) + " " + quote(b) + " --quiet --threads 1"); });
  first.join();
  second.join();
  return {ra, rb};
}

void require_clear_outcome(const Run& r, const std::string& book) {
  INFO("stderr: " << r.err);
  REQUIRE(r.status >= 0);  // not killed by a signal
  CHECK(r.status < 128);
  if (r.status != 0) CHECK(r.err.find(book) != std::string::npos);
}

const char* kBase = "[Event \"base\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n";

}  // namespace

TEST_CASE("Two builds into one book at once: one waits or fails clearly, and the counts are exact",
          "[store]") {
  TempDir dir;
  auto [a, b] = twic_halves(dir);
  const std::string base = dir.write("base.pgn", kBase);

  for (bool fresh : {true, false}) {
    INFO((fresh ? "into a new book" : "into a book that holds games"));
    const std::string book = dir.file(fresh ? "fresh.book" : "merged.book");
    std::vector<std::string> before;
    if (!fresh) {
      REQUIRE(graphbook("build " + quote(book) + " " + quote(base) + " --quiet").status == 0);
      before.push_back(base);
    }
    auto [ra, rb] = build_at_once(book, a, b);
    require_clear_outcome(ra, book);
    require_clear_outcome(rb, book);
    REQUIRE((ra.status == 0 || rb.status == 0));  // at least one build got the book
    std::vector<std::string> succeeded = before;
    if (ra.status == 0) succeeded.push_back(a);
    if (rb.status == 0) succeeded.push_back(b);
    CHECK(graphbook("check " + quote(book)).status == 0);
    const Contents got = contents(book, dir);
    // The builds built alone go in the order they committed (the book's
    // sources, in sequence): a build ranks the moves new to a position after
    // those already there, and export orders equal weights by that rank.
    std::vector<std::string> committed;
    for (const auto& source : got.info.at("sources")) committed.push_back(source.at("name"));
    REQUIRE(committed.size() == succeeded.size());
    CHECK(std::is_permutation(committed.begin(), committed.end(), succeeded.begin()));
    require_same(got, built_alone(committed, dir, std::string(fresh ? "f" : "m") + "-alone.book"));
  }
}

// A book at `book` that a program (this process) holds open, and a book of
// `games` renamed over it: the lock file beside it stays the held file's, and
// a process that opens the book has the new file with the old file's
// transaction id (what a build's rename leaves for an instant, and a `mv` of
// another book over this one for as long as the program runs). The held book
// takes builds of one game until its last commit is two past the other's:
// with equal ids the old lock file's id is the new file's too, and a write is
// right; with ids one apart a reader cannot tell it from a commit under way.
gb::store::Book hold_then_rename_over(const std::string& book, const std::string& games, const TempDir& dir) {
  const std::string other = dir.file("other.book");
  REQUIRE(graphbook("build " + quote(other) + " " + quote(games) + " --quiet").status == 0);
  auto last_commit = [](const std::string& path) {
    gb::store::BookError be;
    auto b = gb::store::Book::open(path, gb::store::OpenMode::ReadOnly, &be);
    REQUIRE(b);
    MDB_envinfo info;
    REQUIRE(mdb_env_info(b->env().get(), &info) == 0);
    return info.me_last_txnid;
  };
  const std::size_t other_last = last_commit(other);
  const char* first_moves[] = {"a3", "a4", "b3", "b4", "c3", "c4", "d3", "d4", "e3", "e4", "f3", "f4"};
  for (const char* move : first_moves) {
    const std::string pgn = dir.write("one.pgn", std::string("[Result \"*\"]\n\n1. ") + move + " *\n");
    REQUIRE(graphbook("build " + quote(book) + " " + quote(pgn) + " --quiet").status == 0);
    if (last_commit(book) >= other_last + 2) break;
  }
  REQUIRE(last_commit(book) >= other_last + 2);
  gb::store::BookError be;
  auto held = gb::store::Book::open(book, gb::store::OpenMode::ReadOnly, &be);
  REQUIRE(held);
  std::filesystem::rename(other, book);  // the lock file stays the held book's
  REQUIRE(std::filesystem::exists(book + "-lock"));
  return std::move(*held);
}

TEST_CASE(
    "A book renamed over while a program holds the old one open: a build into it fails clearly and "
    "writes nothing, then succeeds once the program closes it",
    "[store]") {
  TempDir dir;
  auto [a, b] = twic_halves(dir);
  const Contents want = built_alone({a}, dir, "a.book");
  const Contents want_both = built_alone({a, b}, dir, "both.book");
  const std::string book = dir.file("held.book");
  {
    gb::store::Book held = hold_then_rename_over(book, a, dir);
    Run r = graphbook("build " + quote(book) + " " + quote(b) + " --quiet");
    INFO("stderr: " << r.err);
    CHECK(r.status != 0);
    CHECK(r.status < 128);
    CHECK(r.err.find(book) != std::string::npos);
    CHECK(r.err.find("lock file") != std::string::npos);
    // A reader would read an older state of the new file: it fails too.
    Run info = graphbook("info " + quote(book) + " --json");
    INFO("info stderr: " << info.err);
    CHECK(info.status != 0);
    CHECK(info.status < 128);
    CHECK(info.err.find("lock file") != std::string::npos);
    // The program closes the book.
  }
  require_same(contents(book, dir), want);  // nothing was written, nothing lost
  REQUIRE(graphbook("build " + quote(book) + " " + quote(b) + " --quiet").status == 0);
  require_same(contents(book, dir), want_both);
}

TEST_CASE(
    "A build that opens a book while the lock file of the file renamed over it is still held waits "
    "for it to go",
    "[store]") {
  // What a build's own rename leaves for an instant, until it removes the
  // old lock file: here a program holds it for a moment, then closes it.
  TempDir dir;
  auto [a, b] = twic_halves(dir);
  const Contents want_both = built_alone({a, b}, dir, "both.book");
  const std::string book = dir.file("held.book");
  std::optional<gb::store::Book> held = hold_then_rename_over(book, a, dir);
  Run r;
  std::thread build([&] { r = graphbook("build " + quote(book) + " " + quote(b) + " --quiet"); });
  // The build finds the old lock file (it starts in some 20 ms), and waits
  // for up to a second of tries: the program closes the book well before.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  held.reset();
  build.join();
  INFO("stderr: " << r.err);
  REQUIRE(r.status == 0);
  require_same(contents(book, dir), want_both);
}

TEST_CASE("A reader holding a book open across a commit sees the old or the new state, then the new",
          "[store]") {
  TempDir dir;
  const std::string book = dir.file("held.book");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(dir.write("one.pgn", kBase)) + " --quiet").status ==
          0);
  gb::store::BookError be;
  auto reader = gb::store::Book::open(book, gb::store::OpenMode::ReadOnly, &be);
  REQUIRE(reader);
  const gb::Key root = gb::Position().key();
  REQUIRE(reader->node(root));
  CHECK(reader->node(root)->counters.games == 1);

  gb::store::Error e;
  auto snapshot = gb::store::ReadTxn::begin(reader->env(), &e);  // held across the commit
  REQUIRE(snapshot);
  const std::string more =
      "[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n\n[Event \"c\"]\n[Result \"1/2-1/2\"]\n\n1. c4 e5 "
      "1/2-1/2\n";
  REQUIRE(graphbook("build " + quote(book) + " " + quote(dir.write("more.pgn", more)) + " --quiet").status ==
          0);

  // The snapshot still reads the state before the commit.
  auto old_section = gb::store::find_section(*snapshot, reader->dbs().positions, root, &e);
  REQUIRE(old_section);
  auto old_node = gb::store::SectionReader(*old_section).node();
  REQUIRE(old_node);
  CHECK(old_node->counters.games == 1);
  snapshot.reset();
  // A new read of the same open book, and a book opened again, see the new one.
  REQUIRE(reader->node(root));
  CHECK(reader->node(root)->counters.games == 3);
  auto again = gb::store::Book::open(book, gb::store::OpenMode::ReadOnly, &be);
  REQUIRE(again);
  CHECK(again->node(root)->counters.games == 3);
}

TEST_CASE(
    "A reader holding a new book open across the build's rename keeps the old file, then reopens the new",
    "[store]") {
  TempDir dir;
  const std::string book = dir.file("renamed.book");
  {
    gb::store::BookError be;
    REQUIRE(gb::store::Book::open(book, gb::store::OpenMode::Create, &be));  // a book that holds only meta
  }
  gb::store::BookError be;
  auto reader = gb::store::Book::open(book, gb::store::OpenMode::ReadOnly, &be);
  REQUIRE(reader);
  const gb::Key root = gb::Position().key();
  CHECK_FALSE(reader->node(root));
  REQUIRE(reader->still_at_path());

  Run build = graphbook("build " + quote(book) + " " + quote(dir.write("one.pgn", kBase)) + " --quiet");
  INFO(build.err);
  REQUIRE(build.status == 0);

  // The build wrote a new file and renamed it over the book: the reader
  // still has the old file open, whole and empty.
  CHECK_FALSE(reader->still_at_path());
  gb::store::Error e;
  CHECK_FALSE(reader->node(root, &e));
  CHECK(e.code == 0);
  CHECK(reader->stats().games == 0);
  auto again = gb::store::Book::open(book, gb::store::OpenMode::ReadOnly, &be);
  REQUIRE(again);
  REQUIRE(again->node(root));
  CHECK(again->node(root)->counters.games == 1);
}
