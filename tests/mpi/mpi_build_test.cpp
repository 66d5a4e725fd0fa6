// `mpirun -np 4 graphbook build --mpi BOOK INPUT...`: the sharded book, made
// one book by `graphbook merge`, is the book one single-process build of the
// same inputs makes (its Polyglot export byte for byte, its counts in info),
// with games repeated across ranks counted once, a file cut in byte ranges
// between ranks, and the options --mpi does not support refused.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "mpi_run.h"
#include "test_data.h"

using gb::test::build;
using gb::test::counts;
using gb::test::exported;
using gb::test::games_of;
using gb::test::graphbook;
using gb::test::info_json;
using gb::test::join;
using gb::test::mpi_build;
using gb::test::Output;
using gb::test::read_file;
using gb::test::TempDir;

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The lines of text, sorted (ranks report their problems in any order).
std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// 4 ranks on inputs of about 4.5 MB, against one build of the same inputs.
void check_against_one_build(const std::string& max_ply) {
  INFO("--max-ply " << max_ply);
  TempDir dir("graphbook-mpi");
  // Inputs of about 4.5 MB, so that each rank's share ends inside a file:
  // twic0920 is cut between ranks at a game boundary. repeats.pgn repeats
  // 400 games of twic0920 and 200 of Carlsen's, read on other ranks than the
  // first copies; the .zst file is read whole by one rank.
  const std::string carlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string tcec = gb::test::data_path("pgn/small/tcec-standard-nocomments-every8th.pgn.zst");
  const auto twic_games = games_of(read_file(twic)), carlsen_games = games_of(read_file(carlsen));
  REQUIRE(twic_games.size() == 2245);
  const std::size_t repeated = 400 + 200;
  const std::string repeats =
      dir.write("repeats.pgn", join(twic_games, 1500, 1900) + join(carlsen_games, 100, 300));

  build({dir.file("one.book"), carlsen, twic, repeats, tcec, "--max-ply", max_ply});
  build({dir.file("without-repeats.book"), carlsen, twic, tcec, "--max-ply", max_ply});
  Output o = mpi_build(4, {dir.file("sharded.book"), carlsen, twic, repeats, tcec, "--max-ply", max_ply});
  INFO(o.out << o.err);
  REQUIRE(o.status == 0);

  // The sharded book's totals: those of the single build, and every repeated
  // game a duplicate more than without the repeats.
  const nlohmann::json one = info_json(dir.file("one.book"));
  const nlohmann::json sharded = info_json(dir.file("sharded.book"));
  CHECK(sharded["shard_count"] == 4);
  for (const char* key : {"games", "duplicates_skipped", "nodes", "edges", "bad_games_skipped"}) {
    INFO(key);
    CHECK(sharded[key] == one[key]);
  }
  CHECK(sharded["duplicates_skipped"].get<std::uint64_t>() ==
        info_json(dir.file("without-repeats.book"))["duplicates_skipped"].get<std::uint64_t>() + repeated);

  Output merged = graphbook({"merge", dir.file("merged.book"), dir.file("sharded.book"), "--quiet"});
  INFO(merged.err);
  REQUIRE(merged.status == 0);
  CHECK(exported(dir.file("merged.book"), dir.file("merged.bin")) ==
        exported(dir.file("one.book"), dir.file("one.bin")));
  CHECK(counts(dir.file("merged.book")) == counts(dir.file("one.book")));
  CHECK(info_json(dir.file("merged.book"))["builds"] == 1);
  Output check = graphbook({"check", dir.file("merged.book")});
  INFO(check.out << check.err);
  CHECK(check.status == 0);
}

}  // namespace

TEST_CASE("An MPI build on 4 ranks, merged into one book, is the book one build of the same inputs makes",
          "[mpi]") {
  check_against_one_build("40");
}

TEST_CASE("An MPI build on 4 ranks at full depth, merged into one book, is the book one build makes",
          "[mpi]") {
  check_against_one_build("0");
}

TEST_CASE("An MPI build takes the options that choose and count games as one build does", "[mpi]") {
  const std::string options = GENERATE(std::string("--min-games 3"), std::string("--no-dedup"),
                                       std::string("--player Carlsen --color white --max-ply 20"));
  INFO(options);
  TempDir dir("graphbook-mpi");
  const std::string carlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");
  const auto games = games_of(read_file(gb::test::data_path("pgn/small/twic0920.pgn")));
  const std::string twic = dir.write("twic.pgn", join(games, 0, 1200));
  const std::string repeats = dir.write("repeats.pgn", join(games, 300, 700));
  std::vector<std::string> args = {carlsen, twic, repeats};
  std::istringstream words(options);
  for (std::string w; words >> w;) args.push_back(w);
  gb::test::build_both(dir, args, 3);
  Output merged = graphbook({"merge", dir.file("merged.book"), dir.file("sharded.book"), "--quiet"});
  INFO(merged.err);
  REQUIRE(merged.status == 0);
  CHECK(exported(dir.file("merged.book"), dir.file("merged.bin")) ==
        exported(dir.file("one.book"), dir.file("one.bin")));
  CHECK(counts(dir.file("merged.book")) == counts(dir.file("one.book")));
}

