// The PGN tokenizer: splits a byte stream into games, tags and movetext
// tokens, and hands them to a raw visitor as views into one fixed buffer.
// It knows nothing about chess rules; reader.h decodes the SAN it emits.
//
// Rules (lenient, like the readers users know):
// - A game starts at the first byte that is not whitespace, a '%' escape line,
//   a comment or a byte-order mark (comments between games are dropped). Tag
//   pairs come first, blank lines between them allowed; the tag section ends at
//   a line that is not a tag, or at a tag name the game already has (a game of
//   tags only, followed by the next game).
// - Movetext ends at a termination token (1-0, 0-1, 1/2-1/2, *), at a '[' outside
//   comments (the next game's tags), or at the end of the input.
// - '{...}' and ';...' comments, '%' escape lines, '$n' NAGs and '!?'-style
//   glyphs, "12." / "12..." move numbers (also "1.e4"), CRLF line ends.
// - A token longer than the buffer is cut; a comment longer than the buffer is
//   passed on in pieces. Nothing here can loop forever: every step consumes
//   at least one byte or ends the game.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "book/pgn/byte_source.h"
#include "book/pgn/visitor.h"

namespace gb::pgn {

// What the tokenizer calls; every view is valid only during the call.
template <class R>
concept RawVisitor = requires(R& r, std::string_view s, std::uint64_t line, std::uint32_t col, Outcome o) {
  r.raw_begin_game(line);
  r.raw_tag(s, s);
  { r.raw_end_tags() } -> std::same_as<Control>;
  { r.raw_san(s, line, col) } -> std::same_as<Control>;  // Skip: skip the rest of the game
  r.raw_nag(1);
  r.raw_comment(s);
  { r.raw_begin_variation() } -> std::same_as<Control>;
  r.raw_end_variation();
  r.raw_outcome(o);
  r.raw_end_game();
};

// A raw visitor may also take warnings (reader.h does): what the tokenizer
// read past, with the place. Optional, so that a visitor of events alone need not.
template <class R>
void raw_warning(R& r, WarningKind kind, std::string_view detail, std::uint64_t line, std::uint32_t column) {
  if constexpr (requires { r.raw_warning(kind, detail, line, column); })
    r.raw_warning(kind, detail, line, column);
}

class Tokenizer {
 public:
  Tokenizer(ByteSource source, std::size_t buffer_size);

  // Reads one game; false when the input holds no further game.
  template <RawVisitor R>
  bool read_game(R& r);

  const ByteSource& source() const { return source_; }
  // Where counting starts (for a byte range that begins inside a file).
  void set_first_line(std::uint64_t line) { line_ = line; }

 private:
  // Byte classes, looked up in one table on the hot path.
  enum : std::uint8_t { kSpace = 1, kTokenEnd = 2, kDigit = 4 };
  static constexpr auto kClass = [] {
    std::array<std::uint8_t, 256> t{};
    for (unsigned char c : std::string_view(" \t\r\n\f\v")) t[c] = kSpace | kTokenEnd;
    for (unsigned char c : std::string_view("{}()[];$!?")) t[c] = kTokenEnd;
    for (unsigned char c = '0'; c <= '9'; ++c) t[c] = kDigit;
    return t;
  }();
  static bool is_space(char c) { return kClass[std::uint8_t(c)] & kSpace; }
  // Bytes that end a move token.
  static bool ends_token(char c) { return kClass[std::uint8_t(c)] & kTokenEnd; }
  static bool is_digit(char c) { return kClass[std::uint8_t(c)] & kDigit; }

