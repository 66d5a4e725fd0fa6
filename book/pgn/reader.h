// The PGN reader: the tokenizer (tokenizer.h) plus the layer that turns SAN
// into legal moves, keeping a position stack for variations (a variation's
// moves are decoded from the position before the move they replace).
//
//   gb::pgn::PgnReader reader(gb::pgn::ByteSource::open("games.pgn.zst"));
//   MyVisitor v;                      // a GameVisitor, see visitor.h
//   while (reader.read_game(v)) {}
//   reader.summary();                 // games read, kept, skipped (why), errors
//
// Memory is bounded: one buffer (ReadOptions::buffer_size) and one Position
// per open variation level, all reused from game to game. No heap allocation
// per move; errors (rare) allocate their messages.
#pragma once

#include <cassert>
#include <string>
#include <vector>

#include "book/pgn/san_decoder.h"
#include "book/pgn/summary.h"
#include "book/pgn/tokenizer.h"
#include "book/pgn/visitor.h"

namespace gb::pgn {

class PgnReader {
 public:
  explicit PgnReader(ByteSource source, ReadOptions options = {});

  // Reads the next game into v; false when the input holds no further game.
  template <GameVisitor V>
  bool read_game(V& v);
  // Reads every game; returns false when the input could not be read (fully).
  template <GameVisitor V>
  bool read_all(V& v) {
    while (read_game(v)) {
    }
    note_input_error();
    return input_ok();
  }

  // For a byte range of a file (split.h): the line and game numbers it starts at.
  void set_start(std::uint64_t first_line, std::uint64_t games_before) {
    tokenizer_.set_first_line(first_line);
    game_number_ = games_before;
  }

  bool input_ok() const { return tokenizer_.source().ok(); }
  const std::string& input_error() const { return tokenizer_.source().error(); }
  const std::string& file_name() const { return tokenizer_.source().name(); }
  const ReadSummary& summary() const { return summary_; }
  const ReadOptions& options() const { return options_; }

 private:
  template <GameVisitor V>
  struct Decoder;

  // One level of the position stack.
  struct Frame {
    Position pos;
    Move last;  // the last move played at this level (for a variation on it)
    UndoInfo last_undo;
    bool has_last = false;
    bool dead = false;  // a bad move ended this line; its remaining moves are ignored
    int ply = 0;
  };

  // Per-game state, reset by begin_game.
  void reset_game(std::uint64_t line);
  // Builds the start position from the tags; sets skip_ on failure.
  void setup_start_position();
  void record_error(SkipReason reason, std::string_view move_text, std::uint64_t line, std::uint32_t column,
                    const Position* before, bool in_variation, std::string detail = {});
  void record_warning(WarningKind kind, std::string_view detail, std::uint64_t line, std::uint32_t column);
  // A move token with a control byte: the input is binary, not PGN (said once per reader).
  void note_binary_token(std::string_view token, std::uint64_t line, std::uint32_t column);
  void finish_game_counts();
  void note_input_error();  // adds the source's error to the summary once

  Tokenizer tokenizer_;
  ReadOptions options_;
  ReadSummary summary_;
  std::vector<Frame> stack_;  // [0] is the mainline
  std::size_t depth_ = 0;     // open variations (index of the top frame)
  // Per game:
  std::uint64_t game_number_ = 0;
  std::uint64_t game_line_ = 0;
  std::string fen_tag_, variant_tag_;
  Outcome tag_outcome_ = Outcome::Unknown;
  Outcome token_outcome_ = Outcome::Unknown;
  bool has_token_outcome_ = false;
  SkipReason skip_ = SkipReason::None;
  bool error_ = false;
  std::uint64_t last_move_line_ = 0;  // of the game's last move token, 0 before the first
  std::uint32_t last_move_column_ = 0;
  bool binary_reported_ = false;
};

// ---- implementation (templates) ----

Outcome outcome_from_text(std::string_view text);

template <GameVisitor V>
struct PgnReader::Decoder {
  PgnReader& r;
  V& v;

