// `graphbook export` against Debian's `polyglot make-book` (run here, on the
// same games: polyglot_reference.h), and `graphbook import` round trips.
#include "book/store/polyglot.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "book/store/book.h"
#include "book/store/position_hash.h"
#include "book_dump.h"
#include "polyglot_reference.h"
#include "process.h"
#include "test_data.h"

using namespace gb;
using gb::test::graphbook;
using gb::test::info_json;
using gb::test::open_book;
using gb::test::Output;
using gb::test::TempDir;

namespace {

const char* kPolyglot = "/usr/games/polyglot";

std::vector<store::PolyglotEntry> load(const std::string& path) {
  store::PolyglotFileError error;
  auto v = store::read_polyglot_file(path, &error);
  INFO(error.message());
  REQUIRE(v);
  return *v;
}

// Builds pgn with build_args, exports with export_args, returns the entries.
std::vector<store::PolyglotEntry> build_and_export(const TempDir& dir, const std::string& pgn,
                                                   std::vector<std::string> build_args,
                                                   std::vector<std::string> export_args) {
  std::string book = dir.file("b" + std::to_string(std::rand()) + ".book"), bin = book + ".bin";
  std::vector<std::string> b = {"build", book, pgn, "--no-dedup", "--quiet"};
  b.insert(b.end(), build_args.begin(), build_args.end());
  Output o = graphbook(b);
  INFO(o.err);
  REQUIRE(o.status == 0);
  std::vector<std::string> e = {"export", book, bin};
  e.insert(e.end(), export_args.begin(), export_args.end());
  o = graphbook(e);
  INFO(o.err);
  REQUIRE(o.status == 0);
  return load(bin);
}

std::vector<store::PolyglotEntry> make_book(const TempDir& dir, const std::string& pgn,
                                            std::vector<std::string> args) {
  std::string bin = dir.file("mb" + std::to_string(std::rand()) + ".bin");
  std::vector<std::string> a = {kPolyglot, "make-book", "-pgn", pgn, "-bin", bin};
  a.insert(a.end(), args.begin(), args.end());
  REQUIRE(gb::test::run(a).status == 0);
  return load(bin);
}

// Byte for byte, in order: make-book keeps the entries of one key with equal
// weight in the order the games first played them (its entries are made in
// that order and glibc's qsort is a stable merge sort), and so must we.
void check_same(const std::vector<store::PolyglotEntry>& ours,
                const std::vector<store::PolyglotEntry>& theirs) {
  CHECK(ours.size() == theirs.size());
  CHECK(gb::test::polyglot_ordered(ours));
  CHECK(gb::test::as_set(ours) == gb::test::as_set(theirs));
  std::size_t differ = 0, first = 0;
  for (std::size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i)
    if (!(ours[i] == theirs[i]) && differ++ == 0) first = i;
  INFO(differ << " of " << theirs.size() << " entries in another place, the first at " << first);
  CHECK(differ == 0);
}

}  // namespace

TEST_CASE("Export equals make-book's reference book of twic0920 at -max-ply 16 -min-game 1",
          "[builder][polyglot]") {
  TempDir dir;
  auto ours = build_and_export(dir, gb::test::data_path("pgn/small/twic0920.pgn"), {"--max-ply", "16"},
                               {"--max-ply", "16", "--min-games", "1"});
  check_same(ours, load(gb::test::reference_book("ref-twic0920-ply16-min1.bin")));
}

TEST_CASE("Export equals make-book's reference book of twic0920 with make-book's defaults",
          "[builder][polyglot]") {
  TempDir dir;
  // make-book's defaults: -max-ply 1024 -min-game 3.
  auto ours = build_and_export(dir, gb::test::data_path("pgn/small/twic0920.pgn"), {"--max-ply", "0"},
                               {"--min-games", "3"});
  check_same(ours, load(gb::test::reference_book("ref-twic0920-default.bin")));
}

TEST_CASE("Export equals make-book's reference books of tcec-standard", "[builder][polyglot]") {
  // Every 8th of the 22,240 TCEC games (2,780: tests/data/SOURCES.md), which
  // make-book turns into 24,152 entries at ply 20 and 2,413 at ply 40 with 3 games.
  TempDir dir;
  std::string pgn = gb::test::data_path("pgn/small/tcec-standard-nocomments-every8th.pgn.zst");
  auto ply20 = load(gb::test::reference_book("ref-tcec-every8th-ply20-min1.bin"));
  auto ply40 = load(gb::test::reference_book("ref-tcec-every8th-ply40-min3.bin"));
  CHECK(ply20.size() > 20000);
  CHECK(ply40.size() > 2000);
  check_same(build_and_export(dir, pgn, {"--max-ply", "20"}, {"--min-games", "1"}), ply20);
  check_same(build_and_export(dir, pgn, {"--max-ply", "40"}, {"--min-games", "3"}), ply40);
}