  // Moves the unread bytes to the front and reads more; the number of bytes added.
  std::size_t fill();
  bool at_end() { return pos_ == end_ && fill() == 0; }
  std::uint32_t column() const { return std::uint32_t(buf_abs_ + pos_ - line_start_abs_ + 1); }
  void count_lines(std::size_t from, std::size_t to);
  void newline_at(std::size_t i) {
    ++line_;
    line_start_abs_ = buf_abs_ + i + 1;
  }
  // Skips whitespace, '%' escape lines and the byte-order mark before a game.
  // Returns false at the end of the input.
  bool skip_to_game();
  // The rest of the current line (without the '\n', which is consumed); cut at the buffer size.
  std::string_view take_line();
  // The span [pos_, j) of bytes that satisfy keep, refilling as needed.
  template <class Keep>
  std::size_t scan(Keep keep, std::size_t from = 0);
  // Has this game already had a tag of this name? (Then the tag starts the next game.)
  bool seen_tag(std::string_view name);
  template <RawVisitor R>
  void read_tags(R& r);
  template <RawVisitor R>
  void read_comment(R& r, bool deliver);
  void skip_variation();  // after its '(' has been consumed
  // The fast path of a skipped game (--max-ply skips most of each game's bytes):
  // passes over whitespace, line ends, moves and move numbers like the movetext
  // loop, and stops at pos_ on the first token that may need more (a result, a
  // comment, a bracket...) or that reaches the end of the buffer, for the loop
  // to read: the loop alone refills, so refills happen where they always did.
  void skip_moves();