TEST_CASE("An MPI build with --filter keeps the games the query matches, as one build does", "[mpi]") {
  TempDir dir("graphbook-mpi");
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string carlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");
  // White wins in which a knight gives check somewhere: a query of the moves, not only of the tags.
  const std::string query = dir.write("query.cql", "result 1-0\nN attacks k\n");
  build({dir.file("one.book"), carlsen, twic, "--filter", query, "--max-ply", "30"});
  Output o = mpi_build(4, {dir.file("sharded.book"), carlsen, twic, "--filter", query, "--max-ply", "30"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  const nlohmann::json one = info_json(dir.file("one.book")), sharded = info_json(dir.file("sharded.book"));
  const std::uint64_t read = 2245 + games_of(read_file(carlsen)).size();
  CHECK(one["games"].get<std::uint64_t>() > 100);
  CHECK(one["games"].get<std::uint64_t>() < read / 2);  // the query left most games out
  CHECK(sharded["games"] == one["games"]);
  CHECK(sharded["edges"] == one["edges"]);
  CHECK(exported(dir.file("sharded.book"), dir.file("sharded.bin")) ==
        exported(dir.file("one.book"), dir.file("one.bin")));
}

TEST_CASE("An MPI build with --buckets filters by rating, date and source as one build with them does",
          "[mpi]") {
  const std::string label = GENERATE(std::string(), std::string("games"));  // --source: one bucket source
  INFO("--source '" << label << "'");
  TempDir dir("graphbook-mpi");
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string carlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");
  std::vector<std::string> args = {carlsen, twic, "--max-ply", "30", "--buckets", "--by-month"};
  if (!label.empty()) args.insert(args.end(), {"--source", label});
  gb::test::build_both(dir, args, 3);
  const nlohmann::json one = info_json(dir.file("one.book")), sharded = info_json(dir.file("sharded.book"));
  REQUIRE(one["buckets"].is_object());
  CHECK(sharded["buckets"]["keys"] == one["buckets"]["keys"]);
  CHECK(sharded["buckets"]["buckets"] == one["buckets"]["buckets"]);

  // Exports through filters: each leaves out some of the book, and both books leave out the same.
  const std::string whole = exported(dir.file("one.book"), dir.file("whole.bin"));
  const std::string source = label.empty() ? carlsen : label;
  for (const std::vector<std::string>& filter :
       {std::vector<std::string>{"--ratings", "2500"}, std::vector<std::string>{"--since", "2012-03"},
        std::vector<std::string>{"--ratings", "2200,2500", "--until", "2012-04"},
        std::vector<std::string>{"--weight", source + "=0.5"}}) {
    INFO(filter.front() << " " << filter[1]);
    std::vector<std::string> e1 = {"export", dir.file("one.book"), dir.file("one.bin")},
                             e2 = {"export", dir.file("sharded.book"), dir.file("sharded.bin")};
    e1.insert(e1.end(), filter.begin(), filter.end());
    e2.insert(e2.end(), filter.begin(), filter.end());
    REQUIRE(graphbook(e1).status == 0);
    REQUIRE(graphbook(e2).status == 0);
    const std::string filtered = read_file(dir.file("one.bin"));
    CHECK(filtered.size() >= 16 * 100);
    CHECK(filtered != whole);
    CHECK(read_file(dir.file("sharded.bin")) == filtered);
  }
}

TEST_CASE("An MPI build with --index-games stores the games one build stores, and match finds them",
          "[mpi]") {
  TempDir dir("graphbook-mpi");
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string carlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");
  const auto twic_games = games_of(read_file(twic));
  // Games repeated in a later file (duplicates, not stored twice), on another rank than their first copies.
  const std::string repeats =
      dir.write("repeats.pgn", join(twic_games, 100, 300) + join(twic_games, 2000, 2245));
  gb::test::build_both(dir, {carlsen, twic, repeats, "--max-ply", "30", "--index-games"}, 3);
  CHECK(info_json(dir.file("sharded.book"))["games"] == info_json(dir.file("one.book"))["games"]);
  CHECK(graphbook({"check", dir.file("sharded.book")}).status == 0);
  // The same stored games found, with their places in their files, for games of each input.
  for (const auto& [file, game] :
       {std::pair{twic, 1}, std::pair{twic, 1200}, std::pair{twic, 2245}, std::pair{carlsen, 7},
        std::pair{carlsen, 1500}, std::pair{repeats, 150}}) {
    INFO(file << " game " << game);
    const std::vector<std::string> args = {file, "--game", std::to_string(game), "--top", "3", "--json"};
    std::vector<std::string> m1 = {"match", dir.file("one.book")}, m2 = {"match", dir.file("sharded.book")};
    m1.insert(m1.end(), args.begin(), args.end());
    m2.insert(m2.end(), args.begin(), args.end());
    const Output a = graphbook(m1), b = graphbook(m2);
    INFO(a.err << b.err);
    REQUIRE(a.status == 0);
    const auto j = nlohmann::json::parse(a.out);
    REQUIRE(j["matches"].size() == 3);
    CHECK(j["matches"][0]["length"].get<int>() > 20);  // the game itself, stored
    CHECK(b.status == 0);
    CHECK(b.out == a.out);
  }
}

TEST_CASE("An MPI build of one file cut in byte ranges reports its bad games where one build does", "[mpi]") {
  TempDir dir("graphbook-mpi");
  // twic0920 with a bad move in three games, each in another rank's range.
  auto games = games_of(read_file(gb::test::data_path("pgn/small/twic0920.pgn")));
  for (std::size_t i : {100, 900, 1700}) {
    const std::size_t at = games[i].find(" 5.");
    REQUIRE(at != std::string::npos);
    games[i].insert(at + 3, "Qz9 ");
  }
  const std::string bad = dir.write("bad.pgn", join(games, 0, games.size()));
  const Output one = graphbook({"build", dir.file("one.book"), bad, "--quiet"});
  REQUIRE(one.status == 0);
  const Output o = mpi_build(4, {dir.file("sharded.book"), bad});
  INFO(o.err);
  REQUIRE(o.status == 0);
  const auto lines = sorted_lines(o.err);
  CHECK(lines.size() == 3);  // each bad game once, as the build numbers it in the file
  CHECK(lines == sorted_lines(one.err));
  CHECK(info_json(dir.file("sharded.book"))["bad_games_skipped"] == 3);

  Output merged = graphbook({"merge", dir.file("merged.book"), dir.file("sharded.book"), "--quiet"});
  REQUIRE(merged.status == 0);
  CHECK(exported(dir.file("merged.book"), dir.file("merged.bin")) ==
        exported(dir.file("one.book"), dir.file("one.bin")));
}

TEST_CASE("build --mpi refuses what it does not support, and writes nothing", "[mpi]") {
  TempDir dir("graphbook-mpi");
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  const std::string book = dir.file("new.book");
  struct Refusal {
    std::vector<std::string> args;
    std::string says;
  };
  const std::string existing = dir.write("existing.book", "");
  const std::vector<Refusal> refusals = {
      {{existing, twic}, "exists: --mpi writes a new sharded book only"},
      {{book, "-"}, "--mpi reads files, not stdin"},
      {{book, dir.file("absent.pgn")}, "cannot read"},
  };
  for (const Refusal& r : refusals) {
    INFO(r.says);
    Output o = mpi_build(2, r.args);
    INFO(o.err);
    CHECK(o.status == 2);
    CHECK(o.err.find(r.says) != std::string::npos);
    CHECK_FALSE(exists(book));
  }
  CHECK(read_file(existing).empty());

  // A directory without a manifest (a build that did not finish) is no book.
  REQUIRE(::mkdir(book.c_str(), 0777) == 0);
  Output merge = graphbook({"merge", dir.file("out.book"), book});
  CHECK(merge.status == 2);
  CHECK(merge.err.find("without manifest.json") != std::string::npos);
  Output info = graphbook({"info", book});
  CHECK(info.status == 2);
  CHECK_FALSE(exists(dir.file("out.book")));
}

TEST_CASE("An MPI build stopped part way leaves no book, or the whole book, and nothing outside BOOK",
          "[mpi]") {
  TempDir dir("graphbook-mpi-kill");
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn");
  build({dir.file("one.book"), twic});
  const nlohmann::json one = info_json(dir.file("one.book"));
  int whole = 0, none = 0;
  // Stopped with SIGTERM (what Ctrl-C or a scheduler sends mpirun) from at once to after the build ends.
  for (int ms : {0, 150, 400, 800, 1500, 3000, 8000}) {
    INFO("stopped after " << ms << " ms");
    const std::string book = dir.file("sharded-" + std::to_string(ms) + ".book");
    const pid_t pid =
        gb::test::spawn(gb::test::mpi_build_argv(3, {book, twic}), dir.file("out"), dir.file("err"));
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    ::kill(pid, SIGTERM);
    (void)gb::test::wait_status(pid);
    if (!exists(book)) {  // stopped before rank 0 made the directory
      ++none;
    } else if (exists(book + "/manifest.json")) {
      ++whole;
      const nlohmann::json sharded = info_json(book);
      CHECK(sharded["games"] == one["games"]);
      CHECK(sharded["edges"] == one["edges"]);
      CHECK(graphbook({"check", book}).status == 0);
    } else {
      ++none;
      Output probe = graphbook({"probe", book});
      CHECK(probe.status == 2);
      CHECK(probe.err.find("not a sharded book") != std::string::npos);
    }
  }
  // Whatever a stopped build left is inside its BOOK directory: beside it, only what the test wrote.
  std::vector<std::string> stray;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("sharded-", 0) != 0 && name.rfind("one.book", 0) != 0 && name != "out" && name != "err")
      stray.push_back(name);
  }
  CHECK(stray == std::vector<std::string>{});
  INFO(whole << " whole books, " << none << " stopped before the manifest");
  CHECK(none > 0);
}
