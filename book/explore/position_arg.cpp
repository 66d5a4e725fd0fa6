#include "book/explore/position_arg.h"

#include <cctype>
#include <sstream>

#include "book/chess/notation.h"
#include "book/pgn/game_record.h"

namespace gb::explore {

std::string_view strip_move_number(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i == t.size() || t[i] != '.') return t;
  while (i < t.size() && t[i] == '.') ++i;
  return t.substr(i);
}

namespace {

// Black's move is numbered only when it comes first.
void append_san(ResolvedPosition& r, Move m) {
  bool numbered = r.position.side_to_move() == Color::White || r.moves_san.empty();
  if (!r.moves_san.empty()) r.moves_san += ' ';
  r.moves_san += numbered ? numbered_san(r.position, m) : to_san(r.position, m);
}

void play(ResolvedPosition& r, Move m) {
  append_san(r, m);
  UndoInfo undo;
  r.position.do_move(m, undo);
  r.line.push_back(r.position.key());
}

ExploreError position_error(std::string message) {
  return {ExploreError::Code::Position, std::move(message)};
}

ExploreStatus from_pgn(const PositionSpec& spec, ResolvedPosition& r) {
  bool found = false;
  std::vector<Move> moves;
  pgn::ReadSummary summary = pgn::read_games(spec.pgn_file, [&](const pgn::GameRecord& g) {
    if (found || g.game_number != spec.game) return;
    found = true;
    r.position = g.start;
    for (const auto& ply : g.mainline) moves.push_back(ply.move);
  });
  if (!summary.input_errors.empty()) return position_error(summary.input_errors.front());
  if (!found)
    return position_error(
        spec.pgn_file + ": no game " + std::to_string(spec.game) + " (" + std::to_string(summary.games_kept) +
        " games read" +
        (summary.games_skipped ? ", " + std::to_string(summary.games_skipped) + " skipped" : "") + ")");
  int ply = spec.ply.value_or(int(moves.size()));
  if (ply < 0 || ply > int(moves.size()))
    return position_error(spec.pgn_file + ": game " + std::to_string(spec.game) + " has " +
                          std::to_string(moves.size()) + " plies, no ply " + std::to_string(ply));
  r.line = {r.position.key()};
  for (int i = 0; i < ply; ++i) {
    if (!moves[i])
      return position_error(spec.pgn_file + ": game " + std::to_string(spec.game) + ": a null move at ply " +
                            std::to_string(i + 1));
    play(r, moves[i]);
  }
  return std::nullopt;
}

}  // namespace

std::optional<ResolvedPosition> resolve_position(const PositionSpec& spec, ExploreError* error) {
  ResolvedPosition r;
  ExploreError ignored;
  if (!error) error = &ignored;
  if (!spec.pgn_file.empty()) {
    if (!spec.fen.empty() || !spec.moves.empty()) {
      *error = position_error("give either --pgn or --fen/--moves, not both");
      return std::nullopt;
    }
    if (auto failed = from_pgn(spec, r)) {
      *error = std::move(*failed);
      return std::nullopt;
    }
    return r;
  }
  if (!spec.fen.empty()) {
    FenError fen_error;
    auto pos = Position::from_fen(spec.fen, &fen_error);
    if (!pos) {
      *error = position_error("bad FEN '" + spec.fen + "': " + fen_error.message());
      return std::nullopt;
    }
    r.position = *pos;
  }
  r.line = {r.position.key()};
  std::istringstream tokens(spec.moves);
  std::string token;
  int index = 0;
  while (tokens >> token) {
    std::string_view text = strip_move_number(token);
    if (text.empty() || text == "*" || text == "1-0" || text == "0-1" || text == "1/2-1/2") continue;
    ++index;
    MoveParse parsed = parse_san(r.position, text);
    if (!parsed.ok()) {
      *error = position_error("move " + std::to_string(index) + " '" + std::string(text) +
                              "': " + std::string(to_string(parsed.error)) + " in " + r.position.fen());
      return std::nullopt;
    }
    play(r, parsed.move);
  }
  return r;
}

}  // namespace gb::explore
