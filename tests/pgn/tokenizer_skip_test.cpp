// The tokenizer's fast skip of a game's rest (Tokenizer::skip_moves, for
// --max-ply) against the movetext loop it stands in for: a read that skips each
// game after N moves must end every game where a read that skips nothing does,
// with the same outcome and the same line counts from there on. The read that
// skips nothing never reaches skip_moves, so it is the reference.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "book/pgn/reader.h"
#include "book/pgn/tokenizer.h"
#include "shared_data.h"
#include "test_data.h"

using namespace gb;
using namespace gb::pgn;

namespace {

// Writes the tokenizer's events down; after skip_after moves of a game (at its
// movetext for 0) it asks to skip the rest. Variations are skipped by both reads
// (a read that follows one tokenizes it, a skipped game scans over it).
struct RawLog {
  int skip_after = -1;  // -1: never skip
  int sans = 0;
  std::vector<std::string> events;

  void raw_begin_game(std::uint64_t line) {
    sans = 0;
    events.push_back("game at line " + std::to_string(line));
  }
  void raw_tag(std::string_view n, std::string_view v) {
    events.push_back("tag " + std::string(n) + "=" + std::string(v));
  }
  Control raw_end_tags() {
    events.push_back("movetext");
    return skip_after == 0 ? Control::Skip : Control::Continue;
  }
  Control raw_san(std::string_view s, std::uint64_t line, std::uint32_t col) {
    events.push_back("san " + std::string(s) + " at " + std::to_string(line) + ":" + std::to_string(col));
    return ++sans == skip_after ? Control::Skip : Control::Continue;
  }
  void raw_nag(int n) { events.push_back("nag " + std::to_string(n)); }
  void raw_comment(std::string_view c) { events.push_back("comment " + std::string(c)); }
  Control raw_begin_variation() {
    events.push_back("(");
    return Control::Skip;
  }
  void raw_end_variation() { events.push_back(")"); }
  void raw_outcome(Outcome o) { events.push_back("outcome " + std::string(to_string(o))); }
  void raw_end_game() { events.push_back("end"); }
};

std::vector<std::string> tokenize(ByteSource source, std::size_t buffer_size, int skip_after) {
  Tokenizer t(std::move(source), buffer_size);
  RawLog log;
  log.skip_after = skip_after;
  while (t.read_game(log)) {
  }
  return log.events;
}

// What a read that skips after n moves must see, from a read that skips
// nothing: each game's events up to its n-th move (its movetext for 0), then
// only its outcome and its end.
std::vector<std::string> cut_after(const std::vector<std::string>& full, int n) {
  std::vector<std::string> out;
  bool skipped = false;
  int sans = 0;
  for (const auto& e : full) {
    if (e.rfind("game ", 0) == 0) skipped = false, sans = 0;
    if (!skipped || e.rfind("outcome ", 0) == 0 || e == "end") out.push_back(e);
    if (e == "movetext" && n == 0) skipped = true;
    if (e.rfind("san ", 0) == 0 && ++sans == n) skipped = true;
  }
  return out;
}

const int kSkipAfter[] = {0, 1, 2, 3, 5, 40};

void check_same_games(const std::string& text, std::size_t buffer_size) {
  auto full = tokenize(ByteSource::from_memory(text), buffer_size, -1);
  for (int n : kSkipAfter) {
    INFO("buffer size " << buffer_size << ", skipping after " << n << " moves");
    CHECK(tokenize(ByteSource::from_memory(text), buffer_size, n) == cut_after(full, n));
  }
}

// A game whose first move is illegal, and a good one: their line numbers and
// error locations show that the line count is right after the game before.
const std::string kFollowing =
    "\n[Event \"bad\"]\n\n1. e5 e4 *\n\n[Event \"good\"]\n[Result \"0-1\"]\n\n1. d4 d5\n2. c4 0-1\n";

// Inputs where a scan that looks at the wrong bytes ends a game early, late or
// on the wrong line. All moves are legal: the reader-level test uses them too.
const std::vector<std::string> kTricky = {
    // Results, '[' and '*' inside brace comments; a ';' comment holding '}' and a result.
    "[Event \"c\"]\n\n1. e4 {1-0 [Event \"x\"] * 0-1\n1/2-1/2\n} e5 2. Nf3 ; } 1-0 [x\nNc6 3. Bb5 a6 "
    "1/2-1/2\n",
    // '%' escape lines at column 1 hide results and brackets; elsewhere '%' is one byte.
    "1. e4 e5\n%escape 1-0 [x *\n2. Nf3 Nc6 *\n",
    "1. e4 e5 %1-0 2. Nf3 *\n",
    // Nested variations with result-looking tokens, comments and '%' inside.
    "1. e4 e5 (1... c5 {1-0} (1... e6 0-1 ) 2. Nf3 * ) 2. Nf3 (2. Nc3 1/2-1/2 {)} ; )\n) Nc6 0-1\n",
    // CRLF, blank lines in the movetext, tabs, form feeds.
    "[Event \"crlf\"]\r\n\r\n1. e4 e5\r\n\r\n2. Nf3\tNc6\f\v3. Bb5 a6 1-0\r\n",
    // Results glued to move numbers and glyphs, or followed by a dot.
    "1. e4 e5 2.1-0\n",
    "1. e4 e5 2. Nf3 2...*\n",
    "1. e4! e5?!1-0\n",
    "1. e4 e5!1-0\n",
    "1. e4 e5?1-0\n",
    // Stray closing brackets glued to results.
    "1. e4 e5 ]1-0\n",
    "1. e4 e5 }0-1\n",
    "1. e4 e5 )*\n",
    // An empty NAG before a result.
    "1. e4 e5 $*\n",
    "1. e4 e5 2. Nf3 1/2-1/2.\n",
    "1. e4 e5 2. Nf3 1-0.\n",
    // Stray closing brackets, dots, move numbers with spaces and without.
    "1. e4 ) e5 ] } ... 2.Nf3 2...Nc6 3 . Bb5 *\n",
    // The next game's '[' ends the movetext, on its own line or after a move.
    "1. e4 e5 2. Nf3\n[Event \"next\"]\n\n1. d4 *\n",
    "1. e4 e5 [Event \"next\"]\n1. d4 *\n",
    // A move number longer than the smallest buffer, a result glued to it.
    "1. e4 e5 2. Nf3 12345678901234567890123456789012345.1-0\n",
    // A comment longer than the smallest buffer, with newlines in it.
    "1. e4 {a comment\nlonger than\nthe buffer, 1-0, [x]\n} e5 {\n} 2. Nf3 {}{}{} 1-0\n",
};

// Tokens that are neither moves nor results, so a read that skips nothing
// reports them as bad moves (and skips the rest itself): for the tokenizer only.
const std::vector<std::string> kOddTokens = {
    "1. e4 e5 2. Nf3%1-0 Nc6 3. Bb5 0-1\n",
    "1. e4 $1 e5 $10-1 2. Nf3 *\n",
    "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 0-0 1-0e4 10-1 01-0 1-0-1 0.5-0.5 1/2\n",
    // A NAG that swallows a digit; a token longer than the smallest buffer, with a
    // result inside and after it.
    "1. e4 e5 2. Nf3 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx1-0yyyyyyyyyyyyyyyyyyyy 1-0 2. d4 *\n",
};

// Inputs that end inside something: nothing may follow them.
const std::vector<std::string> kUnterminated = {
    "1. e4 e5 2. Nf3 {unterminated 1-0\n",
    "1. e4 e5 2. Nf3 ; at the end of the input 1-0",
    "1. e4 e5 2. Nf3 (2. Nc3 1-0\n",
    "1. e4 e5 2. Nf3",
    "1. e4 e5 2. Nf3 1-",
    "1. e4 e5 2. Nf3 1-0",
    "1. e4 e5 2. Nf3 12.",
    "1. e4 e5 2. Nf3 *",
    "1. e4 e5\n%escape at the end",
};

const std::size_t kBufferSizes[] = {16, 17, 19, 23, 31, 64, 1 << 20};

}  // namespace

