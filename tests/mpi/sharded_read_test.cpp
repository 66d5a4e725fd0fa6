// Every command that reads a book reads a sharded one (build --mpi) as the
// book one single-process build of the same games makes: probe, pick, tree,
// query (and its --book, --export and --pgn outputs), export, info, check,
// match, the UCI adapter and serve answer the same. The single build is the
// independent side: it is made without MPI, and tests/mpi's build test and
// the builder's tests hold it to make-book and to the PGN. A sharded book is
// read-only: the commands that write refuse it, naming merge.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "mpi_run.h"
#include "serve/serve_helpers.h"
#include "test_data.h"

using gb::test::build;
using gb::test::exported;
using gb::test::info_json;
using gb::test::Output;
using gb::test::run_shell;
using gb::test::TempDir;

namespace {

const std::string kStockfish = "/usr/games/stockfish";

// The two books, made once for every test here: twic0920 and Carlsen's games
// at max ply 40, on 4 ranks and in one process.
struct Books {
  TempDir dir{"graphbook-sharded-read"};
  std::string sharded = dir.file("sharded.book"), one = dir.file("one.book");
  std::string made;  // what mpirun said when it failed; empty when both books were made
  Books() {
    const std::vector<std::string> inputs = {gb::test::data_path("pgn/small/twic0920.pgn"),
                                             gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn"),
                                             "--max-ply", "40"};
    std::vector<std::string> args = {sharded};
    args.insert(args.end(), inputs.begin(), inputs.end());
    Output o = gb::test::mpi_build(4, args);
    if (o.status != 0) made = o.out + o.err;
    std::vector<std::string> single = {one};
    single.insert(single.end(), inputs.begin(), inputs.end());
    build(single);
  }
};

const Books& books() {
  static const Books b;
  REQUIRE(b.made.empty());
  return b;
}

// `graphbook ARGS` on a book: stdout, and the exit status.
struct Answer {
  int status;
  std::string out, err;
};
Answer on(const std::string& book, const std::string& args) {
  auto r = gb::test::graphbook(args.substr(0, args.find(' ')) + " '" + book + "'" +
                               (args.find(' ') == std::string::npos ? "" : args.substr(args.find(' '))));
  return {r.status, r.out, r.err};
}

// The same answer from both books, and one that says something.
void same_answer(const std::string& args) {
  INFO("graphbook " << args);
  const Answer s = on(books().sharded, args), o = on(books().one, args);
  INFO(s.err << o.err);
  CHECK(o.status == 0);
  CHECK(s.status == o.status);
  CHECK(o.out.size() > 50);
  CHECK(s.out == o.out);
}

}  // namespace

TEST_CASE("probe, pick and tree read a sharded book as the single build's", "[mpi]") {
  for (const char* moves : {"", "e4", "e4 c5", "d4 Nf6 c4", "e4 e5 Nf3 Nc6 Bb5 a6"}) {
    const std::string at = std::string(" --moves '") + moves + "'";
    same_answer("probe" + at + " --json");
    same_answer("probe" + at);
    same_answer("pick" + at + " --policy weighted --seed 7 --json");
    same_answer("pick" + at + " --policy best --seed 7 --explain");
  }
  same_answer("tree --depth 4 --format json --max-nodes 2000");
  same_answer("tree --moves 'd4 Nf6' --depth 3 --min-games 2 --format dot");
}

TEST_CASE("query and export read a sharded book as the single build's", "[mpi]") {
  same_answer("query --cql 'bookgames >= 20' --json");
  same_answer("query --cql 'check bookgames >= 2' --json --limit 500");
  same_answer("query --moves 'e4 c5' --cql 'bookgames >= 3' --depth 6 --json");

  // The books and files a query writes, and the whole export.
  TempDir dir("graphbook-sharded-query");
  for (const auto& [book, name] : {std::pair{books().sharded, "s"}, std::pair{books().one, "o"}}) {
    const std::string n = name;
    Answer a = on(book, "query --cql 'bookgames >= 10' --book " + dir.file(n + "-sub.book") + " --export " +
                            dir.file(n + "-q.bin") + " --pgn " + dir.file(n + "-q.pgn"));
    INFO(a.err);
    REQUIRE(a.status == 0);
  }
  const std::string sub = exported(dir.file("o-sub.book"), dir.file("o-sub.bin"));
  CHECK(sub.size() >= 16 * 20);
  CHECK(exported(dir.file("s-sub.book"), dir.file("s-sub.bin")) == sub);
  CHECK(gb::test::read_file(dir.file("o-q.bin")).size() >= 16 * 20);
  CHECK(gb::test::read_file(dir.file("s-q.bin")) == gb::test::read_file(dir.file("o-q.bin")));
  CHECK(gb::test::read_file(dir.file("o-q.pgn")).find("[Event") != std::string::npos);
  CHECK(gb::test::read_file(dir.file("s-q.pgn")) == gb::test::read_file(dir.file("o-q.pgn")));

  const std::string whole = exported(books().one, dir.file("one.bin"));
  CHECK(whole.size() >= 16 * 10000);
  CHECK(exported(books().sharded, dir.file("sharded.bin")) == whole);
}

