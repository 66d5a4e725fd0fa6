#include "book/pgn/tokenizer.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <string_view>

namespace gb::pgn {

Tokenizer::Tokenizer(ByteSource source, std::size_t buffer_size)
    : source_(std::move(source)), cap_(std::max<std::size_t>(buffer_size, 16)) {
  // Not zeroed: only bytes read are looked at (a build makes a reader for
  // every part of every block, and zeroing its buffers was 2 MB per part).
  buf_ = std::make_unique_for_overwrite<char[]>(cap_);
}

std::size_t Tokenizer::fill() {
  if (eof_) return 0;
  if (pos_ > 0) {
    std::memmove(buf_.get(), buf_.get() + pos_, end_ - pos_);
    buf_abs_ += pos_;
    end_ -= pos_;
    pos_ = 0;
  }
  if (end_ == cap_) return 0;
  std::size_t got = source_.read(buf_.get() + end_, cap_ - end_);
  if (got == 0) eof_ = true;
  end_ += got;
  return got;
}

void Tokenizer::count_lines(std::size_t from, std::size_t to) {
  const char* p = buf_.get() + from;
  const char* stop = buf_.get() + to;
  while (p < stop) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', std::size_t(stop - p)));
    if (!nl) break;
    newline_at(std::size_t(nl - buf_.get()));
    p = nl + 1;
  }
}

std::string_view Tokenizer::take_line() {
  for (;;) {
    const char* start = buf_.get() + pos_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
    if (nl) {
      std::size_t i = std::size_t(nl - buf_.get());
      std::string_view line(start, i - pos_);
      newline_at(i);
      pos_ = i + 1;
      return line;
    }
    if (eof_) {
      std::string_view line(start, end_ - pos_);
      pos_ = end_;
      return line;
    }
    if (pos_ == 0 && end_ == cap_) {
      // A line longer than the buffer: keep its head in the spare buffer and
      // drop the rest of the line.
      if (!spare_) spare_ = std::make_unique_for_overwrite<char[]>(cap_);
      std::memcpy(spare_.get(), buf_.get(), cap_);
      pos_ = end_;
      for (;;) {
        if (pos_ == end_ && fill() == 0) break;
        const char* rest = static_cast<const char*>(std::memchr(buf_.get() + pos_, '\n', end_ - pos_));
        if (rest) {
          std::size_t i = std::size_t(rest - buf_.get());
          newline_at(i);
          pos_ = i + 1;
          break;
        }
        pos_ = end_;
      }
      return std::string_view(spare_.get(), cap_);
    }
    fill();
  }
}

bool Tokenizer::skip_to_game() {
  for (;;) {
    if (pos_ == end_ && fill() == 0) return false;
    if (buf_abs_ + pos_ == 0) {
      while (end_ - pos_ < 3 && fill() > 0) {
      }
    }
    if (buf_abs_ + pos_ == 0 && end_ - pos_ >= 3 && std::memcmp(buf_.get() + pos_, "\xEF\xBB\xBF", 3) == 0) {
      pos_ += 3;
      line_start_abs_ = 3;
      continue;
    }
    char c = buf_[pos_];
    if (c == '\n') {
      newline_at(pos_);
      ++pos_;
    } else if (is_space(c)) {
      ++pos_;
    } else if ((c == '%' && column() == 1) || c == ';') {
      take_line();
    } else if (c == '{') {
      // A comment between games (after the termination token): dropped.
      ++pos_;
      for (;;) {
        if (pos_ == end_ && fill() == 0) return false;
        const char* q = static_cast<const char*>(std::memchr(buf_.get() + pos_, '}', end_ - pos_));
        std::size_t until = q ? std::size_t(q - buf_.get()) : end_;
        count_lines(pos_, until);
        pos_ = q ? until + 1 : end_;
        if (q) break;
      }
    } else {
      return true;
    }
  }
}

bool Tokenizer::seen_tag(std::string_view name) {
  std::uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ std::uint8_t(c)) * 16777619u;
  for (std::size_t i = 0; i < tags_seen_; ++i)
    if (tag_hashes_[i] == h) return true;
  if (tags_seen_ < std::size(tag_hashes_)) tag_hashes_[tags_seen_++] = h;
  return false;
}

