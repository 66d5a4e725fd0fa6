#include "book/pgn/reader.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace gb::pgn {

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::WhiteWins: return "1-0";
    case Outcome::BlackWins: return "0-1";
    case Outcome::Draw: return "1/2-1/2";
    case Outcome::Unknown: return "*";
  }
  return "*";
}

std::string_view to_string(SkipReason r) {
  switch (r) {
    case SkipReason::None: return "none";
    case SkipReason::IllegalMove: return "illegal move";
    case SkipReason::UnparseableMove: return "unparseable move";
    case SkipReason::AmbiguousMove: return "ambiguous move";
    case SkipReason::NullMove: return "null move";
    case SkipReason::BadFen: return "bad FEN";
    case SkipReason::UnsupportedVariant: return "unsupported variant";
    case SkipReason::ByVisitor: return "skipped by the visitor";
  }
  return "?";
}

std::string_view to_string(WarningKind k) {
  switch (k) {
    case WarningKind::MissingResult: return "missing result";
    case WarningKind::MissingClosingQuote: return "missing closing quote";
    case WarningKind::MissingClosingBracket: return "missing closing bracket";
    case WarningKind::BinaryData: return "binary data";
  }
  return "?";
}

Outcome outcome_from_text(std::string_view text) {
  if (text == "1-0") return Outcome::WhiteWins;
  if (text == "0-1") return Outcome::BlackWins;
  if (text == "1/2-1/2" || text == "1/2") return Outcome::Draw;
  return Outcome::Unknown;
}

std::string ReadError::message() const {
  std::string m = file;
  m += ':';
  m += std::to_string(line);
  if (column) {
    m += ':';
    m += std::to_string(column);
  }
  m += ": game ";
  m += std::to_string(game_number);
  m += ": ";
  m += to_string(reason);
  if (!move_text.empty()) {
    m += " '";
    m += move_text;
    m += '\'';
  }
  if (in_variation) m += " in a variation (variation dropped)";
  if (!fen_before.empty()) {
    m += " in ";
    m += fen_before;
  }
  if (!detail.empty()) {
    m += ": ";
    m += detail;
  }
  return m;
}

std::string ReadWarning::message() const {
  std::string m = file + ':' + std::to_string(line);
  if (column) m += ':' + std::to_string(column);
  m += ": game " + std::to_string(game_number) + ": warning: ";
  m += to_string(kind);
  switch (kind) {
    case WarningKind::MissingResult: m += " (no 1-0, 0-1, 1/2-1/2 or * ends the game)"; break;
    case WarningKind::MissingClosingQuote:
    case WarningKind::MissingClosingBracket:
      m += " in tag '" + detail + "' (the value runs to the end of the line)";
      break;
    case WarningKind::BinaryData: m += " (" + detail + "): this does not look like a PGN file"; break;
  }
  return m;
}

void ReadSummary::merge(const ReadSummary& o, std::size_t max_stored_errors) {
  games_read += o.games_read;
  games_kept += o.games_kept;
  games_skipped += o.games_skipped;
  games_skipped_by_visitor += o.games_skipped_by_visitor;
  for (int i = 0; i < kSkipReasonCount; ++i) skipped_by_reason[i] += o.skipped_by_reason[i];
  plies += o.plies;
  errors += o.errors;
  for (const ReadError& e : o.stored_errors)
    if (stored_errors.size() < max_stored_errors) stored_errors.push_back(e);
  input_errors.insert(input_errors.end(), o.input_errors.begin(), o.input_errors.end());
  warnings += o.warnings;
  for (const ReadWarning& w : o.stored_warnings)
    if (stored_warnings.size() < max_stored_errors) stored_warnings.push_back(w);
}

PgnReader::PgnReader(ByteSource source, ReadOptions options)
    : tokenizer_(std::move(source), options.buffer_size), options_(options) {
  stack_.reserve(16);
  stack_.emplace_back();
  fen_tag_.reserve(128);
  variant_tag_.reserve(32);
  if (!input_ok()) summary_.input_errors.push_back(input_error());
}

void PgnReader::reset_game(std::uint64_t line) {
  ++game_number_;
  game_line_ = line;
  fen_tag_.clear();
  variant_tag_.clear();
  tag_outcome_ = token_outcome_ = Outcome::Unknown;
  has_token_outcome_ = false;
  skip_ = SkipReason::None;
  error_ = false;
  last_move_line_ = 0;
  last_move_column_ = 0;
  depth_ = 0;
  static const Position kStart;  // parsed once, not per game
  Frame& main = stack_[0];
  main.pos = kStart;
  main.has_last = false;
  main.dead = false;
  main.ply = 0;
}