TEST_CASE("Export with --color black equals make-book -only-black on the Lasker trap",
          "[builder][polyglot]") {
  TempDir dir;
  std::string pgn = gb::test::data_path("polyglot/python-chess-lasker-trap.reconstructed.pgn");
  auto ours = build_and_export(dir, pgn, {"--max-ply", "0"}, {"--min-games", "1", "--color", "black"});
  check_same(ours, make_book(dir, pgn, {"-min-game", "1", "-only-black"}));
  // And byte for byte the book python-chess ships (7 entries, no ties).
  check_same(ours, load(gb::test::data_path("polyglot/python-chess-lasker-trap.bin")));
}

TEST_CASE("Export equals make-book run here on other games, options and -uniform", "[builder][polyglot]") {
  TempDir dir;
  for (const char* name : {"pgn/python-chess/kasparov-deep-blue-1997.pgn",
                           "pgn/python-chess/molinari-bordais-1979.pgn", "pgn/small/pgnmentor-Carlsen.pgn"}) {
    INFO(name);
    std::string pgn = gb::test::data_path(name);
    check_same(build_and_export(dir, pgn, {"--max-ply", "0"}, {"--min-games", "1"}),
               make_book(dir, pgn, {"-min-game", "1"}));
    check_same(build_and_export(dir, pgn, {"--max-ply", "10"},
                                {"--min-games", "2", "--color", "white", "--uniform"}),
               make_book(dir, pgn, {"-max-ply", "10", "-min-game", "2", "-only-white", "-uniform"}));
  }
}

TEST_CASE("Moves of equal weight are exported in the order the games first played them, as make-book does",
          "[builder][polyglot]") {
  // From the start position: Nh3, then Nf3 after the knight went back (one
  // game, a repetition), then e4 and d4 in two more games; all draws, so each
  // has weight 1. By move they would sort Nf3 (0x195), Nh3 (0x197), d4
  // (0x2db), e4 (0x31c): the second played sorts first.
  TempDir dir;
  const std::string first = "[Event \"1\"]\n[Result \"1/2-1/2\"]\n\n1. Nh3 Nf6 2. Ng1 Ng8 3. Nf3 1/2-1/2\n\n";
  const std::string later =
      "[Event \"2\"]\n[Result \"1/2-1/2\"]\n\n1. e4 1/2-1/2\n\n"
      "[Event \"3\"]\n[Result \"1/2-1/2\"]\n\n1. d4 1/2-1/2\n\n";
  std::string pgn = dir.write("order.pgn", first + later);
  auto theirs = make_book(dir, pgn, {"-min-game", "1"});
  const Key start = Position().key();
  std::vector<std::uint16_t> moves;
  for (const auto& e : theirs)
    if (e.key == start) moves.push_back(e.move);
  CHECK(moves == std::vector<std::uint16_t>{0x197, 0x195, 0x31c, 0x2db});  // the rule, as make-book has it
  check_same(build_and_export(dir, pgn, {"--max-ply", "0"}, {"--min-games", "1"}), theirs);
  check_same(build_and_export(dir, pgn, {"--max-ply", "0"}, {"--min-games", "1", "--uniform"}),
             make_book(dir, pgn, {"-min-game", "1", "-uniform"}));

  // Built in two steps, the moves new to a position come after those the book has.
  std::string book = dir.file("steps.book"), bin = dir.file("steps.bin");
  for (const std::string& part : {first, later}) {
    Output o = graphbook({"build", book, dir.write("part.pgn", part), "--max-ply", "0", "--quiet"});
    INFO(o.err);
    REQUIRE(o.status == 0);
  }
  REQUIRE(graphbook({"export", book, bin, "--min-games", "1"}).status == 0);
  check_same(load(bin), theirs);
}

