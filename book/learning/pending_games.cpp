#include "book/learning/pending_games.h"

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "book/chess/notation.h"
#include "book/learning/book_learning.h"
#include "book/pgn/game_record.h"
#include "book/pgn/tag_pair.h"

namespace gb::learning {

namespace {

using store::Status;

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<Position> start_position(const std::string& fen) {
  if (fen.empty()) return Position();
  return Position::from_fen(fen);
}

// One game as PGN text: the given tags (FEN/SetUp added for a set-up start,
// Result set), then SAN movetext.
std::string pgn_text(std::vector<std::pair<std::string, std::string>> tags, const PlayedGame& game,
                     pgn::Outcome result) {
  const std::string result_text(pgn::to_string(result));
  auto set_tag = [&](const std::string& name, const std::string& value) {
    for (auto& [n, v] : tags)
      if (n == name) return void(v = value);
    tags.emplace_back(name, value);
  };
  set_tag("Result", result_text);
  if (!game.start_fen.empty()) {
    set_tag("SetUp", "1");
    set_tag("FEN", game.start_fen);
  }
  std::string out;
  for (const auto& [n, v] : tags) out += pgn::tag_pair(n, v);
  out += "\n";
  auto pos = start_position(game.start_fen);
  if (!pos) return out + result_text + "\n\n";
  for (std::size_t i = 0; i < game.moves.size(); ++i) {
    bool numbered = pos->side_to_move() == Color::White || i == 0;  // Black's move only when it comes first
    out += (numbered ? numbered_san(*pos, game.moves[i]) : to_san(*pos, game.moves[i])) + " ";
    UndoInfo undo;
    pos->do_move(game.moves[i], undo);
  }
  return out + result_text + "\n\n";
}

// Learns the games in text (PGN) for side with learn_file, through a
// temporary file that is removed afterwards.
std::optional<LearnError> learn_pgn_text(store::Book& book, const std::string& text, Color side,
                                         bool adapter_games, LearnSummary& summary) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/graphbook-uci-XXXXXX.pgn";
  int fd = ::mkstemps(path.data(), 4);
  if (fd < 0) return LearnError{LearnError::Code::Games, path + ": cannot create a temporary PGN"};
  bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  ::close(fd);
  std::optional<LearnError> error;
  if (!written) {
    error = LearnError{LearnError::Code::Games, path + ": cannot write the temporary PGN"};
  } else {
    LearnOptions options;
    options.side = side;
    options.now = unix_now();
    options.adapter_games = adapter_games;
    error = learn_file(book, path, options, LearnDirection::Learn, summary);
  }
  ::unlink(path.c_str());
  return error;
}

// The start position in one spelling: "" for the standard start.
std::string normal_fen(const std::string& fen) {
  if (fen.empty()) return "";
  auto pos = Position::from_fen(fen);
  if (!pos) return fen;
  std::string f = pos->fen();
  return f == Position::kStartFen ? "" : f;
}

std::string match_key(const PlayedGame& g, std::size_t count) {
  std::string out = normal_fen(g.start_fen) + "|";
  for (std::size_t i = 0; i < count && i < g.moves.size(); ++i) out += std::to_string(g.moves[i].raw()) + " ";
  return out;
}

std::optional<PendingGame> parse_pending(std::string_view id, std::string_view value) {
  auto j = nlohmann::json::parse(value, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  PendingGame p;
  p.id = std::string(id);
  p.game.start_fen = j.value("fen", "");
  p.side = j.value("side", "white") == "black" ? Color::Black : Color::White;
  p.last_ours = j.value("last_ours", false);
  auto pos = start_position(p.game.start_fen);
  if (!pos) return std::nullopt;
  std::string moves = j.value("moves", "");
  std::size_t i = 0;
  while (i < moves.size()) {
    std::size_t end = moves.find(' ', i);
    if (end == std::string::npos) end = moves.size();
    auto m = parse_uci(*pos, std::string_view(moves).substr(i, end - i));
    if (!m) return std::nullopt;
    p.game.moves.push_back(*m);
    UndoInfo undo;
    pos->do_move(*m, undo);
    i = end + 1;
  }
  return p;
}

}  // namespace

std::uint64_t unique_game_number() {
  static std::atomic<std::uint32_t> counter{0};
  auto ns = std::uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  return ns ^ (std::uint64_t(::getpid()) << 40) ^ counter.fetch_add(1);
}

LearnStatus learn_played_game(store::Book& book, const PlayedGame& game, Color side, pgn::Outcome result,
                              std::vector<std::pair<std::string, std::string>> tags,
                              std::uint64_t* moves_credited) {
  LearnSummary learned;
  if (auto error = learn_pgn_text(book, pgn_text(std::move(tags), game, result), side, true, learned))
    return error;
  if (moves_credited) *moves_credited = learned.moves_credited;
  return std::nullopt;
}

std::string uci_moves(const PlayedGame& game) {
  auto start = start_position(game.start_fen);
  bool chess960 = start && start->chess960();  // set by the start position alone: no move changes it
  std::string out;
  for (Move m : game.moves) {
    if (!out.empty()) out += ' ';
    out += to_uci(m, chess960);
  }
  return out;
}

Status record_pending_game(store::Book& book, const PlayedGame& game, Color side, bool last_ours) {
  if (!start_position(game.start_fen)) return std::nullopt;
  nlohmann::json j = {{"fen", game.start_fen},
                      {"moves", uci_moves(game)},
                      {"side", side == Color::White ? "white" : "black"},
                      {"last_ours", last_ours},
                      {"recorded_at", unix_now()}};
  std::string value = j.dump();
  char id[8];
  store::put_be64(id, unique_game_number());
  return book.write([&](store::WriteTxn& txn) -> Status {
    store::Error error;
    auto dbi = txn.open_db(kPendingDatabase, MDB_CREATE, &error);
    if (!dbi) return error;
    return txn.put(*dbi, std::string_view(id, 8), value);
  });
}

std::vector<PendingGame> pending_games(store::Book& book, store::Error* error) {
  std::vector<PendingGame> out;
  auto txn = store::ReadTxn::begin(book.env(), error);
  if (!txn) return out;
  store::Error e;
  auto dbi = txn->open_db(kPendingDatabase, 0, &e);
  if (!dbi) {
    if (e.code != MDB_NOTFOUND && error) *error = e;
    return out;
  }
  auto cursor = store::Cursor::open(*txn, *dbi, error);
  if (!cursor) return out;
  for (auto item = cursor->first(error); item; item = cursor->next(error))
    if (auto p = parse_pending(item->key, item->value)) out.push_back(std::move(*p));
  return out;
}

std::optional<LearnError> resolve_pending_games(store::Book& book, std::span<const FinishedGame> finished,
                                                ResolveSummary* summary) {
  store::Error error;
  auto pending = pending_games(book, &error);
  if (error.code) return LearnError{LearnError::Code::Book, book.path() + ": " + error.message()};
  if (pending.empty()) {
    if (summary) *summary = ResolveSummary{};
    return std::nullopt;
  }

  std::multimap<std::string, std::size_t> by_moves;
  for (std::size_t i = 0; i < finished.size(); ++i) {
    if (finished[i].result == pgn::Outcome::Unknown) continue;
    const auto& g = finished[i].game;
    by_moves.emplace(match_key(g, g.moves.size()), i);
    if (!g.moves.empty()) by_moves.emplace(match_key(g, g.moves.size() - 1), i);
  }
  ResolveSummary s;
  std::vector<bool> used(finished.size(), false);
  std::string pgn_for[2];  // the matched games, per side the adapter played
  std::vector<std::string> resolved_ids;
  for (const auto& p : pending) {
    std::optional<std::size_t> match;
    std::size_t n = p.game.moves.size();
    for (std::size_t count : {n, p.last_ours && n ? n - 1 : n}) {
      auto [lo, hi] = by_moves.equal_range(match_key(p.game, count));
      for (auto it = lo; it != hi && !match; ++it)
        if (!used[it->second]) match = it->second;
      if (match) break;
    }
    if (!match) {
      ++s.still_pending;
      continue;
    }
    used[*match] = true;
    const auto& f = finished[*match];
    pgn_for[int(p.side)] += pgn_text(f.tags, f.game, f.result);
    resolved_ids.push_back(p.id);
  }
  for (Color side : {Color::White, Color::Black}) {
    if (pgn_for[int(side)].empty()) continue;
    LearnSummary learned;
    if (auto e = learn_pgn_text(book, pgn_for[int(side)], side, false, learned)) return e;
    s.learned += learned.games_changed;
  }
  Status st = book.write([&](store::WriteTxn& txn) -> Status {
    store::Error e;
    auto dbi = txn.open_db(kPendingDatabase, MDB_CREATE, &e);
    if (!dbi) return e;
    for (const auto& id : resolved_ids)
      if (auto d = txn.del(*dbi, id)) return d;
    return std::nullopt;
  });
  if (st) return LearnError{LearnError::Code::Book, book.path() + ": " + st->message()};
  s.resolved = resolved_ids.size();
  if (summary) *summary = s;
  return std::nullopt;
}

std::optional<LearnError> resolve_pending_from_pgn(store::Book& book, const std::string& pgn_path,
                                                   ResolveSummary* summary) {
  std::vector<FinishedGame> finished;
  auto read = pgn::read_games(pgn_path, [&](const pgn::GameRecord& g) {
    FinishedGame f;
    f.tags = g.tags;
    std::string fen = g.start.fen();
    f.game.start_fen = fen == Position::kStartFen ? "" : fen;
    for (const auto& ply : g.mainline) f.game.moves.push_back(ply.move);
    f.result = g.outcome;
    finished.push_back(std::move(f));
  });
  if (!read.input_errors.empty()) return LearnError{LearnError::Code::Games, read.input_errors.front()};
  return resolve_pending_games(book, finished, summary);
}

}  // namespace gb::learning
