// graphbook analyse: engine evaluations of a book's positions, checked against
// Stockfish run directly by the test, resumed, and killed mid-run.
#include <signal.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/uci_engine.h"
#include "run_graphbook.h"
#include "temp_dir.h"
#include "test_data.h"

namespace {

using gb::test::graphbook;
using gb::test::quote;
using gb::test::Run;

const char* const kStockfish = "/usr/games/stockfish";

// A book of twic0920's first plies: enough positions for a few batches.
std::string small_book(const gb::test::TempDir& dir, int max_ply) {
  std::string book = dir.file("twic.book");
  Run r = graphbook("build " + quote(book) + " " + quote(gb::test::data_path("pgn/small/twic0920.pgn")) +
                    " --max-ply " + std::to_string(max_ply) + " --quiet");
  REQUIRE(r.status == 0);
  return book;
}

nlohmann::json probe_json(const std::string& book, const std::string& where) {
  Run r = graphbook("probe " + quote(book) + " " + where + " --json --no-names");
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE(!j.is_discarded());
  return j;
}

// What Stockfish says of fen at depth when the test drives it itself, with
// the settings analyse is given: one thread, 16 MB of hash, a new game first.
// The shell keeps Stockfish's input open until it printed bestmove (an
// engine that reads the end of its input stops searching); the loop waits
// for a file, the 60 s deadline only stops a hang.
struct Direct {
  std::string kind;  // "cp" or "mate"
  int score = 0;
  std::string best;
};
Direct stockfish_directly(const std::string& fen, int depth) {
  gb::test::TempDir dir("graphbook-sf");
  std::string out = dir.file("out");
  std::string script =
      "{ printf 'uci\\nsetoption name Threads value 1\\nsetoption name Hash value 16\\n"
      "ucinewgame\\nisready\\nposition fen " +
      fen + "\\ngo depth " + std::to_string(depth) + "\\n'; for i in $(seq 1200); do grep -q '^bestmove' " +
      out + " && break; sleep 0.05; done; echo quit; } | " + kStockfish + " > " + out;
  REQUIRE(gb::test::run_shell(script).status == 0);
  std::istringstream lines(gb::test::read_file(out));
  Direct d;
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string w;
    words >> w;
    if (w == "bestmove") {
      words >> d.best;
      continue;
    }
    if (w != "info" || line.find(" score ") == std::string::npos || line.find("bound") != std::string::npos)
      continue;
    while (words >> w)
      if (w == "score") words >> d.kind >> d.score;
  }
  return d;
}

}  // namespace

TEST_CASE("An info line's score, depth and nodes are read, and bounds and other multipv lines are told apart",
          "[analysis]") {
  auto info = gb::analysis::parse_search_info(
      "info depth 12 seldepth 17 multipv 1 score cp -35 nodes 45210 nps 900000 hashfull 10 tbhits 0 time 50 "
      "pv "
      "e7e5 g1f3");
  REQUIRE(info);
  CHECK(info->kind == gb::store::Evaluation::Kind::Centipawns);
  CHECK(info->score == -35);
  CHECK(info->depth == 12);
  CHECK(info->nodes == 45210);
  CHECK(!info->bound);
  auto mate = gb::analysis::parse_search_info("info depth 5 score mate -2 nodes 10 pv e2e4");
  REQUIRE(mate);
  CHECK(mate->kind == gb::store::Evaluation::Kind::Mate);
  CHECK(mate->score == -2);
  auto bound = gb::analysis::parse_search_info("info depth 9 score cp 20 lowerbound nodes 5");
  REQUIRE(bound);
  CHECK(bound->bound);
  CHECK(!gb::analysis::parse_search_info("info depth 9 multipv 2 score cp 20 nodes 5"));
  CHECK(!gb::analysis::parse_search_info("info string score cp 20"));
  CHECK(!gb::analysis::parse_search_info("info depth 9 currmove e2e4"));
}

TEST_CASE("analyse stores the score and best move Stockfish gives the same FEN at the same fixed depth",
          "[analysis]") {
  gb::test::TempDir dir("graphbook-analyse");
  std::string book = small_book(dir, 4);
  Run r = graphbook("analyse " + quote(book) + " --engine " + kStockfish +
                    " --depth 10 --plies 1 --jobs 2 --engine-option Threads=1 --engine-option Hash=16");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  // The start position and every book move from it.
  auto root = probe_json(book, "");
  std::vector<std::string> where{""};
  for (const auto& m : root["moves"]) where.push_back("--moves " + m["uci"].get<std::string>());
  REQUIRE(where.size() > 5);
  for (const std::string& w : where) {
    auto j = probe_json(book, w);
    INFO(j["fen"].get<std::string>());
    REQUIRE(j["eval"].is_object());
    Direct direct = stockfish_directly(j["fen"], 10);
    REQUIRE(!direct.kind.empty());
    CHECK(j["eval"]["depth"] == 10);
    CHECK(j["eval"].contains(direct.kind));
    CHECK(j["eval"].value(direct.kind, 99999) == direct.score);
    CHECK(j["eval"]["best"] == direct.best);
    CHECK(j["eval"]["engine"].get<std::string>().rfind("Stockfish", 0) == 0);
  }
  // Two plies down is below --plies 1: not analysed.
  std::string two =
      root["moves"][0]["uci"].get<std::string>() + " " +
      probe_json(book, "--moves " + root["moves"][0]["uci"].get<std::string>())["moves"][0]["uci"]
          .get<std::string>();
  CHECK(probe_json(book, "--moves " + quote(two))["eval"].is_null());
}