namespace {
std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower((unsigned char)c));
  return out;
}
}  // namespace

void PgnReader::setup_start_position() {
  bool chess960 = false;
  if (!variant_tag_.empty()) {
    std::string v = lowercase(variant_tag_);
    if (v == "chess960" || v == "fischerandom" || v == "fischerrandom" || v == "chess 960" || v == "960" ||
        v == "fischer random") {
      chess960 = true;
    } else if (!(v == "standard" || v == "chess" || v == "normal" || v == "from position" ||
                 v == "from_position" || v == "fromposition")) {
      skip_ = SkipReason::UnsupportedVariant;
      record_error(skip_, {}, game_line_, 0, nullptr, false,
                   "variant '" + variant_tag_ + "' is not supported");
      return;
    }
  }
  Frame& main = stack_[0];
  if (!fen_tag_.empty()) {
    FenError error;
    auto pos = Position::from_fen(fen_tag_, &error);
    if (!pos) {
      skip_ = SkipReason::BadFen;
      record_error(skip_, {}, game_line_, 0, nullptr, false,
                   "[FEN \"" + fen_tag_ + "\"]: " + error.message());
      return;
    }
    main.pos = *pos;
  }
  if (chess960) main.pos.set_chess960(true);
}

namespace {
// Text of the input quoted in a message, kept readable: at most
// kReadableBytes bytes, control bytes as '?'.
constexpr std::size_t kReadableBytes = 40;
std::string readable(std::string_view text) {
  std::string out(text.substr(0, kReadableBytes));
  for (char& c : out)
    if ((unsigned char)c < 0x20 || c == 0x7f) c = '?';
  return out;
}
}  // namespace

void PgnReader::record_error(SkipReason reason, std::string_view move_text, std::uint64_t line,
                             std::uint32_t column, const Position* before, bool in_variation,
                             std::string detail) {
  ++summary_.errors;
  if (summary_.stored_errors.size() >= options_.max_stored_errors) return;
  ReadError e;
  e.file = file_name();
  e.line = line;
  e.column = column;
  e.game_number = game_number_;
  e.reason = reason;
  e.move_text = readable(move_text);
  if (move_text.size() > kReadableBytes) e.move_text += "...";
  if (before) e.fen_before = before->fen();
  e.in_variation = in_variation;
  e.detail = std::move(detail);
  summary_.stored_errors.push_back(std::move(e));
}

void PgnReader::record_warning(WarningKind kind, std::string_view detail, std::uint64_t line,
                               std::uint32_t column) {
  ++summary_.warnings;
  if (summary_.stored_warnings.size() >= options_.max_stored_errors) return;
  ReadWarning w;
  w.file = file_name();
  w.line = line;
  w.column = column;
  w.game_number = game_number_;
  w.kind = kind;
  w.detail = readable(detail);
  summary_.stored_warnings.push_back(std::move(w));
}

void PgnReader::note_binary_token(std::string_view token, std::uint64_t line, std::uint32_t column) {
  if (binary_reported_) return;
  // Bytes below 0x20 other than white space (which ends a token), and DEL, never stand in PGN text.
  auto control = std::find_if(token.begin(), token.end(),
                              [](char c) { return (unsigned char)c < 0x20 || (unsigned char)c == 0x7f; });
  if (control == token.end()) return;
  binary_reported_ = true;
  char code[8];
  std::snprintf(code, sizeof code, "0x%02x", unsigned((unsigned char)*control));
  record_warning(WarningKind::BinaryData, std::string("byte ") + code + " in a move", line,
                 column + std::uint32_t(control - token.begin()));
}

void PgnReader::finish_game_counts() {
  ++summary_.games_read;
  if (skip_ == SkipReason::ByVisitor) {
    ++summary_.games_skipped_by_visitor;
  } else if (skip_ != SkipReason::None) {
    ++summary_.games_skipped;
    ++summary_.skipped_by_reason[int(skip_)];
  } else {
    ++summary_.games_kept;
    summary_.plies += std::uint64_t(stack_[0].ply);
  }
  note_input_error();
}

void PgnReader::note_input_error() {
  if (!input_ok() && (summary_.input_errors.empty() || summary_.input_errors.back() != input_error()))
    summary_.input_errors.push_back(input_error());
}

}  // namespace gb::pgn
