#include "serve/query_route.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "book/chess/notation.h"
#include "book/cql/query_source.h"
#include "query/graph_query.h"
#include "serve/request_params.h"

namespace gb::serve {

namespace {

using Json = nlohmann::json;

// The longest query text read.
constexpr std::size_t kMaxQueryText = 4096;

void send(httplib::Response& res, int status, const Json& j) {
  res.status = status;
  res.set_header("Access-Control-Allow-Origin", "*");
  res.set_content(j.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

std::optional<std::int64_t> number(const httplib::Request& req, httplib::Response& res, const char* name,
                                   std::int64_t min, std::int64_t max, std::int64_t fallback) {
  ParamError error;
  auto n = parse_bounded(name, req.get_param_value(name), min, max, fallback, &error);
  if (!n) send(res, 400, {{"error", error.message}});
  return n;
}

}  // namespace

bool query_available() { return true; }

void answer_query(ThreadReaders& readers, const probe::OpeningTable* names, const httplib::Request& req,
                  httplib::Response& res) {
  const std::string text = req.get_param_value("cql");
  if (text.empty())
    return send(res, 400, {{"error", "cql: missing; give a CQL query, for example cql=check"}});
  if (text.size() > kMaxQueryText)
    return send(res, 400, {{"error", "cql: longer than " + std::to_string(kMaxQueryText) + " characters"}});
  // The budget of a query is the part of the graph it may walk: at most
  // kMaxDepth plies below its start (the page starts it at the position shown).
  constexpr int kMaxDepth = 8;
  auto depth = number(req, res, "depth", 0, kMaxDepth, 4);
  if (!depth) return;
  auto max_ply = number(req, res, "maxPly", 0, 1000, 0);
  if (!max_ply) return;
  auto window = number(req, res, "window", 1, 16, 4);
  if (!window) return;
  auto limit = number(req, res, "limit", 1, 1000, 50);
  if (!limit) return;
  const std::string fen = req.get_param_value("fen"), play = req.get_param_value("play");
  ParamError perror;
  auto root = parse_position(fen, "", &perror);
  auto from = root ? parse_position(fen, play, &perror) : std::nullopt;
  if (!from) return send(res, 400, {{"error", perror.message}});

  std::string error;
  auto loaded = cql::load_query({{text}, "", "", "cql"}, &error);
  if (!loaded) return send(res, 400, {{"error", "cql: " + error}});
  query::QueryOptions options;
  options.depth = int(*depth);
  options.max_ply = int(*max_ply);
  options.window = int(*window);
  options.start_ply = int(from->line.size()) - 1;
  options.messages = false;
  auto run = query::run_graph_query(readers.book().book(), loaded->program, from->position, options, nullptr,
                                    &error);
  if (!run) return send(res, 503, {{"error", readers.book().book().path() + ": " + error}});
  if (!run->fatal.empty()) return send(res, 400, {{"error", "the query stopped: " + run->fatal}});
  query::sort_matches(loaded->program, run->matches);

  // Each result as a line the page can walk: the request's moves, then the traversal's.
  std::vector<std::string> play_ucis;
  for (std::size_t start = 0; start < play.size();) {
    std::size_t comma = std::min(play.find(',', start), play.size());
    play_ucis.push_back(play.substr(start, comma - start));
    start = comma + 1;
  }
  Json results = Json::array();
  for (std::size_t i = 0; i < run->matches.size() && i < std::size_t(*limit); ++i) {
    const query::NodeMatch& m = run->matches[i];
    Position pos = from->position;
    std::vector<Key> keys = from->line;
    Json ucis = play_ucis;
    std::string line = from->moves_san;
    for (Move mv : run->line(m.visit)) {
      bool numbered = pos.side_to_move() == Color::White || line.empty();
      line += (line.empty() ? "" : " ") + (numbered ? numbered_san(pos, mv) : to_san(pos, mv));
      ucis.push_back(to_uci(mv, pos.chess960()));
      UndoInfo undo;
      pos.do_move(mv, undo);
      keys.push_back(pos.key());
    }
    const probe::OpeningName* opening = names ? names->nearest(keys) : nullptr;
    const store::Counters& c = m.record.counters;
    results.push_back(
        {{"fen", pos.fen()},
         {"key", key_hex(m.key)},
         {"line", line},
         {"uci", ucis},
         {"start_fen", root->position.fen()},
         {"ply", m.ply},
         {"games", c.games},
         {"white", c.white_wins},
         {"draws", c.draws},
         {"black", c.black_wins},
         {"opening", opening ? Json{{"eco", opening->eco}, {"name", opening->name}} : Json(nullptr)}});
  }
  send(res, 200,
       {{"searched", run->nodes_visited},
        {"matched", run->matches.size()},
        {"depth", *depth},
        {"results", results}});
}

}  // namespace gb::serve
