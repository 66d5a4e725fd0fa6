// libFuzzer target for the PGN reader: any bytes, any buffer size, variations
// followed or skipped, null moves kept or not. The reader must not crash, hang
// or trip the sanitizers, and its counts must add up. See docs/PGN.md.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "book/chess/notation.h"
#include "book/pgn/game_record.h"
#include "book/pgn/split.h"

namespace {

struct FuzzVisitor : gb::pgn::VisitorBase {
  bool follow = true;
  bool check_san = false;
  gb::Key keys = 0;
  gb::pgn::Control begin_variation() { return follow ? gb::pgn::Control::Continue : gb::pgn::Control::Skip; }
  gb::pgn::Control move(const gb::pgn::MoveEvent& e) {
    keys ^= e.before.key();
    if (check_san && e.move) {
      // The decoded move is legal: writing it back as SAN must read back the same.
      std::string san = gb::to_san(e.before, e.move);
      if (gb::parse_san(e.before, san).move != e.move) __builtin_trap();
    }
    return gb::pgn::Control::Continue;
  }
  void end_game(const gb::pgn::GameEnd& end) { keys ^= end.final_position.key(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::uint8_t control = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  gb::pgn::ReadOptions options;
  options.buffer_size = 16 + (control & 0x3f) * 7;  // 16..457 bytes: tokens straddle refills
  if (control & 0x40) options.buffer_size = std::size_t(1) << 16;
  options.keep_null_move_games = control & 0x80;
  options.keep_games_up_to_error = control & 0x01;

  FuzzVisitor v;
  v.follow = control & 0x02;
  v.check_san = control & 0x04;
  gb::pgn::PgnReader reader(gb::pgn::ByteSource::from_memory(text), options);
  reader.read_all(v);
  const auto& s = reader.summary();
  if (s.games_kept + s.games_skipped + s.games_skipped_by_visitor != s.games_read) __builtin_trap();

  // The same text through the GameRecord entry point and in split parts.
  std::uint64_t games = 0;
  gb::pgn::read_games(
      gb::pgn::ByteSource::from_memory(text), [&](const gb::pgn::GameRecord&) { ++games; }, options);
  auto ranges = gb::pgn::split_at_game_boundaries(text, 1 + (control & 3));
  std::uint64_t end = 0;
  for (const auto& r : ranges) {
    if (r.begin != end || r.end < r.begin) __builtin_trap();
    end = r.end;
  }
  if (end != text.size()) __builtin_trap();
  return 0;
}
