// `graphbook build` and `graphbook info` end to end through the real binary:
// transpositions, dedup, incremental builds, the same file twice, bad games,
// filters, spilling, map growth and kill -9 safety.
#include "builder/build.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "book/store/book.h"
#include "book/store/section_groups.h"
#include "book_dump.h"
#include "process.h"
#include "test_data.h"

using namespace gb;
using gb::test::graphbook;
using gb::test::info_json;
using gb::test::open_book;
using gb::test::Output;
using gb::test::TempDir;

namespace {

// Two short games that reach one position by two move orders (written by hand).
const char* kTransposition = R"([Event "A"]
[White "W1"]
[Black "B1"]
[Result "1-0"]
[WhiteElo "2400"]
[BlackElo "2300"]
[Date "2001.01.01"]

1. e4 e5 2. Nf3 Nc6 1-0

[Event "B"]
[White "W2"]
[Black "B2"]
[Result "1/2-1/2"]
[Date "2003.05.??"]

1. Nf3 Nc6 2. e4 e5 1/2-1/2
)";

const char* kGameA = R"([Event "Club"]
[White "Ann"]
[Black "Bob"]
[Round "1"]
[Date "2010.01.01"]
[Result "0-1"]

1. d4 d5 2. c4 e6 0-1

)";

const char* kGameB = R"([Event "Club"]
[White "Cid"]
[Black "Dan"]
[Round "2"]
[Date "2010.01.02"]
[Result "1-0"]

1. d4 Nf6 2. c4 g6 1-0

)";

// Game 2 holds an illegal move (a knight cannot reach e5 from g1).
const char* kWithBadGame = R"([Event "ok"]
[Result "1-0"]

1. e4 e5 1-0

[Event "bad"]
[Result "0-1"]

1. d4 d5 2. Ne5 Nf6 0-1

[Event "ok again"]
[Result "1/2-1/2"]

1. c4 c5 1/2-1/2
)";

// The book of kTransposition, built in dir: its path.
std::string build_transposition_book(TempDir& dir) {
  std::string pgn = dir.write("tr.pgn", kTransposition), path = dir.file("tr.book");
  Output o = graphbook({"build", path, pgn});
  INFO(o.err);
  REQUIRE(o.status == 0);
  return path;
}

}  // namespace

TEST_CASE("Two move orders of one position end in one node with two games and two incoming edges",
          "[builder]") {
  TempDir dir;
  const std::string path = build_transposition_book(dir);
  auto book = open_book(path);
  Key key = gb::test::play({"e4", "e5", "Nf3", "Nc6"}).key();
  REQUIRE(gb::test::play({"Nf3", "Nc6", "e4", "e5"}).key() == key);
  auto node = book.node(key);
  REQUIRE(node);
  CHECK(node->counters.games == 2);
  CHECK(node->counters.white_wins == 1);
  CHECK(node->counters.draws == 1);
  CHECK(node->counters.min_year == 2001);
  CHECK(node->counters.max_year == 2003);
  int incoming = 0;
  for (const store::EdgeRecord& r : gb::test::all_edges(book))
    if (r.child_key == key) ++incoming;
  CHECK(incoming == 2);
  auto start = book.find_all(Position().key());
  REQUIRE(start.size() == 2);  // 1.e4 and 1.Nf3, one game each
  int e4_edges = 0;
  for (const auto& e : start) {
    CHECK(e.record.counters.games == 1);
    if (e.move != parse_san(Position(), "e4").move) continue;
    ++e4_edges;
    CHECK(e.record.counters.average_elo() == 2400);
  }
  CHECK(e4_edges == 1);  // the rated game's 1.e4 is among them, so its Elo was checked
  auto info = info_json(path);
  CHECK(info["transpositions"] == 1);
  CHECK(info["games"] == 2);
  CHECK(info["nodes"] == 8);  // start, 3 after each first half-line pair (2x3), and the common one
  CHECK(info["edges"] == 8);
  CHECK(info["depth_histogram"]["4"] == 1);
  // Where the bytes go: the 6 positions of one game (all but the start and the common one).
  CHECK(info["one_game_positions"] == 6);
  CHECK(info["one_game_section_bytes"].get<std::uint64_t>() > 0);
  CHECK(info["one_game_section_bytes"] < info["section_bytes"]);
  CHECK(info["section_bytes"] < info["positions_bytes"]);
}