  void raw_begin_game(std::uint64_t line) {
    r.reset_game(line);
    v.begin_game(GameLocation{r.file_name(), line, r.game_number_});
  }
  void raw_tag(std::string_view name, std::string_view value) {
    if (name == "FEN")
      r.fen_tag_.assign(value);
    else if (name == "Variant")
      r.variant_tag_.assign(value);
    else if (name == "Result")
      r.tag_outcome_ = outcome_from_text(value);
    v.tag(name, value);
  }
  Control raw_end_tags() {
    r.setup_start_position();
    if (r.skip_ != SkipReason::None) return Control::Skip;
    if (v.begin_movetext(r.stack_[0].pos) == Control::Skip) {
      r.skip_ = SkipReason::ByVisitor;
      return Control::Skip;
    }
    return Control::Continue;
  }
  Control raw_san(std::string_view san, std::uint64_t line, std::uint32_t column) {
    r.last_move_line_ = line;
    r.last_move_column_ = column;
    assert(r.depth_ < r.stack_.size());  // depth_ indexes the top frame
    Frame& f = r.stack_[r.depth_];
    if (f.dead) return Control::Continue;
    char c0 = san[0];
    bool null = (c0 == '-' || c0 == 'Z' || c0 == '0' || c0 == '@') &&
                (san == "--" || san == "Z0" || san == "0000" || san == "@@@@");
    if (null) {
      if (!r.options_.keep_null_move_games) {
        r.skip_ = SkipReason::NullMove;
        r.record_error(SkipReason::NullMove, san, line, column, &f.pos, r.depth_ > 0);
        return Control::Skip;
      }
      if (f.pos.in_check()) return bad_move(f, SkipReason::IllegalMove, san, line, column);
      if (v.move(MoveEvent{san, Move(), f.pos, f.ply, int(r.depth_), line, column}) == Control::Skip)
        return Control::Skip;
      f.pos.do_null_move(f.last_undo);
      f.last = Move();
      f.has_last = true;
      ++f.ply;
      return Control::Continue;
    }
    MoveParse parsed = decode_san(f.pos, san);
    if (!parsed.ok()) {
      SkipReason why = parsed.error == MoveError::Syntax    ? SkipReason::UnparseableMove
                       : parsed.error == MoveError::Illegal ? SkipReason::IllegalMove
                                                            : SkipReason::AmbiguousMove;
      return bad_move(f, why, san, line, column);
    }
    if (v.move(MoveEvent{san, parsed.move, f.pos, f.ply, int(r.depth_), line, column}) == Control::Skip)
      return Control::Skip;
    f.pos.do_move(parsed.move, f.last_undo);
    f.last = parsed.move;
    f.has_last = true;
    ++f.ply;
    return Control::Continue;
  }
  Control bad_move(Frame& f, SkipReason why, std::string_view san, std::uint64_t line, std::uint32_t column) {
    r.record_error(why, san, line, column, &f.pos, r.depth_ > 0);
    if (why == SkipReason::UnparseableMove) r.note_binary_token(san, line, column);
    if (r.depth_ > 0) {  // drop the rest of this variation, keep the game
      f.dead = true;
      return Control::Continue;
    }
    r.error_ = true;
    if (!r.options_.keep_games_up_to_error) r.skip_ = why;
    return Control::Skip;
  }
  void raw_nag(int nag) {
    if (!r.stack_[r.depth_].dead) v.nag(nag);
  }
  void raw_comment(std::string_view text) {
    if (!r.stack_[r.depth_].dead) v.comment(text);
  }
  Control raw_begin_variation() {
    Frame& parent = r.stack_[r.depth_];
    // A variation needs a move to replace; one inside a dead line is dropped too.
    if (!parent.has_last || parent.dead) return Control::Skip;
    if (v.begin_variation() == Control::Skip) return Control::Skip;
    ++r.depth_;
    if (r.stack_.size() <= r.depth_) r.stack_.push_back(parent);  // grows once per new nesting depth
    Frame& child = r.stack_[r.depth_];
    Frame& p = r.stack_[r.depth_ - 1];  // push_back may have moved parent
    child.pos = p.pos;
    assert(p.has_last && !p.dead);  // a variation replaces a move that was played
    if (p.last)
      child.pos.undo_move(p.last, p.last_undo);
    else
      child.pos.undo_null_move(p.last_undo);
    child.has_last = false;
    child.dead = false;
    child.ply = p.ply - 1;
    return Control::Continue;
  }
  void raw_end_variation() {
    if (r.depth_ == 0) return;
    --r.depth_;
    v.end_variation();
  }
  void raw_outcome(Outcome o) {
    if (!r.has_token_outcome_) {
      r.token_outcome_ = o;
      r.has_token_outcome_ = true;
    }
  }
  // From the tokenizer: a tag's place, or the place where the movetext ended.
  void raw_warning(WarningKind kind, std::string_view detail, std::uint64_t line, std::uint32_t column) {
    if (kind == WarningKind::MissingResult) {
      // A game skipped for a bad move has its error already; else say where the game stopped.
      if (r.skip_ != SkipReason::None && r.skip_ != SkipReason::ByVisitor) return;
      if (r.last_move_line_) {
        line = r.last_move_line_;
        column = r.last_move_column_;
      }
    }
    r.record_warning(kind, detail, line, column);
  }
  void raw_end_game() {
    while (r.depth_ > 0) {  // variations left open at the end of the game
      --r.depth_;
      v.end_variation();
    }
    assert(r.depth_ == 0);
    Frame& main = r.stack_[0];
    Outcome outcome = r.has_token_outcome_ ? r.token_outcome_ : r.tag_outcome_;
    SkipReason skipped = r.skip_;
    r.finish_game_counts();
    v.outcome(outcome);
    v.end_game(GameEnd{main.pos, main.ply, outcome, skipped, r.error_});
  }
};

template <GameVisitor V>
bool PgnReader::read_game(V& v) {
  Decoder<V> d{*this, v};
  return tokenizer_.read_game(d);
}

}  // namespace gb::pgn