TEST_CASE("info and check read a sharded book shard by shard", "[mpi]") {
  const nlohmann::json s = info_json(books().sharded), o = info_json(books().one);
  for (const char* key :
       {"nodes", "edges", "games", "games_at_start_position", "duplicates_skipped", "bad_games_skipped",
        "transpositions", "depth_histogram", "source_totals", "build_params"}) {
    INFO(key);
    CHECK(s[key] == o[key]);
  }
  CHECK(o["games"].get<std::uint64_t>() ==
        2245 +
            gb::test::games_of(gb::test::read_file(gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn")))
                .size() -
            o["duplicates_skipped"].get<std::uint64_t>());
  CHECK(o["sharded"] == false);
  CHECK(s["sharded"] == true);
  REQUIRE(s["shard_count"] == 4);
  REQUIRE(s["shards"].size() == 4);
  std::uint64_t nodes = 0, edges = 0;
  for (const auto& shard : s["shards"]) {
    CHECK(shard["nodes"].get<std::uint64_t>() > 0);
    nodes += shard["nodes"].get<std::uint64_t>();
    edges += shard["edges"].get<std::uint64_t>();
  }
  CHECK(nodes == o["nodes"]);
  CHECK(edges == o["edges"]);

  Answer check = on(books().sharded, "check --json");
  INFO(check.out << check.err);
  CHECK(check.status == 0);
  const auto j = nlohmann::json::parse(check.out, nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["sound"] == true);
  REQUIRE(j["shards"].size() == 4);
  for (const auto& shard : j["shards"]) CHECK(shard["sound"] == true);
}

TEST_CASE("match and the UCI adapter read a sharded book as the single build's", "[mpi]") {
  // Neither book stores games (--index-games is a single build's): match says so of both.
  const std::string game = " " + gb::test::data_path("pgn/small/twic0920.pgn") + " --game 5";
  const Answer s = on(books().sharded, "match" + game), o = on(books().one, "match" + game);
  CHECK(o.status != 0);
  CHECK(s.status == o.status);
  CHECK(o.err.find("no stored games") != std::string::npos);
  CHECK(s.err.find("no stored games") != std::string::npos);

  // The adapter plays the same book moves, with the same counts in its info line.
  auto play = [](const std::string& book) {
    const std::string gui =
        "uci\\nisready\\nposition startpos moves e2e4 c7c5\\ngo movetime 100\\n"
        "position startpos moves d2d4 g8f6 c2c4\\ngo movetime 100\\nposition startpos\\ngo movetime "
        "100\\nquit\\n";
    return run_shell("printf '" + gui + "' | '" + gb::test::graphbook_binary() + "' uci --book '" + book +
                     "' --policy best --lookahead 3 -- " + kStockfish +
                     " 2>&1 | grep -E '^(bestmove|info string book)'")
        .out;
  };
  const std::string one = play(books().one);
  INFO(one);
  CHECK(std::count(one.begin(), one.end(), '\n') == 6);  // three book moves, each with its info line
  CHECK(play(books().sharded) == one);
}

TEST_CASE("serve answers from a sharded book as from the single build's", "[mpi]") {
  gb::test::ServerProcess sharded(books().sharded), one(books().one);
  REQUIRE(!sharded.url.empty());
  REQUIRE(!one.url.empty());
  for (const char* path :
       {"/masters?play=e2e4,c7c5", "/lichess?play=d2d4,g8f6&moves=20",
        "/masters?fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR%20b%20KQkq%20-%200%201",
        "/api/query?cql=bookgames%20%3E%3D%2030"}) {
    INFO(path);
    const auto o = gb::test::http(one.url + path), s = gb::test::http(sharded.url + path);
    CHECK(o.status == 200);
    CHECK(o.body.size() > 100);
    CHECK(s.status == o.status);
    CHECK(s.body == o.body);
  }
}

TEST_CASE("the commands that write refuse a sharded book, naming merge", "[mpi]") {
  TempDir dir("graphbook-sharded-write");
  const std::string game = dir.write("played.pgn", "[Result \"1-0\"]\n\n1. e4 c5 2. Nf3 1-0\n");
  const Answer learn = on(books().sharded, "learn " + game);
  CHECK(learn.status == 2);
  CHECK(learn.err.find("read-only") != std::string::npos);
  CHECK(learn.err.find("graphbook merge") != std::string::npos);
  const Answer build = on(books().sharded, "build " + game);
  CHECK(build.status != 0);
  // And the book is as it was.
  CHECK(info_json(books().sharded)["games"] == info_json(books().one)["games"]);
}

TEST_CASE("a directory that is not a whole sharded book is refused with its reason", "[mpi]") {
  TempDir dir("graphbook-sharded-broken");
  const std::string empty = dir.file("empty.book");
  REQUIRE(::mkdir(empty.c_str(), 0755) == 0);
  Answer a = on(empty, "probe");
  CHECK(a.status == 2);
  CHECK(a.err.find("without manifest.json") != std::string::npos);

  // A shard gone: the error names it.
  const std::string broken = dir.file("broken.book");
  REQUIRE(::mkdir(broken.c_str(), 0755) == 0);
  std::ifstream in(books().sharded + "/manifest.json");
  std::ofstream(broken + "/manifest.json") << in.rdbuf();
  a = on(broken, "probe");
  CHECK(a.status == 2);
  CHECK(a.err.find("shard-00000-of-00004.book") != std::string::npos);
}