TEST_CASE("A build writes the edge of a position one game reached as sharing its node's fields",
          "[builder]") {
  // docs/FORMAT.md, Sections: of the 8 edges of the two games, the 6 played
  // at a position of one game share (the 3 after 1.e4, 1...e5 and 2.Nf3 of
  // game A, the 3 after 1.Nf3, 1...Nc6 and 2.e4 of game B); the start
  // position's two, one game each of its two, do not.
  TempDir dir;
  const std::string path = build_transposition_book(dir);
  auto positions = gb::test::open_raw(path, "positions");
  int edges = 0, sharing = 0;
  REQUIRE_FALSE(store::each_section(positions.txn, positions.dbi, [&](Key key, std::string_view v) {
    const bool at_start = key == Position().key();
    // docs/FORMAT.md: a packed node (its first byte from 0xc0) has no
    // length byte, and its edge may be inline (0x20: one edge, sharing); an
    // edge's length byte 0xff is 8 bytes of child key, else its low 7 bits
    // count.
    const auto first = std::uint8_t(v[0]);
    if (first >= store::kPackedHead && (first & store::kInlineEdge)) {
      ++edges;
      ++sharing;
      CHECK_FALSE(at_start);
      return true;
    }
    const auto edge_length = [&](std::size_t at) {
      const auto b = std::uint8_t(v[at + 2]);
      return b == 0xff ? 8u : b & 0x7fu;
    };
    const std::size_t node_end =
        first >= store::kPackedHead ? store::self_delimited_length(v) : 1 + (first & 0x7f);
    for (std::size_t at = node_end; at + 3 <= v.size(); at += 3 + edge_length(at)) {
      ++edges;
      const bool shares = std::uint8_t(v[at + 2]) & store::kSharesNode;
      sharing += shares;
      CHECK(shares != at_start);
    }
    return true;
  }));
  CHECK(edges == 8);
  CHECK(sharing == 6);
}

TEST_CASE("A game that repeats a position counts once on its node and edge", "[builder]") {
  TempDir dir;
  // 1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3: the start position and 1.Nf3 are played twice.
  std::string pgn =
      dir.write("rep.pgn", "[Event \"r\"]\n[Result \"1-0\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 1-0\n");
  REQUIRE(graphbook({"build", dir.file("r.book"), pgn}).status == 0);
  auto book = open_book(dir.file("r.book"));
  auto start = book.node(Position().key());
  REQUIRE(start);
  CHECK(start->counters.games == 1);
  auto edges = book.find_all(Position().key());
  REQUIRE(edges.size() == 1);
  CHECK(edges[0].record.counters.games == 1);
  CHECK(edges[0].record.occurrences == 2);  // make-book's count: every time
  CHECK(edges[0].record.score == 4);        // two wins of White
}

