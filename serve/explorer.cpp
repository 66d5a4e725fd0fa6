#include "serve/explorer.h"

#include <algorithm>
#include <charconv>

#include "book/chess/notation.h"

namespace gb::serve {

namespace {

int number_prefix(std::string_view s) {
  int n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  return ec == std::errc() && end != s.data() ? n : 0;
}

// The start of a game: the stored start FEN, else the standard position.
Position start_of(const store::StoredGame& g) {
  if (g.start_fen.empty()) return Position();
  return Position::from_fen(g.start_fen).value_or(Position());
}

}  // namespace

GameSummary summarize(std::uint32_t id, const store::StoredGame& g) {
  GameSummary s;
  s.id = id;
  s.white = std::string(g.tag("White"));
  s.black = std::string(g.tag("Black"));
  s.white_rating = number_prefix(g.tag("WhiteElo"));
  s.black_rating = number_prefix(g.tag("BlackElo"));
  std::string_view date = g.tag("Date");
  if (date.empty()) date = g.tag("UTCDate");
  s.year = number_prefix(date.substr(0, 4));
  if (date.size() >= 7) s.month = number_prefix(date.substr(5, 2));
  if (s.month < 1 || s.month > 12) s.month = 0;
  std::string_view result = g.tag("Result");
  s.winner = result == "1-0" ? 'w' : result == "0-1" ? 'b' : result == "1/2-1/2" ? 'd' : 0;
  return s;
}

std::optional<PositionGames> position_games(store::GameIndexReader& index, const Position& pos,
                                            std::span<const store::IndexRow> rows, int since, int until,
                                            store::Error* error) {
  PositionGames out;
  // Distinct games per move (a game that repeats the position has rows at several plies).
  std::unordered_map<std::uint16_t, std::pair<std::uint32_t, int>> by_move;  // move -> (a game, games)
  std::uint32_t last_game = UINT32_MAX;
  std::vector<const store::IndexRow*> candidates;
  for (const store::IndexRow& row : rows) {
    if (row.game == last_game) continue;
    last_game = row.game;
    candidates.push_back(&row);
    if (row.move) {
      auto& [game, count] = by_move[row.move.raw()];
      game = row.game;
      ++count;
    }
  }
  auto read = [&](const store::IndexRow& row) -> std::optional<GameSummary> {
    auto game = index.game(row.game, error);
    if (!game) return std::nullopt;
    GameSummary s = summarize(row.game, *game);
    if (row.move) s.uci = to_uci(row.move, pos.chess960());
    return s;
  };
  std::size_t first = candidates.size() > kTopGameCandidates ? candidates.size() - kTopGameCandidates : 0;
  for (std::size_t i = first; i < candidates.size(); ++i) {
    auto s = read(*candidates[i]);
    if (!s) {
      if (error && error->code) return std::nullopt;
      continue;
    }
    if (s->year && (s->year < since || s->year > until)) continue;
    if (!s->year && (since > 0 || until < 9999)) continue;  // a date filter keeps only dated games
    out.top.push_back(std::move(*s));
  }
  std::stable_sort(out.top.begin(), out.top.end(), [](const GameSummary& a, const GameSummary& b) {
    int ra = a.white_rating + a.black_rating, rb = b.white_rating + b.black_rating;
    return ra != rb ? ra > rb : a.id > b.id;
  });
  if (out.top.size() > std::size_t(kMaxTopGames)) out.top.resize(kMaxTopGames);
  for (const auto& [move, seen] : by_move) {
    if (seen.second != 1) continue;
    store::IndexRow row{seen.first, 0, Move(move)};
    if (auto s = read(row))
      out.single.emplace_back(move, std::move(*s));
    else if (error && error->code)
      return std::nullopt;
  }
  return out;
}

std::string GamesCache::cache_key(std::uint64_t generation, Key key, int since, int until) {
  return std::to_string(generation) + ':' + std::to_string(key) + ':' + std::to_string(since) + ':' +
         std::to_string(until);
}

std::shared_ptr<const PositionGames> GamesCache::find(std::uint64_t generation, Key key, int since,
                                                      int until) {
  std::string k = cache_key(generation, key, since, until);
  Shard& s = shard(key);
  std::lock_guard lock(s.mutex);
  auto it = s.map.find(k);
  return it == s.map.end() ? nullptr : it->second;
}

void GamesCache::put(std::uint64_t generation, Key key, int since, int until,
                     std::shared_ptr<const PositionGames> games) {
  std::string k = cache_key(generation, key, since, until);
  Shard& s = shard(key);
  std::lock_guard lock(s.mutex);
  if (s.map.size() >= kShardEntries) s.map.clear();  // simple bound; a book's hot positions come back
  s.map.insert_or_assign(std::move(k), std::move(games));
}

nlohmann::json game_summary_json(const GameSummary& g) {
  auto player = [](const std::string& name, int rating) {
    return nlohmann::json{{"name", name.empty() ? nlohmann::json(nullptr) : nlohmann::json(name)},
                          {"rating", rating ? nlohmann::json(rating) : nlohmann::json(nullptr)}};
  };
  char month[16] = "";
  if (g.year && g.month) std::snprintf(month, sizeof month, "%04d-%02d", g.year, g.month);
  nlohmann::json j = {{"id", std::to_string(g.id)},
                      {"winner", g.winner == 'w'   ? nlohmann::json("white")
                                 : g.winner == 'b' ? nlohmann::json("black")
                                                   : nlohmann::json(nullptr)},
                      {"white", player(g.white, g.white_rating)},
                      {"black", player(g.black, g.black_rating)},
                      {"year", g.year ? nlohmann::json(g.year) : nlohmann::json(nullptr)},
                      {"month", *month ? nlohmann::json(month) : nlohmann::json(nullptr)}};
  if (!g.uci.empty()) j["uci"] = g.uci;
  return j;
}

nlohmann::json explorer_json(const explore::PositionReport& report, const ExplorerQuery& query,
                             const PositionGames* games) {
  nlohmann::json j = explore::format_json(report);
  j["in_book"] = report.in_book();
  nlohmann::json& moves = j["moves"];
  j["moves_total"] = moves.size();
  if (moves.size() > std::size_t(query.moves)) moves.erase(moves.begin() + query.moves, moves.end());
  for (std::size_t i = 0; i < moves.size(); ++i) {
    moves[i]["game"] = nullptr;
    if (!games) continue;
    for (const auto& [move, g] : games->single)
      if (move == report.moves[i].move.raw() && report.moves[i].counters.games == 1)
        moves[i]["game"] = game_summary_json(g);
  }
  j["topGames"] = nlohmann::json::array();
  if (games)
    for (std::size_t i = 0; i < games->top.size() && i < std::size_t(query.top_games); ++i)
      j["topGames"].push_back(game_summary_json(games->top[i]));
  return j;
}

std::string stored_game_pgn(const store::StoredGame& game) {
  std::string out;
  for (const auto& [name, value] : game.tags) {
    std::string escaped;
    for (char c : value) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    out += "[" + name + " \"" + escaped + "\"]\n";
  }
  out += "\n";
  Position pos = start_of(game);
  std::string line;
  auto add = [&](const std::string& word) {
    if (!line.empty() && line.size() + 1 + word.size() > 80) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  };
  bool first = true;
  for (Move m : game.moves) {
    if (!m) break;  // stored games hold no null moves; stop rather than print nonsense
    bool numbered = pos.side_to_move() == Color::White || first;
    add(numbered ? numbered_san(pos, m) : to_san(pos, m));
    first = false;
    UndoInfo undo;
    pos.do_move(m, undo);
  }
  std::string_view result = game.tag("Result");
  add(result.empty() ? "*" : std::string(result));
  return out + line + "\n";
}

}  // namespace gb::serve
