// Splitting PGN input at game boundaries, so that several threads can each
// read a part with their own PgnReader.
//
// A boundary is the start of a line that begins with "[Event ", or of any '['
// line that follows a blank line. Parts are contiguous and cover the input;
// there may be fewer parts than asked for (small input, few boundaries).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace gb::pgn