TEST_CASE("Export equals make-book in order when the build spills and merges runs on several threads",
          "[builder][polyglot]") {
  // A small --memory: many spill files per thread, merged 16 at a time into
  // runs of the next level, then all of them with the last in-memory runs.
  TempDir dir;
  std::string pgn = gb::test::data_path("pgn/small/twic0920.pgn");
  check_same(build_and_export(dir, pgn, {"--max-ply", "16", "--threads", "2", "--memory", "1M"},
                              {"--min-games", "1"}),
             load(gb::test::reference_book("ref-twic0920-ply16-min1.bin")));
  // And in three steps into one book.
  std::string text = gb::test::read_file(pgn), book = dir.file("steps.book"), bin = dir.file("steps.bin");
  std::size_t third = text.find("\n[Event ", text.size() / 3),
              two_thirds = text.find("\n[Event ", 2 * text.size() / 3);
  REQUIRE(two_thirds != std::string::npos);
  for (const std::string& part :
       {text.substr(0, third), text.substr(third, two_thirds - third), text.substr(two_thirds)}) {
    Output o = graphbook({"build", book, dir.write("part.pgn", part), "--max-ply", "16", "--no-dedup",
                          "--quiet", "--memory", "1M"});
    INFO(o.err);
    REQUIRE(o.status == 0);
  }
  REQUIRE(graphbook({"export", book, bin, "--min-games", "1"}).status == 0);
  check_same(load(bin), load(gb::test::reference_book("ref-twic0920-ply16-min1.bin")));
}

