#include "uci-adapter/learning.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"
#include "book/pgn/game_record.h"

namespace gb::uci_adapter {

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

// The learning updates of one game, inside the caller's write transaction.
Status learn_in(store::WriteTxn& txn, const store::Databases& dbs, const PlayedGame& game, Color side,
                Outcome outcome, LearnSummary* summary) {
  auto pos = start_position(game.start_fen);
  if (!pos) return std::nullopt;  // a record we cannot replay teaches nothing
  std::int64_t now = unix_now();
  for (Move m : game.moves) {
    MoveList legal;
    generate_legal(*pos, legal);
    if (!legal.contains(m)) break;
    if (pos->side_to_move() == side) {
      store::EdgeKey key(pos->key(), m.raw());
      store::Error error;
      if (txn.get(dbs.edges, key.view(), &error)) {
        store::LearnRecord r;
        if (auto v = txn.get(dbs.learn, key.view(), &error)) (void)store::from_bytes(*v, r);
        if (error.code) return error;
        switch (outcome) {
          case Outcome::Win: ++r.wins, r.last_result = 1; break;
          case Outcome::Draw: ++r.draws, r.last_result = 2; break;
          case Outcome::Loss: ++r.losses, r.last_result = 3; break;
        }
        r.last_played = now;
        if (auto s = txn.put(dbs.learn, key.view(), store::as_bytes(r))) return s;
        if (summary) ++summary->moves_learned;
      } else if (error.code) {
        return error;
      }
    }
    UndoInfo undo;
    pos->do_move(m, undo);
  }
  return std::nullopt;
}

std::string moves_text(const std::vector<Move>& moves, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count && i < moves.size(); ++i) {
    if (i) out += ' ';
    out += std::to_string(moves[i].raw());
  }
  return out;
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
  return normal_fen(g.start_fen) + "|" + moves_text(g.moves, count);
}

std::string new_id() {
  static std::atomic<std::uint32_t> counter{0};
  auto ns = std::chrono::system_clock::now().time_since_epoch().count();
  char id[8];
  store::put_be64(id, std::uint64_t(ns) ^ (std::uint64_t(::getpid()) << 40) ^ counter.fetch_add(1));
  return std::string(id, 8);
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

Status learn_game(store::Book& book, const PlayedGame& game, Color side, Outcome outcome, LearnSummary* summary) {
  return book.write([&](store::WriteTxn& txn) {
    if (summary) *summary = {};
    return learn_in(txn, book.dbs(), game, side, outcome, summary);
  });
}

Status record_pending_game(store::Book& book, const PlayedGame& game, Color side, bool last_ours) {
  auto pos = start_position(game.start_fen);
  if (!pos) return std::nullopt;
  std::string moves;
  for (Move m : game.moves) {
    if (!moves.empty()) moves += ' ';
    moves += to_uci(m, pos->chess960());
    UndoInfo undo;
    pos->do_move(m, undo);
  }
  nlohmann::json j = {{"fen", game.start_fen},
                      {"moves", moves},
                      {"side", side == Color::White ? "white" : "black"},
                      {"last_ours", last_ours},
                      {"recorded_at", unix_now()}};
  std::string value = j.dump();
  std::string id = new_id();
  return book.write([&](store::WriteTxn& txn) -> Status {
    store::Error error;
    auto dbi = txn.open_db(kPendingDatabase, MDB_CREATE, &error);
    if (!dbi) return error;
    return txn.put(*dbi, id, value);
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

Status resolve_pending_games(store::Book& book, std::span<const FinishedGame> finished, ResolveSummary* summary) {
  std::multimap<std::string, std::size_t> by_moves;
  for (std::size_t i = 0; i < finished.size(); ++i) {
    if (finished[i].result == store::Result::Unknown) continue;
    const auto& g = finished[i].game;
    by_moves.emplace(match_key(g, g.moves.size()), i);
    if (!g.moves.empty()) by_moves.emplace(match_key(g, g.moves.size() - 1), i);
  }
  return book.write([&](store::WriteTxn& txn) -> Status {
    ResolveSummary s;
    std::vector<bool> used(finished.size(), false);
    store::Error error;
    auto dbi = txn.open_db(kPendingDatabase, MDB_CREATE, &error);
    if (!dbi) return error;
    std::vector<PendingGame> pending;
    {
      auto cursor = store::Cursor::open(txn, *dbi, &error);
      if (!cursor) return error;
      for (auto item = cursor->first(&error); item; item = cursor->next(&error))
        if (auto p = parse_pending(item->key, item->value)) pending.push_back(std::move(*p));
      if (error.code) return error;
    }
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
      Outcome o = f.result == store::Result::Draw ? Outcome::Draw
                  : (f.result == store::Result::WhiteWins) == (p.side == Color::White) ? Outcome::Win
                                                                                        : Outcome::Loss;
      if (auto st = learn_in(txn, book.dbs(), f.game, p.side, o, nullptr)) return st;
      if (auto st = txn.del(*dbi, p.id)) return st;
      ++s.resolved;
    }
    if (summary) *summary = s;
    return std::nullopt;
  });
}

std::optional<std::string> resolve_pending_from_pgn(store::Book& book, const std::string& pgn_path,
                                                    ResolveSummary* summary) {
  std::vector<FinishedGame> finished;
  auto read = pgn::read_games(pgn_path, [&](const pgn::GameRecord& g) {
    FinishedGame f;
    std::string fen = g.start.fen();
    f.game.start_fen = fen == Position::kStartFen ? "" : fen;
    for (const auto& ply : g.mainline) f.game.moves.push_back(ply.move);
    switch (g.outcome) {
      case pgn::Outcome::WhiteWins: f.result = store::Result::WhiteWins; break;
      case pgn::Outcome::BlackWins: f.result = store::Result::BlackWins; break;
      case pgn::Outcome::Draw: f.result = store::Result::Draw; break;
      case pgn::Outcome::Unknown: f.result = store::Result::Unknown; break;
    }
    finished.push_back(std::move(f));
  });
  if (!read.input_errors.empty()) return read.input_errors.front();
  if (auto error = resolve_pending_games(book, finished, summary)) return book.path() + ": " + error->message();
  return std::nullopt;
}

}  // namespace gb::uci_adapter
