#include "book/pgn/split.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gb::pgn {

namespace {
// Is the line starting at i a boundary? (i is 0 or follows a '\n'.)
bool is_boundary(std::string_view text, std::size_t i) {
  if (i >= text.size() || text[i] != '[') return false;
  if (text.substr(i, 7) == "[Event ") return true;
  // A blank line before: "\n\n" or "\n\r\n" ends just before i.
  if (i >= 2 && text[i - 1] == '\n' && text[i - 2] == '\n') return true;
  if (i >= 3 && text[i - 1] == '\n' && text[i - 2] == '\r' && text[i - 3] == '\n') return true;
  return false;
}
}  // namespace

std::size_t last_game_boundary(std::string_view text) {
  // Backwards in windows doubling from the end: a boundary is found by
  // reading lines forward from a point.
  for (std::size_t window = std::size_t(1) << 16;; window *= 2) {
    std::size_t from = window >= text.size() ? 1 : text.size() - window;
    std::size_t best = 0;
    for (std::size_t b = next_game_boundary(text, from); b < text.size(); b = next_game_boundary(text, b + 1))
      best = b;
    if (best > 0 || from == 1) return best;
  }
}

std::size_t next_game_boundary(std::string_view text, std::size_t offset) {
  if (offset == 0 && is_boundary(text, 0)) return 0;
  std::size_t i = offset == 0 ? 0 : offset - 1;  // the line must start at or after offset
  for (;;) {
    std::size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) return text.size();
    if (is_boundary(text, nl + 1)) return nl + 1;
    i = nl + 1;
  }
}

std::vector<ByteRange> split_at_game_boundaries(std::string_view text, std::size_t parts) {
  std::vector<ByteRange> out;
  parts = std::max<std::size_t>(parts, 1);
  std::size_t begin = 0;
  std::uint64_t line = 1;
  for (std::size_t k = 1; k <= parts && begin < text.size(); ++k) {
    std::size_t end =
        k == parts ? text.size() : next_game_boundary(text, std::max(begin + 1, text.size() / parts * k));
    if (end <= begin) continue;
    out.push_back(ByteRange{begin, end, line});
    if (end < text.size())  // (the last part's lines start no part)
      line += std::uint64_t(std::count(text.begin() + begin, text.begin() + end, '\n'));
    begin = end;
  }
  if (out.empty()) out.push_back(ByteRange{0, text.size(), 1});
  // Parts are contiguous and cover the input (split.h).
  assert(out.front().begin == 0 && out.back().end == text.size());
  assert(std::adjacent_find(out.begin(), out.end(), [](const ByteRange& a, const ByteRange& b) {
           return a.end != b.begin || a.begin >= a.end;
         }) == out.end());
  return out;
}

std::string SplitError::message() const {
  const char* what = "cannot open";
  switch (step) {
    case Step::Open: what = "cannot open"; break;
    case Step::Seek: what = "cannot seek in"; break;
    case Step::Read: what = "cannot read"; break;
  }
  return std::string(what) + " " + path + ": " + std::strerror(system_error);
}

std::optional<std::vector<ByteRange>> split_file_at_game_boundaries(const std::string& path,
                                                                    std::size_t parts, SplitError* error) {
  using Step = SplitError::Step;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  auto fail = [&](Step step) -> std::optional<std::vector<ByteRange>> {
    if (error) *error = SplitError{.step = step, .path = path, .system_error = errno};
    if (f) std::fclose(f);
    return std::nullopt;
  };
  if (!f) return fail(Step::Open);
  if (std::fseek(f, 0, SEEK_END) != 0) return fail(Step::Seek);
  long size_l = std::ftell(f);
  if (size_l < 0) return fail(Step::Seek);
  std::uint64_t size = std::uint64_t(size_l);
  parts = std::max<std::size_t>(parts, 1);

  // Find a boundary after each target offset, reading small windows there.
  std::vector<std::uint64_t> cuts;
  std::vector<char> buf(1 << 16);
  for (std::size_t k = 1; k < parts; ++k) {
    std::uint64_t target = size / parts * k;
    if (!cuts.empty()) target = std::max(target, cuts.back() + 1);
    std::uint64_t at = target >= 3 ? target - 3 : 0;  // look-behind for the blank line
    std::uint64_t found = size;
    while (at < size) {
      if (std::fseek(f, long(at), SEEK_SET) != 0) return fail(Step::Seek);
      std::size_t got = std::fread(buf.data(), 1, buf.size(), f);
      if (got == 0) break;
      std::string_view w(buf.data(), got);
      bool at_eof = at + got >= size;
      std::size_t i = 0;
      for (; (i = w.find('\n', i)) != std::string_view::npos; ++i) {
        if (at + i + 1 < target) continue;
        if (i + 8 > got && !at_eof) break;  // "[Event " may straddle the window
        if (is_boundary(w, i + 1)) {
          found = at + i + 1;
          break;
        }
      }
      if (found != size || at_eof) break;
      at += got > 16 ? got - 16 : got;
    }
    if (found >= size) break;
    cuts.push_back(found);
  }
  // Line numbers of the cuts: one pass counting line ends.
  std::vector<std::uint64_t> cut_lines;
  if (std::fseek(f, 0, SEEK_SET) != 0) return fail(Step::Seek);
  std::uint64_t abs = 0, line = 1;
  std::size_t next = 0;
  std::vector<char> chunk(1 << 20);
  while (next < cuts.size()) {
    std::size_t got = std::fread(chunk.data(), 1, chunk.size(), f);
    if (got == 0) break;
    std::size_t from = 0;
    while (next < cuts.size() && cuts[next] < abs + got) {
      std::size_t to = std::size_t(cuts[next] - abs);
      line += std::uint64_t(std::count(chunk.begin() + from, chunk.begin() + to, '\n'));
      cut_lines.push_back(line);
      from = to;
      ++next;
    }
    line += std::uint64_t(std::count(chunk.begin() + from, chunk.begin() + got, '\n'));
    abs += got;
  }
  bool failed = std::ferror(f);
  std::fclose(f);
  f = nullptr;
  if (failed || cut_lines.size() != cuts.size()) return fail(Step::Read);

  std::vector<ByteRange> out;
  std::uint64_t begin = 0, first = 1;
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    out.push_back(ByteRange{begin, cuts[k], first});
    begin = cuts[k];
    first = cut_lines[k];
  }
  out.push_back(ByteRange{begin, size, first});
  return out;
}

}  // namespace gb::pgn