TEST_CASE("A skipped game ends where a read game ends, on tricky movetext", "[pgn]") {
  for (const auto* inputs : {&kTricky, &kOddTokens}) {
    for (const auto& t : *inputs) {
      INFO(t);
      for (std::size_t size : kBufferSizes) {
        check_same_games(t + kFollowing, size);
        check_same_games(t + kFollowing + t, size);
      }
    }
  }
  for (const auto& t : kUnterminated) {
    INFO(t);
    for (std::size_t size : kBufferSizes) check_same_games(kFollowing + t, size);
  }
  std::string all;
  for (const auto& t : kTricky) all += t + "\n";
  for (const auto& t : kOddTokens) all += t + "\n";
  for (std::size_t size : kBufferSizes) check_same_games(all + kFollowing, size);
}

TEST_CASE("A skipped game ends where a read game ends, at every buffer cut", "[pgn]") {
  // Every size from 16 to past the input: each token and each result in turn
  // is split by a refill.
  std::string text = kFollowing;
  for (const auto* inputs : {&kTricky, &kOddTokens})
    for (const auto& t : *inputs) text += t;
  for (std::size_t size = 16; size <= text.size() + 1; ++size) check_same_games(text, size);
}

TEST_CASE("A skipped game ends where a read game ends, in the PGN files of the test data", "[pgn]") {
  namespace fs = std::filesystem;
  int files = 0;
  for (const char* dir : {"pgn/small", "pgn/python-chess", "pgn/annotated", "malformed"}) {
    for (const auto& entry : fs::recursive_directory_iterator(test::data_path(dir))) {
      std::string path = entry.path().string();
      if (!entry.is_regular_file() || path.ends_with(".tsv")) continue;
      INFO(path);
      ++files;
      for (std::size_t size : {std::size_t(61), std::size_t(1) << 20}) {
        auto full = tokenize(ByteSource::open(path), size, -1);
        for (int n : {0, 1, 40}) {
          INFO("buffer size " << size << ", skipping after " << n << " moves");
          CHECK(tokenize(ByteSource::open(path), size, n) == cut_after(full, n));
        }
      }
    }
  }
  CHECK(files > 30);  // the collections are there
}

