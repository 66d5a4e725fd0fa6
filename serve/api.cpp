#include "serve/api.h"

#include <httplib.h>

#include <cassert>
#include <cctype>
#include <charconv>

#include "book/chess/notation.h"
#include "book/explore/book_tree.h"
#include "book/explore/bucket_view.h"
#include "book/pgn/game_record.h"
#include "match/match.h"
#include "serve/query_route.h"
#include "serve/request_params.h"

namespace gb::serve {

namespace {

using Json = nlohmann::json;

// JSON text that never throws: tags of stored games may hold bytes that are
// not UTF-8; they are replaced, not refused.
std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

void send_json(httplib::Response& res, const Json& j, int status = 200) {
  res.status = status;
  res.set_header("Access-Control-Allow-Origin", "*");
  res.set_content(dump(j), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, Json{{"error", message}}, status);
}

// The first value of a query parameter, "" when absent.
std::string param(const httplib::Request& req, const char* name) {
  auto it = req.params.find(name);
  return it == req.params.end() ? std::string() : it->second;
}

// The thread's readers with a fresh snapshot, or an answer sent (503).
ThreadReaders* begin_reading(ApiContext& ctx, httplib::Response& res) {
  ThreadReaders& readers = thread_readers();
  if (auto s = readers.begin_request(*ctx.source)) {
    send_error(res, 503, ctx.source->path() + ": " + s->message());
    return nullptr;
  }
  return &readers;
}

// The book's stored games for this request, or an error sent: missing_status
// when the book was built without --index-games (404 for a game asked by id,
// 400 for a request that needs them), 503 when LMDB fails.
std::optional<store::GameIndexReader> stored_games(ApiContext& ctx, ThreadReaders& readers,
                                                   httplib::Response& res, int missing_status) {
  store::Error e;
  auto index = readers.games(&e);
  if (!index) {
    if (e.code == MDB_NOTFOUND)
      send_error(res, missing_status, "the book holds no stored games: build it with --index-games");
    else
      send_error(res, 503, ctx.source->path() + ": " + e.message());
  }
  return index;
}

// The position of fen/play, or a 400 sent.
std::optional<explore::ResolvedPosition> position_of(const httplib::Request& req, httplib::Response& res) {
  ParamError error;
  auto where = parse_position(param(req, "fen"), param(req, "play"), &error);
  if (!where) send_error(res, 400, error.message);
  return where;
}

std::optional<std::int64_t> number(const httplib::Request& req, httplib::Response& res, const char* name,
                                   std::int64_t min, std::int64_t max, std::int64_t fallback) {
  ParamError error;
  auto n = parse_bounded(name, param(req, name), min, max, fallback, &error);
  if (!n) send_error(res, 400, error.message);
  return n;
}

// The filter parameters of a request: each the request's when it names it
// (even empty: "ratings=" asks for every band), else the server's default.
command::FilterOptions filter_params(const ApiContext& ctx, const httplib::Request& req) {
  auto value = [&](const char* name, const std::string& fallback) {
    return req.has_param(name) ? param(req, name) : fallback;
  };
  const command::FilterOptions& d = ctx.default_filter;
  command::FilterOptions f{value("ratings", d.ratings), value("speeds", d.speeds), value("since", d.since),
                           value("until", d.until), d.weights};  // weights: serve --weight only
  // lichess writes its months YYYY-MM; the command line also takes YYYY.MM.
  for (std::string* bound : {&f.since, &f.until})
    for (char& c : *bound)
      if (c == '.') c = '-';
  return f;
}

// The bucket filter of the parameters, in lichess's names and forms
// (ratings=2000,2200; speeds=blitz,rapid, ultraBullet as lichess spells it;
// since and until a year or a month); nullopt and the reason, naming the
// parameter, when one is wrong.
std::optional<store::BucketFilter> parse_request_filter(const command::FilterOptions& f, ParamError* error) {
  store::BucketFilter filter;
  store::FilterError why;
  if (!f.ratings.empty()) {
    auto bands = store::parse_bands(f.ratings, &why);
    if (!bands) return *error = {"ratings: " + why.message}, std::nullopt;
    filter.bands = *bands;
  }
  if (!f.speeds.empty()) {
    std::string lower = f.speeds;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    auto speeds = store::parse_speeds(lower, &why);
    if (!speeds) return *error = {"speeds: " + why.message}, std::nullopt;
    filter.speeds = *speeds;
  }
  // parse_year says what a bound may be (a year or a month, as before the
  // buckets, when since and until chose topGames only).
  if (!f.since.empty() && !parse_year("since", f.since, 0, error)) return std::nullopt;
  if (!f.until.empty() && !parse_year("until", f.until, 0, error)) return std::nullopt;
  if (!f.since.empty()) filter.since = store::parse_date_bound(f.since, false).value_or(0);
  if (!f.until.empty()) filter.until = store::parse_date_bound(f.until, true).value_or(0);
  // parse_year takes year 0000, which no date bound is.
  for (const char* name : {"since", "until"}) {
    const bool since = name[0] == 's';
    if (!(since ? f.since : f.until).empty() && !(since ? filter.since : filter.until))
      return *error = {std::string(name) + ": not a year (YYYY) or a month (YYYY-MM)"}, std::nullopt;
  }
  if (filter.since && filter.until && filter.since > filter.until)
    return *error = {"since " + f.since + " is after until " + f.until + ": no game could pass"},
           std::nullopt;
  if (!f.weights.empty()) {  // serve --weight, checked at start
    auto weighted = store::parse_filter("", "", "", "", &why, f.weights);
    assert(weighted);
    filter.named_weights = std::move(weighted->named_weights);
  }
  return filter;
}

void explore(ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto where = position_of(req, res);
  if (!where) return;
  auto moves = number(req, res, "moves", 0, 500, 12);
  if (!moves) return;
  auto top = number(req, res, "topGames", 0, kMaxTopGames, 4);
  if (!top) return;
  ParamError error;
  const command::FilterOptions filter_options = filter_params(ctx, req);
  auto filter = parse_request_filter(filter_options, &error);
  if (!filter) return send_error(res, 400, error.message);
  const int since = filter->since / 10000, until = filter->until ? filter->until / 10000 : 9999;
  ThreadReaders* readers = begin_reading(ctx, res);
  if (!readers) return;
  // The counts are filtered from the buckets. A book without them answers
  // since and until as it always did (topGames only) and refuses the rest.
  const auto& params = readers->reader().bucket_params();
  const bool filtered = filter->active() && (params || filter->bands || filter->speeds);
  if (filtered) {
    if (auto refusal = store::filter_refusal(ctx.source->path(), params, *filter))
      return send_error(res, 400, refusal->message);
    if (auto unknown = store::resolve_weights(*filter, readers->book().book().sources()))
      return send_error(res, 400, unknown->message);
  }
  store::Error e;
  auto report = explore::make_report(readers->reader(), *where, ctx.names, &e);
  if (!report) return send_error(res, 503, ctx.source->path() + ": " + e.message());
  if (filtered)
    if (auto s = explore::filter_report(readers->reader(), *report, *filter))
      return send_error(res, 503, ctx.source->path() + ": " + s->message());
  ExplorerQuery query{int(*moves), int(*top), since, until};
  std::shared_ptr<const PositionGames> games;
  if (readers->book().has_games() && report->in_book()) {
    std::uint64_t generation = readers->book().generation();
    Key key = where->position.key();
    games = ctx.games_cache.find(generation, key, since, until);
    if (!games) {
      auto index = readers->games(&e);
      std::vector<store::IndexRow> rows;
      std::optional<PositionGames> found;
      if (index) {
        if (auto s = index->rows(key, rows)) e = *s;
        if (!e.code) found = position_games(*index, where->position, rows, since, until, &e);
      }
      if (e.code) return send_error(res, 503, ctx.source->path() + ": " + e.message());
      if (found) {
        games = std::make_shared<const PositionGames>(std::move(*found));
        ctx.games_cache.put(generation, key, since, until, games);
      }
    }
  }
  Json answer = explorer_json(*report, query, games.get());
  if (filtered) answer["filter"] = filter_options.json();
  send_json(res, answer);
}

void stored_pgn(ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::string id_text = req.matches[1];
  ParamError error;
  auto id = parse_bounded("id", id_text, 0, UINT32_MAX, -1, &error);
  if (!id || *id < 0) return send_error(res, 400, id ? "id: missing" : error.message);
  ThreadReaders* readers = begin_reading(ctx, res);
  if (!readers) return;
  auto index = stored_games(ctx, *readers, res, 404);
  if (!index) return;
  store::Error e;
  auto game = index->game(std::uint32_t(*id), &e);
  if (!game) {
    if (e.code) return send_error(res, 503, ctx.source->path() + ": " + e.message());
    return send_error(
        res, 404,
        "no stored game " + id_text + " (the book holds " + std::to_string(index->game_count()) + ")");
  }
  res.set_header("Access-Control-Allow-Origin", "*");
  res.set_content(stored_game_pgn(*game), "application/x-chess-pgn");
}

void tree(ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto where = position_of(req, res);
  if (!where) return;
  auto depth = number(req, res, "depth", 0, 8, 3);
  if (!depth) return;
  auto min_games = number(req, res, "minGames", 1, UINT32_MAX, 1);
  if (!min_games) return;
  auto max_nodes = number(req, res, "maxNodes", 1, 400, 60);
  if (!max_nodes) return;
  ParamError error;
  auto format = parse_choice("format", param(req, "format"), {"json", "svg"}, &error);
  if (!format) return send_error(res, 400, error.message);
  ThreadReaders* readers = begin_reading(ctx, res);
  if (!readers) return;
  explore::TreeOptions options{int(*depth), std::uint32_t(*min_games), std::size_t(*max_nodes)};
  store::Error e;
  auto built = explore::build_tree(readers->reader(), *where, options, ctx.names, &e);
  if (!built) return send_error(res, 503, ctx.source->path() + ": " + e.message());
  if (*format == "json") return send_json(res, explore::tree_json(*built));
  explore::ExploreError svg_error;
  auto svg = explore::render_svg(explore::tree_dot(*built), &svg_error);
  if (!svg) return send_error(res, 501, svg_error.message);
  res.set_content(*svg, "image/svg+xml");
}

// The game a client posts to /api/match, replayed.
struct PostedGame {
  std::vector<std::pair<std::string, std::string>> tags;
  Position start;
  std::vector<Move> moves;
  std::vector<Key> keys;
  std::vector<std::string> sans;
};

std::vector<std::string> sans_of(Position pos, std::span<const Move> moves) {
  std::vector<std::string> out;
  for (Move m : moves) {
    out.push_back(m ? to_san(pos, m) : "--");
    UndoInfo undo;
    if (m)
      pos.do_move(m, undo);
    else
      pos.do_null_move(undo);
  }
  return out;
}

std::string player_line(const std::vector<std::pair<std::string, std::string>>& tags) {
  auto tag = [&](std::string_view name) {
    for (const auto& [n, v] : tags)
      if (n == name) return v;
    return std::string("?");
  };
  return tag("White") + " – " + tag("Black");
}

void match(ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto number_in_body = number(req, res, "game", 1, 1000000, 1);
  if (!number_in_body) return;
  auto top = number(req, res, "top", 1, 20, 1);
  if (!top) return;
  if (req.body.empty()) return send_error(res, 400, "body: empty; post the PGN of the game to match");
  std::optional<PostedGame> game;
  std::string game_error;
  pgn::ReadSummary summary =
      pgn::read_games(pgn::ByteSource::from_memory(req.body, "body"), [&](const pgn::GameRecord& r) {
        if (game || r.game_number != std::uint64_t(*number_in_body)) return;
        PostedGame& g = game.emplace();
        g.tags = r.tags;
        g.start = r.start;
        Position pos = r.start;
        g.keys.push_back(pos.key());
        for (const auto& ply : r.mainline) {
          g.moves.push_back(ply.move);
          UndoInfo undo;
          if (ply.move)
            pos.do_move(ply.move, undo);
          else
            pos.do_null_move(undo);
          g.keys.push_back(pos.key());
        }
        g.sans = sans_of(r.start, g.moves);
      });
  if (!game) {
    for (const auto& e : summary.stored_errors)
      if (e.game_number == std::uint64_t(*number_in_body) && !e.in_variation)
        return send_error(res, 400, "body: " + e.message());
    return send_error(res, 400,
                      "body: no game " + std::to_string(*number_in_body) + " in the PGN (" +
                          std::to_string(summary.games_read) + " read)");
  }
  ThreadReaders* readers = begin_reading(ctx, res);
  if (!readers) return;
  auto index = stored_games(ctx, *readers, res, 400);
  if (!index) return;
  store::Error e;
  match::RunFinder finder;
  std::vector<store::IndexRow> rows;
  std::vector<match::MatchRun> runs;
  if (auto s = match::match_keys(*index, game->keys, std::size_t(*top), finder, rows, runs))
    return send_error(res, 503, ctx.source->path() + ": " + s->message());
  Json matches = Json::array();
  for (const match::MatchRun& run : runs) {
    auto stored = index->game(run.game, &e);
    if (!stored)
      return send_error(res, 503, ctx.source->path() + ": stored game " + std::to_string(run.game));
    Position start =
        stored->start_fen.empty() ? Position() : Position::from_fen(stored->start_fen).value_or(Position());
    std::vector<std::string> sans = sans_of(start, stored->moves);
    Json tags = Json::object();
    for (const auto& [n, v] : stored->tags) tags[n] = v;
    auto last = std::size_t(run.stored_end_ply());
    matches.push_back(
        {{"id", std::to_string(run.game)},
         {"name", player_line(stored->tags)},
         {"tags", tags},
         {"start_fen", start.fen()},
         {"san", sans},
         {"length", run.length},
         {"submitted_start_ply", run.submitted_start_ply},
         {"stored_start_ply", run.stored_start_ply},
         {"submitted_end_ply", run.submitted_end_ply()},
         {"stored_end_ply", run.stored_end_ply()},
         {"parting_move", run.parting_move && last < sans.size() ? Json(sans[last]) : Json(nullptr)}});
  }
  send_json(res, {{"submitted",
                   {{"name", player_line(game->tags)},
                    {"start_fen", game->start.fen()},
                    {"plies", game->moves.size()},
                    {"san", game->sans}}},
                  {"matches", matches}});
}

void info(ApiContext& ctx, httplib::Response& res) {
  ThreadReaders* readers = begin_reading(ctx, res);
  if (!readers) return;
  builder::BuildError error;
  auto info = readers->book().info(&error);
  if (!info) return send_error(res, 503, ctx.source->path() + ": " + error.message);
  const auto& params = readers->reader().bucket_params();
  Json buckets = params ? Json{{"by_month", params->by_month}} : Json(nullptr);
  send_json(res, {{"book", ctx.source->path()},
                  {"version", GRAPHBOOK_SERVE_VERSION},
                  {"generation", readers->book().generation()},
                  {"stored_games", readers->book().has_games()},
                  {"opening_names", ctx.names ? ctx.names->size() : 0},
                  {"threads", ctx.threads},
                  {"query", query_available()},
                  // Whether /masters can filter (the page shows its choices), and by what by default.
                  {"buckets", buckets},
                  {"filter", ctx.default_filter.given() ? ctx.default_filter.json() : Json(nullptr)},
                  {"info", *info}});
}

void send_page(ApiContext& ctx, httplib::Response& res) {
  std::string path = ctx.web_root + "/static/index.html";
  std::FILE* f = ctx.web_root.empty() ? nullptr : std::fopen(path.c_str(), "rb");
  if (!f)
    return send_error(
        res, 404, "the page's files were not found (give --web-root; see docs/SERVE.md); the API answers");
  std::string text;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  res.set_content(text, "text/html; charset=utf-8");
}

}  // namespace

void add_routes(httplib::Server& server, ApiContext& ctx) {
  auto explore_route = [&ctx](const httplib::Request& req, httplib::Response& res) {
    explore(ctx, req, res);
  };
  server.Get("/masters", explore_route);
  server.Get("/lichess", explore_route);
  server.Get(R"(/masters/pgn/([^/]*))",
             [&ctx](const httplib::Request& req, httplib::Response& res) { stored_pgn(ctx, req, res); });
  server.Get("/api/tree",
             [&ctx](const httplib::Request& req, httplib::Response& res) { tree(ctx, req, res); });
  server.Get("/api/query", [&ctx](const httplib::Request& req, httplib::Response& res) {
    ThreadReaders* readers = begin_reading(ctx, res);
    if (readers) answer_query(*readers, ctx.names, req, res);
  });
  server.Post("/api/match",
              [&ctx](const httplib::Request& req, httplib::Response& res) { match(ctx, req, res); });
  server.Get("/api/info", [&ctx](const httplib::Request&, httplib::Response& res) { info(ctx, res); });
  server.Get("/health", [&ctx](const httplib::Request&, httplib::Response& res) {
    send_json(res, {{"status", "ok"}, {"generation", ctx.source->generation()}});
  });
  server.Get("/", [&ctx](const httplib::Request&, httplib::Response& res) { send_page(ctx, res); });
  if (!ctx.web_root.empty()) {
    server.set_mount_point("/static", ctx.web_root + "/static");
    server.set_mount_point("/vendor", ctx.web_root + "/node_modules");
    server.set_file_extension_and_mimetype_mapping("mjs", "text/javascript");
    server.set_file_extension_and_mimetype_mapping("js", "text/javascript");
  }
}

}  // namespace gb::serve