TEST_CASE("Export equals make-book when the commit merges the spilled runs in slices of the key space",
          "[builder][polyglot]") {
  // Whole games: some 300,000 nodes and edges, merged in several slices on
  // two threads (section_slices.h), each starting its spill files at their marks.
  TempDir dir;
  std::string pgn = gb::test::data_path("pgn/small/twic0920.pgn"), book = dir.file("sliced.book");
  Output o = graphbook(
      {"build", book, pgn, "--max-ply", "0", "--threads", "2", "--memory", "1M", "--no-dedup", "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  auto report = nlohmann::json::parse(o.out);
  CHECK(report["commit_slices"].get<int>() > 2);
  CHECK(report["spilled_runs"].get<int>() > 4);
  REQUIRE(graphbook({"export", book, book + ".bin", "--min-games", "3"}).status == 0);
  check_same(load(book + ".bin"), load(gb::test::reference_book("ref-twic0920-default.bin")));
}

TEST_CASE("make-book's halving above 16384 plays of a move is matched while the order does not matter",
          "[builder][polyglot]") {
  // 20,000 identical games: make-book halves the counts of the start position
  // when 1.e4 reaches 16384; with one move and one result the order is moot.
  TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n";
  std::string pgn = dir.write("many.pgn", text);
  check_same(build_and_export(dir, pgn, {"--max-ply", "0"}, {"--min-games", "1"}),
             make_book(dir, pgn, {"-min-game", "1"}));
}

TEST_CASE("Importing a Polyglot book and exporting it gives the same entries", "[builder][polyglot]") {
  // Two books of the test data and two that make-book writes here.
  for (const std::string& in : {gb::test::data_path("polyglot/python-chess-performance.bin"),
                                gb::test::reference_book("ref-twic0920-ply16-min1.bin"),
                                gb::test::data_path("polyglot/python-chess-lasker-trap.bin"),
                                gb::test::reference_book("ref-tcec-every8th-ply40-min3.bin")}) {
    INFO(in);
    TempDir dir;
    std::string book = dir.file("i.book"), out = dir.file("o.bin");
    Output o = graphbook({"import", book, in});
    INFO(o.err);
    REQUIRE(o.status == 0);
    REQUIRE(graphbook({"export", book, out}).status == 0);
    auto original = load(in), back = load(out);
    CHECK(back.size() == original.size());
    CHECK(gb::test::as_set(back) == gb::test::as_set(original));
    CHECK(gb::test::polyglot_ordered(back));
    CHECK(back == original);  // ties keep the file's order: byte for byte
  }
}

TEST_CASE("An imported book answers by position, and by key for entries no walk reaches",
          "[builder][polyglot]") {
  TempDir dir;
  std::string in = gb::test::data_path("polyglot/python-chess-performance.bin"), book = dir.file("p.book");
  Output o = graphbook({"import", book, in});
  REQUIRE(o.status == 0);
  store::BookError e;
  auto b = store::Book::open(book, store::OpenMode::ReadOnly, &e);
  REQUIRE(b);
  // The shared data's README: from the start position its first move is e2e4.
  auto start = b->find_all(Position().key());
  REQUIRE(start.size() == 3);  // e2e4, d2d4, c2c4, all weight 1 (read by hand with a hex dump)
  bool e4 = false;
  for (const auto& edge : start)
    if (edge.move == parse_uci(Position(), "e2e4").value()) {
      e4 = true;
      CHECK(edge.record.child_key == gb::test::play({"e4"}).key());
    }
  CHECK(e4);
  std::string out = dir.file("o.bin");
  REQUIRE(graphbook({"export", book, out}).status == 0);
  auto back = load(out);
  auto first =
      std::find_if(back.begin(), back.end(), [](const auto& x) { return x.key == Position().key(); });
  REQUIRE(first != back.end());
  CHECK(first->move == 0x31c);  // e2e4 first among equal weights, as in the file
  // Every entry is found by its key, reached or not.
  auto entries = load(in);
  std::size_t key_only = 0, reached = 0;
  REQUIRE(entries.size() == 92954);  // the data README: a real 92,954-entry book
  for (std::size_t i = 0; i < entries.size(); i += 97) {
    auto edges = b->find_all(entries[i].key);
    bool found = false;
    for (const auto& edge : edges) {
      found |= edge.polyglot_move == entries[i].move;
      key_only += (edge.record.flags & store::kEdgeKeyOnly) != 0;
      reached += (edge.record.flags & store::kEdgeKeyOnly) == 0;
    }
    CHECK(found);
  }
  // The sample holds both kinds: entries found by walking from the start, and entries kept by key only.
  CHECK(key_only > 0);
  CHECK(reached > 0);
  INFO(o.out);
  CHECK(o.out.find("kept by key only") != std::string::npos);
  // Importing the same file again adds nothing.
  o = graphbook({"import", book, in});
  CHECK(o.out.find("already in the book") != std::string::npos);
}

TEST_CASE("Games built into an imported book join its sections, and every imported entry stays",
          "[builder][polyglot]") {
  TempDir dir;
  std::string in = gb::test::data_path("polyglot/python-chess-performance.bin"), book = dir.file("p.book");
  REQUIRE(graphbook({"import", book, in}).status == 0);
  std::string pgn = dir.file("g.pgn");
  {
    std::ofstream out(pgn);
    out << "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n"
        << "[White \"C\"]\n[Black \"D\"]\n[Result \"1/2-1/2\"]\n\n1. Nf3 1/2-1/2\n";
  }
  Output o = graphbook({"build", book, pgn, "--quiet"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  {
    auto b = open_book(book);
    // The start position: e2e4, d2d4, c2c4 of the file (weight 1 each, test above), e4 also played
    // by a game, and Nf3 from the other game.
    auto start = b.find_all(Position().key());
    REQUIRE(start.size() == 4);
    for (const auto& e : start) {
      INFO(to_uci(e.move, false));
      const std::string uci = to_uci(e.move, false);
      if (uci == "e2e4") {
        CHECK(e.record.counters.games == 1);
        CHECK(e.record.counters.white_wins == 1);
        CHECK((e.record.flags & store::kEdgeImported));
        CHECK(e.record.score == 1 + 2);  // the file's weight, and make-book's 2 for the mover's win
      } else if (uci == "g1f3") {
        CHECK(e.record.counters.draws == 1);
        CHECK_FALSE((e.record.flags & store::kEdgeImported));
      } else {
        CHECK((uci == "d2d4" || uci == "c2c4"));
        CHECK(e.record.counters.games == 0);
      }
    }
    auto node = b.node(Position().key());
    REQUIRE(node);
    CHECK(node->counters.games == 2);
    CHECK(node->position_hash == store::position_hash(Position()));
    CHECK(b.stats().collisions == 0);
  }
  // Exported again: every key of the file is still there (with e2e4's weight now 3).
  std::string out = dir.file("o.bin");
  REQUIRE(graphbook({"export", book, out}).status == 0);
  auto original = load(in), back = load(out);
  std::set<Key> original_keys, back_keys;
  for (const auto& x : original) original_keys.insert(x.key);
  for (const auto& x : back) back_keys.insert(x.key);
  REQUIRE_FALSE(original_keys.empty());
  for (Key k : original_keys) CHECK(back_keys.count(k));
  auto e4 = std::find_if(back.begin(), back.end(),
                         [](const auto& x) { return x.key == Position().key() && x.move == 0x31c; });
  REQUIRE(e4 != back.end());
  CHECK(e4->weight == 3);
}
