// Splitting PGN input at game boundaries, so that several threads can each
// read a part with their own PgnReader.
//
// A boundary is the start of a line that begins with "[Event ", or of any '['
// line that follows a blank line. Parts are contiguous and cover the input;
// there may be fewer parts than asked for (small input, few boundaries).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/pgn/byte_source.h"

namespace gb::pgn {

struct ByteRange {
  std::uint64_t begin = 0, end = 0;
  std::uint64_t first_line = 1;  // the line number of begin (for error locations)
};

// Why a file could not be split: the step that failed, the file, and the
// system's reason (an errno code).
struct SplitError {
  enum class Step { Open, Seek, Read };
  Step step = Step::Open;
  std::string path;
  int system_error = 0;
  // "cannot open PATH: No such file or directory" (seek in, read).
  std::string message() const;
};

// Splits text held in memory into at most parts ranges.
std::vector<ByteRange> split_at_game_boundaries(std::string_view text, std::size_t parts);

// The same for an uncompressed file, reading only around the split points and
// once through the file to count lines. nullopt (with *error set, when given)
// when the file cannot be opened, seeked in or read. Read each part with
// ByteSource::open_range and PgnReader::set_start(range.first_line, 0).
[[nodiscard]] std::optional<std::vector<ByteRange>> split_file_at_game_boundaries(
    const std::string& path, std::size_t parts, SplitError* error = nullptr);

// The first boundary at or after offset in text; text.size() when there is none.
std::size_t next_game_boundary(std::string_view text, std::size_t offset);
// The last boundary after 0 in text, or 0 when there is none: where a block
// read from a stream is cut, the rest going to the next block.
std::size_t last_game_boundary(std::string_view text);

// Reads source in blocks of about block_size bytes, each cut at its last game
// boundary (the rest starts the next block): on_bytes(data, n) sees every
// read as it comes, on_block(text, first_line) each block, and a false from
// it stops the reading. A block without a boundary (a game longer than a
// block, or a file that is not PGN) grows, or the reader would look for a
// boundary in the same bytes forever.
template <class OnBytes, class OnBlock>
void read_game_blocks(ByteSource& source, std::size_t block_size, OnBytes&& on_bytes, OnBlock&& on_block) {
  constexpr std::size_t kRead = std::size_t(1) << 18;  // bytes per read from the source
  std::string buffer;
  std::uint64_t line = 1;
  bool eof = false;
  std::size_t want = block_size;
  while (!eof || !buffer.empty()) {
    while (!eof && buffer.size() < want) {
      const std::size_t had = buffer.size();
      buffer.resize(had + kRead);
      const std::size_t n = source.read(buffer.data() + had, kRead);
      buffer.resize(had + n);
      if (n == 0) {
        eof = true;
        break;
      }
      on_bytes(buffer.data() + had, n);
    }
    const std::size_t cut = eof ? buffer.size() : last_game_boundary(buffer);
    if (cut == 0 && !eof) {  // one game larger than a block: read on, twice as far
      want = buffer.size() * 2;
      continue;
    }
    want = block_size;
    if (!on_block(std::string_view(buffer).substr(0, cut), line)) return;
    line += std::uint64_t(std::count(buffer.begin(), buffer.begin() + std::ptrdiff_t(cut), '\n'));
    buffer.erase(0, cut);
  }
}

}  // namespace gb::pgn
