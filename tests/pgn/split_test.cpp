// Splitting PGN at game boundaries for parallel reading.
#include "book/pgn/split.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>

#include "book/pgn/game_record.h"
#include "temp_dir.h"
#include "test_data.h"

using namespace gb::pgn;

namespace {

ReadSummary read_range(ByteSource source, const ByteRange& r, std::uint64_t& games) {
  PgnReader reader(std::move(source));
  reader.set_start(r.first_line, 0);
  struct V : VisitorBase {
    std::uint64_t* games;
    void end_game(const GameEnd&) { ++*games; }
  } v;
  v.games = &games;
  reader.read_all(v);
  return reader.summary();
}
}  // namespace

TEST_CASE("Parts split at game boundaries read the same games as the whole", "[pgn]") {
  std::string path = gb::test::data_path("pgn/small/twic0920.pgn");
  std::string text = gb::test::read_file(path);
  for (std::size_t parts : {1, 2, 3, 7}) {
    INFO(parts << " parts");
    auto ranges = split_at_game_boundaries(text, parts);
    CHECK(ranges.size() == parts);
    CHECK(ranges.front().begin == 0);
    CHECK(ranges.back().end == text.size());
    ReadSummary total;
    std::uint64_t games = 0;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      if (i > 0) CHECK(ranges[i].begin == ranges[i - 1].end);
      CHECK(text.compare(ranges[i].begin, 7, "[Event ") == 0);
      std::string_view part(text.data() + ranges[i].begin, ranges[i].end - ranges[i].begin);
      total.merge(read_range(ByteSource::from_memory(part), ranges[i], games));
    }
    CHECK(games == 2245);
    CHECK(total.plies == 182591);  // the sum of the oracle's ply column
  }
}

TEST_CASE("File ranges split at game boundaries carry their first line numbers", "[pgn]") {
  std::string path = gb::test::data_path("pgn/small/twic0920.pgn");
  std::string text = gb::test::read_file(path);
  auto ranges = split_file_at_game_boundaries(path, 2);
  REQUIRE(ranges);
  REQUIRE(ranges->size() == 2);
  auto in_memory = split_at_game_boundaries(text, 2);
  CHECK((*ranges)[1].begin == in_memory[1].begin);
  CHECK((*ranges)[1].first_line == in_memory[1].first_line);
  CHECK((*ranges)[1].first_line ==
        1 + std::uint64_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(in_memory[1].begin), '\n')));
  std::uint64_t games = 0;
  for (const ByteRange& r : *ranges) read_range(ByteSource::open_range(path, r.begin, r.end), r, games);
  CHECK(games == 2245);
}

TEST_CASE("A file that cannot be opened is no split: the error names the step, the file and the reason",
          "[pgn]") {
  const std::string path = gb::test::data_path("pgn/small/no-such-file.pgn");
  SplitError error;
  CHECK_FALSE(split_file_at_game_boundaries(path, 2, &error));
  CHECK(error.step == SplitError::Step::Open);
  CHECK(error.system_error == ENOENT);
  CHECK(error.message() == "cannot open " + path + ": " + std::strerror(ENOENT));
}

TEST_CASE("Opening lines without Event tags split at the blank line before a tag", "[pgn]") {
  std::string text = "[Result \"*\"]\n\n1. e4 *\n\n[Result \"*\"]\n\n1. d4 *\n\n[Result \"*\"]\n\n1. c4 *\n";
  auto ranges = split_at_game_boundaries(text, 2);
  REQUIRE(ranges.size() == 2);
  CHECK(text.compare(ranges[1].begin, 8, "[Result ") == 0);
  CHECK(ranges[1].first_line ==
        1 + std::uint64_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(ranges[1].begin), '\n')));
}

TEST_CASE("Input without boundaries stays one part", "[pgn]") {
  auto ranges = split_at_game_boundaries("1. e4 e5 *\n1. d4 *\n", 4);
  CHECK(ranges.size() == 1);
}

TEST_CASE("Blocks read from a stream cut at game boundaries, and each stays whole while the next is read",
          "[pgn]") {
  const std::string twic = gb::test::read_file(gb::test::data_path("pgn/small/twic0920.pgn"));
  REQUIRE(twic.size() > 1000000);
  // A game of 800 KB, its moves in a comment, between two copies of the
  // collection: the block that reaches it grows to hold it whole.
  const std::string long_game =
      "[Event \"long\"]\n[Result \"*\"]\n\n1. e4 {" + std::string(800000, 'x') + "} *\n\n";
  gb::test::TempDir dir;
  const std::string path = dir.write("blocks.pgn", twic + long_game + twic);
  const std::string text = gb::test::read_file(path);
  REQUIRE(text.size() == 2 * twic.size() + long_game.size());
  // Reads come 256 KiB at a time, so blocks of 10 bytes are about 256 KiB.
  for (std::size_t block_size : {std::size_t(10), std::size_t(1) << 19, std::size_t(1) << 23}) {
    INFO("blocks of " << block_size << " bytes");
    ByteSource source = ByteSource::open(path);
    REQUIRE(source.ok());
    GameBlockReader reader(source, block_size);
    std::size_t read = 0, offset = 0, blocks = 0, longest = 0;
    std::uint64_t games = 0;
    ReadSummary total;
    std::string before;  // a copy of the block before
    std::string_view before_view;
    auto on_bytes = [&](const char*, std::size_t n) { read += n; };
    while (auto block = reader.next(on_bytes)) {
      ++blocks;
      longest = std::max(longest, block->text.size());
      // The block before is still there, unchanged, now that this one is read.
      CHECK(before_view == before);
      REQUIRE(offset + block->text.size() <= text.size());
      CHECK(block->text == std::string_view(text).substr(offset, block->text.size()));
      CHECK(text.compare(offset, 7, "[Event ") == 0);
      CHECK(block->first_line ==
            1 + std::uint64_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n')));
      total.merge(
          read_range(ByteSource::from_memory(block->text), ByteRange{0, 0, block->first_line}, games));
      offset += block->text.size();
      before.assign(block->text);
      before_view = block->text;
    }
    CHECK(offset == text.size());
    CHECK(read == text.size());
    CHECK(!reader.next(on_bytes));  // the end stays the end
    CHECK(games == 2 * 2245 + 1);
    CHECK(total.plies == 2 * 182591 + 1);  // the sum of the oracle's ply column, twice, and 1. e4
    CHECK(total.errors == 0);
    CHECK(longest >= long_game.size());
    if (block_size < text.size())
      CHECK(blocks >= text.size() / (std::max(block_size, std::size_t(1) << 18) * 2));
  }
}