TEST_CASE("A skipped game ends where a read game ends, in the TCEC collection", "[pgn][slow]") {
  std::string path = test::shared_data_path("pgn/medium/tcec-standard-nocomments.pgn.zst");
  if (path.empty()) return;  // reported skipped
  auto full = tokenize(ByteSource::open(path), std::size_t(1) << 16, -1);
  for (int n : {0, 40}) {
    INFO("skipping after " << n << " moves");
    CHECK(tokenize(ByteSource::open(path), std::size_t(1) << 16, n) == cut_after(full, n));
  }
}

namespace {

// The reader's view: games, their start lines and outcomes, and the errors.
struct GameLog : VisitorBase {
  int max_ply = -1;  // -1: read every move
  std::vector<std::string> games;
  void begin_game(const GameLocation& loc) {
    games.push_back("game " + std::to_string(loc.game_number) + " at line " + std::to_string(loc.line));
  }
  Control begin_movetext(const Position&) { return max_ply == 0 ? Control::Skip : Control::Continue; }
  Control move(const MoveEvent& e) { return e.ply + 1 == max_ply ? Control::Skip : Control::Continue; }
  void outcome(Outcome o) { games.push_back("outcome " + std::string(to_string(o))); }
};

struct Reading {
  std::vector<std::string> games;
  std::vector<std::string> errors;
  std::uint64_t games_read = 0;
};

Reading read(const std::string& text, std::size_t buffer_size, int max_ply) {
  ReadOptions options;
  options.buffer_size = buffer_size;
  PgnReader reader(ByteSource::from_memory(text, "t.pgn"), options);
  GameLog v;
  v.max_ply = max_ply;
  reader.read_all(v);
  Reading r{v.games, {}, reader.summary().games_read};
  for (const auto& e : reader.summary().stored_errors) r.errors.push_back(e.message());
  return r;
}

}  // namespace

TEST_CASE("A reader that stops after N plies sees the games, results and error lines of a full read",
          "[pgn]") {
  for (const auto& t : kTricky) {
    INFO(t);
    std::string text = t + kFollowing + t + kFollowing;
    for (std::size_t size : {std::size_t(16), std::size_t(23), std::size_t(1) << 20}) {
      auto full = read(text, size, -1);
      REQUIRE(full.errors.size() == 2);  // the two bad games' first moves, nothing else
      for (int n : {0, 1, 2, 5, 40}) {
        INFO("buffer size " << size << ", max ply " << n);
        auto cut = read(text, size, n);
        CHECK(cut.games_read == full.games_read);
        CHECK(cut.games == full.games);
        // A bad first move is read unless the whole movetext is skipped.
        if (n > 0) CHECK(cut.errors == full.errors);
        if (n == 0) CHECK(cut.errors.empty());
      }
    }
  }
}
