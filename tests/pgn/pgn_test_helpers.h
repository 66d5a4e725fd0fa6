// Helpers shared by the PGN reader tests: a visitor that writes every event
// down as text, and reading a string with a chosen buffer size.
#pragma once

#include <string>
#include <vector>

#include "book/chess/notation.h"
#include "book/pgn/reader.h"

namespace gb::pgn::test {

// Writes each event as one short line ("tag White=Kasparov", "move 1 e4 e2e4", ...).
struct RecordingVisitor : VisitorBase {
  std::vector<std::string> events;
  std::vector<std::string> final_fens;
  bool follow_variations = true;

  void begin_game(const GameLocation& loc) {
    events.push_back("game " + std::to_string(loc.game_number) + " line " + std::to_string(loc.line));
  }
  void tag(std::string_view n, std::string_view v) {
    events.push_back("tag " + std::string(n) + "=" + std::string(v));
  }
  Control begin_movetext(const Position&) { return Control::Continue; }
  Control move(const MoveEvent& e) {
    events.push_back("move " + std::to_string(e.depth) + " " + std::string(e.san) + " " +
                     (e.move ? to_uci(e.move, e.before.chess960()) : std::string("null")));
    return Control::Continue;
  }
  void comment(std::string_view c) { events.push_back("comment " + std::string(c)); }
  void nag(int n) { events.push_back("nag " + std::to_string(n)); }
  Control begin_variation() {
    events.push_back("(");
    return follow_variations ? Control::Continue : Control::Skip;
  }
  void end_variation() { events.push_back(")"); }
  void outcome(Outcome o) { events.push_back("outcome " + std::string(to_string(o))); }
  void end_game(const GameEnd& e) {
    events.push_back("end " + std::string(to_string(e.outcome)) + " plies " + std::to_string(e.plies) +
                     (e.skipped != SkipReason::None ? " skipped " + std::string(to_string(e.skipped)) : "") +
                     (e.error ? " error" : ""));
    final_fens.push_back(e.final_position.fen());
  }
  // The events of one kind, e.g. only("move").
  std::vector<std::string> only(const std::string& kind) const {
    std::vector<std::string> out;
    for (const auto& e : events)
      if (e.rfind(kind, 0) == 0) out.push_back(e);
    return out;
  }
};

struct Read {
  RecordingVisitor visitor;
  ReadSummary summary;
};

inline Read read_text(std::string_view text, ReadOptions options = {}, bool follow_variations = true) {
  Read r;
  r.visitor.follow_variations = follow_variations;
  PgnReader reader(ByteSource::from_memory(text, "test.pgn"), options);
  reader.read_all(r.visitor);
  r.summary = reader.summary();
  return r;
}

inline ReadOptions tiny_buffer(std::size_t size) {
  ReadOptions o;
  o.buffer_size = size;
  return o;
}

}  // namespace gb::pgn::test