namespace {

// The bytes of read_game's movetext loop's own cases besides whitespace.
constexpr std::string_view kLoopCases = "{;%()$!?*[]}";

// What a byte at the start of a token does in a skipped game, as read_game's
// movetext loop reads it. kStop: one of kLoopCases.
enum SkipAction : std::uint8_t { kMove, kSpace, kNewline, kNumber, kStop };

constexpr auto kSkipAction = [] {
  std::array<SkipAction, 256> t{};  // kMove: the loop's default case, a token up to a kTokenEnd byte
  for (unsigned char c : std::string_view(" \t\r\f\v")) t[c] = kSpace;
  t['\n'] = kNewline;
  for (unsigned char c = '0'; c <= '9'; ++c) t[c] = kNumber;
  for (unsigned char c : kLoopCases) t[c] = kStop;
  return t;
}();

// What a byte anywhere in a skipped game's movetext does. kPlain: nothing
// (it is part of a move, a move number or whitespace, which the loop passes
// over); kLineEnd: a line end; kOther: it may, so the token that holds it is
// read as the loop reads it: kLoopCases and the bytes of results ('-' and
// '/': "1-0", "0-1", "1/2-1/2"; a token of digits without them is passed
// over by the loop too).
enum SkipByte : std::uint8_t { kPlain, kLineEnd, kOther };

constexpr auto kSkipByte = [] {
  std::array<SkipByte, 256> t{};
  t['\n'] = kLineEnd;
  for (unsigned char c : kLoopCases) t[c] = kOther;
  t['-'] = t['/'] = kOther;
  return t;
}();

}  // namespace

void Tokenizer::skip_moves() {
  // Only whole tokens inside [pos_, end_): a token that reaches end_ is left
  // to the loop, which refills (or cuts a token longer than the buffer).
  const char* b = buf_.get();
  const std::size_t end = end_;
  std::size_t i = pos_;  // at the start of a token, or at whitespace
  for (;;) {
    // Byte by byte up to the first kOther byte, with no tokens: most of the
    // bytes past --max-ply are moves, numbers and spaces, and a token at a
    // time cost a mispredicted branch at each.
    std::size_t j = i;
    for (; j < end; ++j) {
      const SkipByte k = kSkipByte[std::uint8_t(b[j])];
      if (k == kPlain) continue;
      if (k == kOther) break;
      newline_at(j);
    }
    // Back to the start of the token that holds it (no line end is passed:
    // a line end ends a token).
    while (j > i && !ends_token(b[j - 1])) --j;
    i = j;
    if (i == end) break;
    // That token, as the loop reads it; break: leave it to the loop.
    switch (kSkipAction[std::uint8_t(b[i])]) {
      case kSpace:
      case kNewline:
        assert(false);  // the scan passes over whitespace, and backs up only over a token's bytes
        break;
      case kMove: {
        j = i + 1;
        while (j < end && !ends_token(b[j])) ++j;
        if (j == end) break;
        i = j;
        continue;
      }
      case kNumber: {
        // Only a move number "12." / "12..." here; other tokens starting with
        // a digit may be results ("1-0", "1/2-1/2") or castling ("0-0"). A
        // token starting with 0 is left to the loop: the draw "0.5-0.5" starts
        // like a move number.
        if (b[i] == '0') break;
        j = i + 1;
        while (j < end && is_digit(b[j])) ++j;
        if (j == end || b[j] != '.') break;
        while (j < end && b[j] == '.') ++j;
        if (j == end) break;
        i = j;
        continue;
      }
      case kStop: break;
    }
    break;
  }
  pos_ = i;
}

void Tokenizer::skip_variation() {
  // A cheap byte scan to the matching ')': no tokens, only brackets, comments
  // and line ends. A '[' (the next game's tags) ends the scan unconsumed.
  int depth = 1;
  for (;;) {
    if (pos_ == end_ && fill() == 0) return;
    const char* p = buf_.get() + pos_;
    const char* stop = buf_.get() + end_;
    for (; p < stop; ++p) {
      char c = *p;
      if (c == '\n') {
        newline_at(std::size_t(p - buf_.get()));
      } else if (c == '(') {
        ++depth;
      } else if (c == ')') {
        if (--depth == 0) {
          pos_ = std::size_t(p - buf_.get()) + 1;
          return;
        }
      } else if (c == '[') {
        pos_ = std::size_t(p - buf_.get());
        return;
      } else if (c == '{' || c == ';') {
        pos_ = std::size_t(p - buf_.get()) + 1;
        char close = c == '{' ? '}' : '\n';
        // To the end of the comment (across refills).
        for (;;) {
          if (pos_ == end_ && fill() == 0) return;
          const char* q = static_cast<const char*>(std::memchr(buf_.get() + pos_, close, end_ - pos_));
          std::size_t until = q ? std::size_t(q - buf_.get()) : end_;
          count_lines(pos_, until);
          if (q) {
            pos_ = until + (close == '}' ? 1 : 0);
            break;
          }
          pos_ = end_;
        }
        break;  // re-enter the outer loop at pos_
      }
    }
    if (p == stop) pos_ = end_;
  }
}

}  // namespace gb::pgn
