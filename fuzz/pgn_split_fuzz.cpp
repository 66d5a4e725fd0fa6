// libFuzzer target for the game-boundary splitter (book/pgn/split.h): any
// bytes, any part count. The parts must be contiguous, cover the input, start
// at a boundary (or at 0), carry the right first line, and next_game_boundary
// must never go backwards: a caller that loops on it (the builder, the CQL
// runner) then always moves forward. The file splitter must cut where the
// in-memory one may. See docs/PGN.md.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "book/pgn/split.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// The ranges tile [0, size) in order, each non-empty, with first_line the
// 1-based line of its first byte.
void check_ranges(std::string_view text, const std::vector<gb::pgn::ByteRange>& ranges, std::size_t parts) {
  check(!ranges.empty());
  check(ranges.size() <= std::max<std::size_t>(parts, 1));
  std::uint64_t end = 0;
  for (const auto& r : ranges) {
    check(r.begin == end);
    check(r.end >= r.begin);
    check(r.end > r.begin || text.empty());
    const auto newlines = std::count(text.begin(), text.begin() + std::ptrdiff_t(r.begin), '\n');
    check(r.first_line == 1 + std::uint64_t(newlines));
    // Every cut after the first is a boundary: the next boundary from there is itself.
    if (r.begin > 0) check(gb::pgn::next_game_boundary(text, r.begin) == r.begin);
    end = r.end;
  }
  check(end == text.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t parts = std::size_t(data[0]) + 1;  // 1..256 parts
  const std::size_t probe = data[1];
  std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

  check_ranges(text, gb::pgn::split_at_game_boundaries(text, parts), parts);

  // next_game_boundary moves forward from every offset probed, and finds the
  // first boundary: from any offset up to it, it finds the same one.
  const std::size_t stride = 1 + probe + text.size() / 64;  // a bounded number of probes
  for (std::size_t off = 0; off <= text.size(); off += stride) {
    std::size_t b = gb::pgn::next_game_boundary(text, off);
    check(b >= off && b <= text.size());
    if (b < text.size()) check(gb::pgn::next_game_boundary(text, b) == b);
    if (text.size() <= 1024)
      for (std::size_t i = off + 1; i < b; ++i) check(gb::pgn::next_game_boundary(text, i) == b);
  }

  // The file splitter over the same bytes: the same tiling rules.
  static const std::string path = "/tmp/pgn_split_fuzz." + std::to_string(::getpid());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  auto file_ranges = gb::pgn::split_file_at_game_boundaries(path, parts);
  check(file_ranges.has_value());
  check_ranges(text, *file_ranges, parts);
  return 0;
}