TEST_CASE("A second analyse skips what is analysed as deep, and a deeper one replaces it", "[analysis]") {
  gb::test::TempDir dir("graphbook-analyse");
  std::string book = small_book(dir, 3);
  std::string args = "analyse " + quote(book) + " --plies 1 --min-games 3 --engine-option Threads=1";
  Run first = graphbook(args + " --depth 5");
  REQUIRE(first.status == 0);
  auto count = [](const std::string& out, const std::string& what) {
    auto at = out.find(what);
    REQUIRE(at != std::string::npos);
    std::size_t start = out.rfind(' ', at - 2) + 1;
    return std::stoul(out.substr(start, at - 1 - start));
  };
  std::size_t positions = count(first.out, "positions,");
  REQUIRE(positions > 5);
  CHECK(count(first.out, "analysed now") == positions);
  Run again = graphbook(args + " --depth 5");
  CHECK(count(again.out, "already analysed as deep") == positions);
  CHECK(count(again.out, "analysed now") == 0);
  Run deeper = graphbook(args + " --depth 7");
  CHECK(count(deeper.out, "analysed now") == positions);
  CHECK(probe_json(book, "")["eval"]["depth"] == 7);
  Run shallower = graphbook(args + " --depth 6");
  CHECK(count(shallower.out, "already analysed as deep") == positions);
  CHECK(probe_json(book, "")["eval"]["depth"] == 7);
}

TEST_CASE("analyse killed with SIGKILL keeps every committed evaluation and leaves a sound book",
          "[analysis]") {
  gb::test::TempDir dir("graphbook-analyse");
  std::string book = small_book(dir, 6);
  std::string pid_file = dir.file("pid");
  // In the background; the start position is the first searched, in the first batch.
  Run started = gb::test::run_shell(
      "'" + gb::test::graphbook_binary() + "' analyse " + quote(book) +
      " --depth 9 --jobs 2 --engine-option Threads=1 >/dev/null 2>&1 & echo $! > " + quote(pid_file));
  REQUIRE(started.status == 0);
  pid_t pid = std::stoi(gb::test::read_file(pid_file));
  nlohmann::json committed;
  for (int i = 0; i < 600 && committed.is_null(); ++i) {  // 60 s: only stops a hang
    committed = probe_json(book, "")["eval"];
    if (committed.is_null()) gb::test::run_shell("sleep 0.1");
  }
  REQUIRE(committed.is_object());
  REQUIRE(::kill(pid, SIGKILL) == 0);
  gb::test::run_shell("while kill -0 " + std::to_string(pid) + " 2>/dev/null; do sleep 0.05; done");
  Run check = graphbook("check " + quote(book));
  INFO(check.out);
  CHECK(check.status == 0);
  CHECK(probe_json(book, "")["eval"] == committed);
  // The rest is analysed by the next run; what was stored is not searched again.
  Run rest = graphbook("analyse " + quote(book) + " --depth 9 --jobs 2 --engine-option Threads=1 --plies 2");
  CHECK(rest.status == 0);
  CHECK(rest.out.find(" 0 already analysed") == std::string::npos);
}

TEST_CASE("analyse stopped by SIGINT commits what it searched, says so and exits 130", "[analysis]") {
  gb::test::TempDir dir("graphbook-analyse");
  std::string book = small_book(dir, 4);
  std::string gb = quote(gb::test::graphbook_binary());
  // One shell runs analyse in the background, waits (at most 60 s, only against a hang) until the first
  // batch is in the book, interrupts it and records its exit status.
  std::string script = gb + " analyse " + quote(book) + " --depth 9 --engine-option Threads=1 > " +
                       quote(dir.file("out")) + " 2>&1 & pid=$!; for i in $(seq 600); do " + gb + " probe " +
                       quote(book) +
                       " --json --no-names | grep -q '\"engine\"' && break; sleep 0.1; done; kill -INT " +
                       "$pid; wait $pid; echo $? > " + quote(dir.file("status"));
  REQUIRE(gb::test::run_shell(script).status == 0);
  CHECK(gb::test::read_file(dir.file("status")) == "130\n");
  std::string out = gb::test::read_file(dir.file("out"));
  INFO(out);
  CHECK(out.find("interrupted: run it again to continue") != std::string::npos);
  // What the interrupted run says it analysed is what the next run finds done.
  auto number_before = [](const std::string& text, const std::string& what) {
    auto at = text.find(what);
    REQUIRE(at != std::string::npos);
    std::size_t start = text.rfind(' ', at - 2) + 1;
    return std::stoul(text.substr(start, at - 1 - start));
  };
  std::size_t analysed = number_before(out, "analysed now");
  CHECK(analysed > 0);
  Run rest = graphbook("analyse " + quote(book) + " --depth 9 --engine-option Threads=1 --jobs 2");
  REQUIRE(rest.status == 0);
  CHECK(number_before(rest.out, "already analysed as deep") == analysed);
  CHECK(number_before(rest.out, "analysed now") + analysed == number_before(rest.out, "positions,"));
  CHECK(graphbook("check " + quote(book)).status == 0);
}