  ByteSource source_;
  std::unique_ptr<char[]> buf_;
  std::unique_ptr<char[]> spare_;  // the head of a line longer than the buffer (made for the first)
  std::size_t cap_;
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  std::uint64_t buf_abs_ = 0;  // offset in the input of buf_[0]
  std::uint64_t line_ = 1;
  std::uint64_t line_start_abs_ = 0;  // offset in the input of the current line's first byte
  std::uint32_t tag_hashes_[64];
  std::size_t tags_seen_ = 0;
};

// ---- implementation (templates) ----

template <class Keep>
std::size_t Tokenizer::scan(Keep keep, std::size_t from) {
  std::size_t j = pos_ + from;
  for (;;) {
    while (j < end_ && keep(buf_[j])) ++j;
    if (j < end_ || eof_) return j;
    std::size_t off = j - pos_;
    if (fill() == 0) return pos_ + off;  // end of input, or the token fills the whole buffer
    j = pos_ + off;
  }
}

template <RawVisitor R>
void Tokenizer::read_tags(R& r) {
  tags_seen_ = 0;
  for (;;) {
    // At a '['. A tag name this game already has starts the next game (a game
    // of tags only, followed by the next one).
    std::size_t name_end = scan([](char c) { return !is_space(c) && c != '"' && c != ']'; }, 1);
    if (seen_tag(std::string_view(buf_.get() + pos_ + 1, name_end - pos_ - 1))) return;
    std::uint64_t line_before = line_;
    std::uint64_t line_start_before = line_start_abs_;
    const std::uint32_t column_before = column();
    std::string_view line = take_line();
    while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
    std::size_t i = 1;
    while (i < line.size() && is_space(line[i])) ++i;
    std::size_t name_begin = i;
    while (i < line.size() && !is_space(line[i]) && line[i] != '"' && line[i] != ']') ++i;
    std::string_view name = line.substr(name_begin, i - name_begin);
    while (i < line.size() && is_space(line[i])) ++i;
    std::string_view value;
    std::size_t tag_end = line.size();  // just after the tag's ']'
    if (i < line.size() && line[i] == '"') {
      // The value ends at the first '"]' that ends the line or precedes another
      // tag; else at the last '"]' of the line (quotes or brackets inside the
      // value). Text after it on the line is movetext ([Result "1-0"] e4 1-0).
      std::size_t close = std::string_view::npos;
      std::size_t first = line.find("\"]", i + 1);
      if (first != std::string_view::npos) {
        std::size_t k = first + 2;
        while (k < line.size() && is_space(line[k])) ++k;
        std::size_t last = line.rfind("\"]");
        close = k == line.size() || line[k] == '[' ? first : last;
        tag_end = close + 2;
      } else {
        close = line.size();  // unterminated: the rest of the line
        bool quoted = line.find('"', i + 1) != std::string_view::npos;
        raw_warning(r, quoted ? WarningKind::MissingClosingBracket : WarningKind::MissingClosingQuote, name,
                    line_before, column_before + std::uint32_t(i));
      }
      // Unescape \" and \\ in place (the buffer is ours; the value only shrinks).
      char* out = const_cast<char*>(line.data()) + i + 1;
      char* begin = out;
      for (std::size_t k = i + 1; k < close; ++k) {
        if (line[k] == '\\' && k + 1 < close && (line[k + 1] == '"' || line[k + 1] == '\\')) ++k;
        *out++ = line[k];
      }
      value = std::string_view(begin, std::size_t(out - begin));
    } else {
      std::size_t close = line.find(']', i);
      if (close != std::string_view::npos) tag_end = close + 1;
      value = line.substr(i, close == std::string_view::npos ? std::string_view::npos : close - i);
      while (!value.empty() && is_space(value.back())) value.remove_suffix(1);
    }
    if (!name.empty()) r.raw_tag(name, value);
    // Text after the tag on its line (another tag, or movetext): read it from there.
    std::size_t rest = tag_end;
    while (rest < line.size() && is_space(line[rest])) ++rest;
    if (rest < line.size() && line.data() >= buf_.get() && line.data() < buf_.get() + cap_) {
      pos_ = std::size_t(line.data() - buf_.get()) + tag_end;
      line_ = line_before;
      line_start_abs_ = line_start_before;
      while (pos_ < end_ && (buf_[pos_] == ' ' || buf_[pos_] == '\t')) ++pos_;
      if (buf_[pos_] == '[') continue;
      return;
    }
    // Next line: another tag, an escape line, or the end of the section.
    for (;;) {
      if (at_end()) return;
      char c = buf_[pos_];
      if (c == '[') break;
      if (c == '%' && column() == 1) {
        take_line();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
        continue;
      }
      if (c == '\n') {  // a blank line: more tags may follow (ChessBase writes such files)
        newline_at(pos_);
        ++pos_;
        continue;
      }
      return;  // movetext
    }
  }
}

template <RawVisitor R>
void Tokenizer::read_comment(R& r, bool deliver) {
  ++pos_;  // '{'
  for (;;) {
    if (pos_ == end_ && fill() == 0) return;  // unterminated at the end of the input
    const char* start = buf_.get() + pos_;
    const char* close = static_cast<const char*>(std::memchr(start, '}', end_ - pos_));
    if (close) {
      std::size_t c = std::size_t(close - buf_.get());
      count_lines(pos_, c);
      if (deliver) r.raw_comment(std::string_view(start, c - pos_));
      pos_ = c + 1;
      return;
    }
    if (eof_ || (pos_ == 0 && end_ == cap_)) {
      // No '}' in a full buffer (or before the end): pass this piece on and go on.
      count_lines(pos_, end_);
      if (deliver) r.raw_comment(std::string_view(start, end_ - pos_));
      pos_ = end_;
      if (eof_) return;
      continue;
    }
    fill();
  }
}

template <RawVisitor R>
bool Tokenizer::read_game(R& r) {
  if (!skip_to_game()) return false;
  r.raw_begin_game(line_);
  if (buf_[pos_] == '[') read_tags(r);
  bool skipping = r.raw_end_tags() == Control::Skip;
  int depth = 0;  // open variations that the visitor follows
  // The movetext loop: the hot path of the reader.
  for (;;) {
    if (skipping) skip_moves();
    if (pos_ == end_ && fill() == 0) break;
    char c = buf_[pos_];
    switch (c) {  // a new case here goes in kLoopCases (tokenizer.cpp), for skip_moves() too
      case '\n':
        newline_at(pos_);
        ++pos_;
        break;
      case ' ':
      case '\t':
      case '\r':
      case '\f':
      case '\v': ++pos_; break;
      case '{': read_comment(r, !skipping); break;
      case ';': {
        ++pos_;
        std::string_view text = take_line();
        if (!skipping) r.raw_comment(text);
        break;
      }
      case '%':
        if (column() == 1)
          take_line();
        else
          ++pos_;
        break;
      case '(':
        ++pos_;
        if (skipping || r.raw_begin_variation() == Control::Skip)
          skip_variation();
        else
          ++depth;
        break;
      case ')':
        ++pos_;
        if (depth > 0) {
          --depth;
          if (!skipping) r.raw_end_variation();
        }
        break;
      case '$': {
        ++pos_;
        std::size_t j = scan(is_digit);
        int nag = 0;
        for (std::size_t k = pos_; k < j && nag < 100000; ++k) nag = nag * 10 + (buf_[k] - '0');
        pos_ = j;
        if (!skipping) r.raw_nag(nag);
        break;
      }
      case '!':
      case '?': {
        std::size_t j = scan([](char ch) { return ch == '!' || ch == '?'; });
        std::string_view g(buf_.get() + pos_, j - pos_);
        pos_ = j;
        int nag = g == "!"    ? 1
                  : g == "?"  ? 2
                  : g == "!!" ? 3
                  : g == "??" ? 4
                  : g == "!?" ? 5
                  : g == "?!" ? 6
                              : 0;
        if (!skipping && nag) r.raw_nag(nag);
        break;
      }
      case '*':
        ++pos_;
        r.raw_outcome(Outcome::Unknown);
        r.raw_end_game();
        return true;
      case '[':
        raw_warning(r, WarningKind::MissingResult, {}, line_, column());
        r.raw_end_game();  // the next game's tags
        return true;
      case ']':
      case '}':
        ++pos_;  // stray closing bracket
        break;
      default:
        if (c >= '0' && c <= '9') {
          std::uint64_t line = line_;
          std::uint32_t col = column();
          if (c == '0') {  // the draw "0.5-0.5", before "0." reads as a move number
            std::size_t t = scan([](char ch) { return !ends_token(ch); });
            if (std::string_view(buf_.get() + pos_, t - pos_) == "0.5-0.5") {
              pos_ = t;
              r.raw_outcome(Outcome::Draw);
              r.raw_end_game();
              return true;
            }
          }
          std::size_t j = scan(is_digit);
          if (j < end_ && buf_[j] == '.') {  // move number "12." / "12..."
            pos_ = j;
            pos_ = scan([](char ch) { return ch == '.'; });
            break;
          }
          j = scan([](char ch) { return !ends_token(ch) && ch != '.'; });
          std::string_view tok(buf_.get() + pos_, j - pos_);
          if (tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" || tok == "1/2") {
            pos_ = j;
            r.raw_outcome(tok == "1-0"   ? Outcome::WhiteWins
                          : tok == "0-1" ? Outcome::BlackWins
                                         : Outcome::Draw);
            r.raw_end_game();
            return true;
          }
          pos_ = j;
          if (tok.find_first_not_of("0123456789") != std::string_view::npos && !skipping) {
            // "0-0", "0-0-0", or a bad token for the decoder to report.
            if (r.raw_san(tok, line, col) == Control::Skip) skipping = true;
          }
          break;
        }
        {
          std::uint64_t line = line_;
          std::uint32_t col = column();
          std::size_t j = scan([](char ch) { return !ends_token(ch); });
          std::string_view tok(buf_.get() + pos_, j - pos_);
          pos_ = j;
          if (tok.find_first_not_of('.') == std::string_view::npos) break;  // "..." alone
          if (!skipping && r.raw_san(tok, line, col) == Control::Skip) skipping = true;
        }
        break;
    }
  }
  raw_warning(r, WarningKind::MissingResult, {}, line_, column());
  r.raw_end_game();
  return true;
}

}  // namespace gb::pgn
