// Splitting PGN input at game boundaries, so that several threads can each
// read a part with their own PgnReader.
//
// A boundary is the start of a line that begins with "[Event ", or of any '['
// line that follows a blank line. Parts are contiguous and cover the input;
// there may be fewer parts than asked for (small input, few boundaries).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
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
// boundary (the rest starts the next block). A block stays valid while the
// next one is read, up to the call of next() after that: a build parses one
// block while it reads the next (builder/build.cpp). A block without a
// boundary (a game longer than a block, or a file that is not PGN) grows, or
// the reader would look for a boundary in the same bytes forever.
class GameBlockReader {
 public:
  struct Block {
    std::string_view text;
    std::uint64_t first_line = 1;  // the line number of text's first byte
  };
  GameBlockReader(ByteSource& source, std::size_t block_size) : source_(source), block_size_(block_size) {}
  GameBlockReader(const GameBlockReader&) = delete;
  GameBlockReader& operator=(const GameBlockReader&) = delete;

  // The next block, or nullopt at the end of the source (or when it cannot
  // be read: then source.ok() is false). on_bytes(data, n) sees every read
  // as it comes.
  template <class OnBytes>
  std::optional<Block> next(OnBytes&& on_bytes);

 private:
  static constexpr std::size_t kRead = std::size_t(1) << 18;  // bytes per read from the source
  // Bytes read, in memory that is not cleared before the source fills it
  // (a std::string zeroes what it grows by: a pass over every byte of the
  // input, on the thread that reads, besides the read's own copy).
  struct Buffer {
    std::unique_ptr<char[]> bytes;
    std::size_t size = 0, capacity = 0;
    // Room for n bytes at least; the first size are kept.
    void reserve(std::size_t n) {
      if (n <= capacity) return;
      capacity = std::max(n, 2 * capacity);
      std::unique_ptr<char[]> more(new char[capacity]);
      if (size) std::memcpy(more.get(), bytes.get(), size);
      bytes = std::move(more);
    }
    std::string_view view() const { return {bytes.get(), size}; }
  };
  ByteSource& source_;
  std::size_t block_size_;
  Buffer buffers_[2];       // the block handed out last, and the one being read
  int current_ = 0;         // which buffer holds the block handed out last
  std::size_t cut_ = 0;     // where it ends in its buffer: the rest starts the next block
  std::uint64_t line_ = 1;  // the line number of the next block
  bool eof_ = false;
};

template <class OnBytes>
std::optional<GameBlockReader::Block> GameBlockReader::next(OnBytes&& on_bytes) {
  const Buffer& last = buffers_[current_];
  Buffer& buffer = buffers_[1 - current_];
  line_ += std::uint64_t(std::count(last.bytes.get(), last.bytes.get() + cut_, '\n'));
  // The rest of the last block's buffer starts this one.
  buffer.size = 0;
  buffer.reserve(last.size - cut_);
  if (last.size > cut_) std::memcpy(buffer.bytes.get(), last.bytes.get() + cut_, last.size - cut_);
  buffer.size = last.size - cut_;
  std::size_t want = block_size_;
  for (;;) {
    while (!eof_ && buffer.size < want) {
      buffer.reserve(buffer.size + kRead);
      char* into = buffer.bytes.get() + buffer.size;
      const std::size_t n = source_.read(into, kRead);
      if (n == 0) {
        eof_ = true;
        break;
      }
      buffer.size += n;
      on_bytes(into, n);
    }
    if (buffer.size == 0) {  // the end: a next call finds it again
      current_ = 1 - current_;
      cut_ = 0;
      return std::nullopt;
    }
    const std::size_t cut = eof_ ? buffer.size : last_game_boundary(buffer.view());
    if (cut == 0 && !eof_) {  // one game larger than a block: read on, twice as far
      want = buffer.size * 2;
      continue;
    }
    current_ = 1 - current_;
    cut_ = cut;
    return Block{buffer.view().substr(0, cut), line_};
  }
}

// Reads source block by block (GameBlockReader): on_bytes(data, n) sees every
// read as it comes, on_block(text, first_line) each block, and a false from
// it stops the reading.
template <class OnBytes, class OnBlock>
void read_game_blocks(ByteSource& source, std::size_t block_size, OnBytes&& on_bytes, OnBlock&& on_block) {
  GameBlockReader blocks(source, block_size);
  while (auto block = blocks.next(on_bytes))
    if (!on_block(block->text, block->first_line)) return;
}

}  // namespace gb::pgn