TEST_CASE("Duplicate games are counted once, also across builds, unless --no-dedup", "[builder]") {
  TempDir dir;
  std::string twice = dir.write("twice.pgn", std::string(kGameA) + kGameA + kGameB);
  Output o = graphbook({"build", dir.file("d.book"), twice, "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  auto j = nlohmann::json::parse(o.out);
  CHECK(j["games_read"] == 3);
  CHECK(j["games_added"] == 2);
  CHECK(j["duplicates"] == 1);

  // The same game in another file (other bytes: a comment) is known from the book.
  std::string again = dir.write("again.pgn", std::string("{copied}\n") + kGameA);
  j = nlohmann::json::parse(graphbook({"build", dir.file("d.book"), again, "--json"}).out);
  CHECK(j["games_added"] == 0);
  CHECK(j["duplicates"] == 1);
  auto info = info_json(dir.file("d.book"));
  CHECK(info["games"] == 2);
  CHECK(info["duplicates_skipped"] == 2);

  j = nlohmann::json::parse(graphbook({"build", dir.file("n.book"), twice, "--no-dedup", "--json"}).out);
  CHECK(j["games_added"] == 3);
}

TEST_CASE("Of two copies of a game the first in the file counts, on any number of threads", "[builder]") {
  // Every game of twic0920 followed by its copy with the result reversed:
  // the fingerprint (tags and moves) is the same, so the copy is the
  // duplicate. Parse parts start at game boundaries, so some copies open a
  // part that another thread reads while the original is still ahead of its
  // own thread; the book must still hold the originals' results.
  TempDir dir;
  std::string all = gb::test::read_file(gb::test::data_path("pgn/small/twic0920.pgn"));
  std::string originals, pairs;
  for (std::size_t at = 0; at < all.size();) {
    std::size_t next = all.find("\n[Event ", at);
    next = next == std::string::npos ? all.size() : next + 1;
    std::string game = all.substr(at, next - at), copy = game;
    for (auto [from, to] : {std::pair{"1-0", "0-9"}, {"0-1", "1-0"}, {"0-9", "0-1"}})
      for (std::size_t i; (i = copy.find(from)) != std::string::npos;) copy.replace(i, 3, to);
    originals += game;
    pairs += game + copy;
    at = next;
  }
  std::string o = dir.write("originals.pgn", originals), p = dir.write("pairs.pgn", pairs);
  REQUIRE(graphbook({"build", dir.file("o.book"), o, "--max-ply", "0", "--threads", "1"}).status == 0);
  auto want = open_book(dir.file("o.book"));
  for (const char* threads : {"1", "2", "3"}) {
    INFO(threads << " threads");
    std::string book = dir.file(std::string("p") + threads + ".book");
    Output out = graphbook({"build", book, p, "--max-ply", "0", "--threads", threads, "--json"});
    REQUIRE(out.status == 0);
    CHECK(nlohmann::json::parse(out.out)["duplicates"] == 2245);
    auto got = open_book(book);
    CHECK(gb::test::sections(got, got.dbs().positions) == gb::test::sections(want, want.dbs().positions));
  }
}

TEST_CASE("The same file added twice adds nothing", "[builder]") {
  TempDir dir;
  std::string pgn = dir.write("a.pgn", std::string(kGameA) + kGameB);
  REQUIRE(graphbook({"build", dir.file("s.book"), pgn, "--no-dedup"}).status == 0);
  Output o = graphbook({"build", dir.file("s.book"), pgn, "--no-dedup"});
  CHECK(o.status == 0);
  CHECK(o.err.find("already in the book") != std::string::npos);
  auto info = info_json(dir.file("s.book"));
  CHECK(info["games"] == 2);
  CHECK(info["sources"].size() == 1);
  CHECK(info["sources"][0]["games_added"] == 2);
}

TEST_CASE("An incremental build gives the same book as one build of all games", "[builder]") {
  TempDir dir;
  // Split twic0920 in two halves at a game boundary.
  std::string all = gb::test::read_file(gb::test::data_path("pgn/small/twic0920.pgn"));
  std::size_t cut = all.find("\n[Event ", all.size() / 2) + 1;
  std::string a = dir.write("a.pgn", all.substr(0, cut)), b = dir.write("b.pgn", all.substr(cut));
  REQUIRE(graphbook({"build", dir.file("inc.book"), a, "--max-ply", "20"}).status == 0);
  REQUIRE(graphbook({"build", dir.file("inc.book"), b, "--max-ply", "20"}).status == 0);
  REQUIRE(graphbook({"build", dir.file("one.book"), a, b, "--max-ply", "20"}).status == 0);
  auto inc = open_book(dir.file("inc.book"));
  auto one = open_book(dir.file("one.book"));
  CHECK(gb::test::sections(inc, inc.dbs().positions) == gb::test::sections(one, one.dbs().positions));
  CHECK(gb::test::fingerprints(inc) == gb::test::fingerprints(one));
  CHECK(gb::test::fingerprints(inc).size() == 2245);  // one a game, in blocks cut by both builds
  CHECK(inc.stats().games == 2245);  // README: 2,245 games (the 11 without moves count at the start position)
}

TEST_CASE("Bad games are skipped and reported with file, line and game number, and the build goes on",
          "[builder]") {
  TempDir dir;
  std::string pgn = dir.write("bad.pgn", kWithBadGame);
  Output o = graphbook({"build", dir.file("b.book"), pgn, "--json"});
  REQUIRE(o.status == 0);
  auto j = nlohmann::json::parse(o.out);
  CHECK(j["games_read"] == 3);
  CHECK(j["games_added"] == 2);
  CHECK(j["skipped"] == 1);
  INFO(o.err);
  CHECK(o.err.find("bad.pgn:9") != std::string::npos);  // the line of the bad move
  CHECK(o.err.find("game 2") != std::string::npos);
  CHECK(o.err.find("Ne5") != std::string::npos);
  auto info = info_json(dir.file("b.book"));
  CHECK(info["bad_games_skipped"] == 1);
}

TEST_CASE("Filters: --min-elo, --since/--until, --color and --min-games", "[builder]") {
  TempDir dir;
  std::string pgn = dir.write("f.pgn", std::string(kTransposition) + "\n" + kGameA + kGameB);
  auto added = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "build", dir.file("f" + std::to_string(extra.size()) + extra.back() + ".book"), pgn, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    Output o = graphbook(args);
    INFO(o.err);
    REQUIRE(o.status == 0);
    return nlohmann::json::parse(o.out)["games_added"].get<int>();
  };
  CHECK(added({"--min-elo", "2300"}) == 1);  // only game A is rated (2400 and 2300)
  CHECK(added({"--since", "2003"}) == 3);    // 2003.05.??, 2010, 2010
  CHECK(added({"--until", "2003-06"}) == 2);
  CHECK(added({"--since", "2002", "--until", "2009"}) == 1);

  // --color white keeps every move White played and none of Black's: the (position, move) pairs of
  // White's moves in the four games, replayed here (1.d4 is in two games).
  REQUIRE(graphbook({"build", dir.file("w.book"), pgn, "--color", "white"}).status == 0);
  auto w = open_book(dir.file("w.book"));
  std::set<std::pair<Key, std::uint16_t>> white_moves;  // key, raw move
  for (const auto& line : {std::vector<std::string>{"e4", "e5", "Nf3", "Nc6"},
                           {"Nf3", "Nc6", "e4", "e5"},
                           {"d4", "d5", "c4", "e6"},
                           {"d4", "Nf6", "c4", "g6"}}) {
    Position pos;
    for (std::size_t i = 0; i < line.size(); ++i) {
      Move m = parse_san(pos, line[i]).move;
      REQUIRE(m);
      if (i % 2 == 0) white_moves.insert({pos.key(), m.raw()});
      UndoInfo u;
      pos.do_move(m, u);
    }
  }
  REQUIRE(white_moves.size() == 7);
  auto white_edges = gb::test::all_edges(w);
  CHECK(white_edges.size() == white_moves.size());
  for (const store::EdgeRecord& r : white_edges) CHECK_FALSE(r.flags & store::kEdgeBlackMoves);
  for (const auto& [key, move] : white_moves) {
    auto edges = w.find_all(key);
    CHECK(std::count_if(edges.begin(), edges.end(), [&](const auto& e) { return e.move.raw() == move; }) ==
          1);
  }
  REQUIRE(graphbook({"build", dir.file("m.book"), pgn, "--min-games", "2"}).status == 0);
  auto m = open_book(dir.file("m.book"));
  auto start = m.find_all(Position().key());
  // 1.d4 (games A and B) and nothing else is played twice from the start.
  REQUIRE(start.size() == 1);
  CHECK(start[0].move == parse_san(Position(), "d4").move);
  CHECK(start[0].record.counters.games == 2);
}

TEST_CASE("A build with --min-elo keeps a game only when both players are rated at least that", "[builder]") {
  // build --help: "Only games whose players are both rated at least this". At 2350 only the game
  // whose two players are 2350 or more is kept; "either player" would keep the other two as well.
  TempDir dir;
  std::string pgn = dir.write("elo.pgn", R"([White "A"]
[Black "B"]
[WhiteElo "2400"]
[BlackElo "2300"]
[Result "1-0"]

1. e4 e5 1-0

[White "C"]
[Black "D"]
[WhiteElo "2500"]
[BlackElo "2450"]
[Result "0-1"]

1. c4 c5 0-1

[White "E"]
[Black "F"]
[WhiteElo "2600"]
[Result "1/2-1/2"]

1. d4 d5 1/2-1/2
)");
  Output o = graphbook({"build", dir.file("elo.book"), pgn, "--min-elo", "2350", "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(nlohmann::json::parse(o.out)["games_added"] == 1);
  auto book = open_book(dir.file("elo.book"));
  auto start = book.find_all(Position().key());
  REQUIRE(start.size() == 1);
  CHECK(start[0].move == parse_san(Position(), "c4").move);
  CHECK(start[0].record.counters.black_wins == 1);
}

TEST_CASE("A build over a tiny memory budget spills runs and gives the same book", "[builder]") {
  TempDir dir;
  std::string pgn = gb::test::data_path("pgn/small/twic0920.pgn");
  Output spilled =
      graphbook({"build", dir.file("s.book"), pgn, "--memory", "1M", "--json", "--max-ply", "30"});
  INFO(spilled.err);
  REQUIRE(spilled.status == 0);
  CHECK(nlohmann::json::parse(spilled.out)["spilled_runs"].get<int>() > 0);
  REQUIRE(graphbook({"build", dir.file("m.book"), pgn, "--max-ply", "30"}).status == 0);
  auto s = open_book(dir.file("s.book"));
  auto m = open_book(dir.file("m.book"));
  CHECK(gb::test::sections(s, s.dbs().positions) == gb::test::sections(m, m.dbs().positions));
}

TEST_CASE("A build into a tiny map grows the map and commits", "[builder]") {
  TempDir dir;
  builder::BuildOptions o;
  o.initial_map_size = 256 * 1024;
  o.threads = 2;
  std::ostringstream errors;
  builder::BuildError error;
  auto report = builder::run_build(dir.file("tiny.book"), {gb::test::data_path("pgn/small/twic0920.pgn")}, o,
                                   errors, &error);
  INFO(error.message);
  REQUIRE(report);
  CHECK(report->total.added == 2245);
  auto book = open_book(dir.file("tiny.book"));
  CHECK(book.stats().games == 2245);
  CHECK(book.node(Position().key())->counters.games == 2245);
}

TEST_CASE("Reading from stdin and from .pgn.zst gives the same book as the plain file", "[builder]") {
  TempDir dir;
  std::string plain = gb::test::data_path("pgn/small/twic0920.pgn");
  REQUIRE(std::system(("zstd -q -c " + plain + " > " + dir.file("t.pgn.zst")).c_str()) == 0);
  REQUIRE(graphbook({"build", dir.file("p.book"), plain, "--max-ply", "12"}).status == 0);
  REQUIRE(graphbook({"build", dir.file("z.book"), dir.file("t.pgn.zst"), "--max-ply", "12"}).status == 0);
  REQUIRE(std::system((gb::test::graphbook_binary() + " build " + dir.file("s.book") + " - --max-ply 12 < " +
                       plain + " > /dev/null 2>&1")
                          .c_str()) == 0);
  auto p = open_book(dir.file("p.book"));
  for (const char* name : {"z.book", "s.book"}) {
    auto other = open_book(dir.file(name));
    CHECK(gb::test::sections(other, other.dbs().positions) == gb::test::sections(p, p.dbs().positions));
  }
}

TEST_CASE("info and build refuse a file that is not a book", "[builder]") {
  TempDir dir;
  std::string text = dir.write("notes.txt", "hello\n");
  Output o = graphbook({"info", text});
  CHECK(o.status == 2);  // README, "Exit status": not a book
  CHECK(o.err.find("not a graphbook book") != std::string::npos);
  o = graphbook({"build", text, dir.write("g.pgn", kGameA)});
  CHECK(o.status == 2);  // README, "Exit status": not a book
  CHECK(o.err.find("not a graphbook book") != std::string::npos);
}
