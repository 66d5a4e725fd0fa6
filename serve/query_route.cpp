#include "serve/query_route.h"

#include <httplib.h>

#include <charconv>
#include <chrono>
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
// Every query runs with a budget, these at most (and by default): a request
// may lower them with maxNodes and timeLimit. At about a million positions
// a second, either stops a walk that would hold a thread for seconds.
constexpr std::int64_t kMaxNodes = 2'000'000;
constexpr double kMaxSeconds = 2;
// The answer to a query stopped at its budget: the request was understood,
// but answering it whole needs more than the server gives a query (the same
// request stops again), and a client that looks only at the results must not
// take the part for the whole.
constexpr int kStatusStopped = 422;

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

// A number of seconds in [0, max] ("0.5", "2"); empty gives max.
std::optional<double> seconds(const httplib::Request& req, httplib::Response& res, const char* name,
                              double max) {
  const std::string value = req.get_param_value(name);
  if (value.empty()) return max;
  double s = -1;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), s);
  if (ec != std::errc() || end != value.data() + value.size() || !(s >= 0 && s <= max)) {
    send(res, 400,
         {{"error", std::string(name) + ": \"" + value + "\" is not a number of seconds from 0 to " +
                        Json(max).dump()}});
    return std::nullopt;
  }
  return s;
}

}  // namespace

bool query_available() { return true; }

void answer_query(ThreadReaders& readers, const explore::OpeningTable* names, const httplib::Request& req,
                  httplib::Response& res) {
  const auto received = std::chrono::steady_clock::now();
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
  auto max_nodes = number(req, res, "maxNodes", 1, kMaxNodes, kMaxNodes);
  if (!max_nodes) return;
  auto time_limit = seconds(req, res, "timeLimit", kMaxSeconds);
  if (!time_limit) return;
  const std::string fen = req.get_param_value("fen"), play = req.get_param_value("play");
  ParamError perror;
  auto root = parse_position(fen, "", &perror);
  auto from = root ? parse_position(fen, play, &perror) : std::nullopt;
  if (!from) return send(res, 400, {{"error", perror.message}});

  cql::QueryLoadError load_error;
  auto loaded = cql::load_query({{text}, "", "", "cql"}, &load_error);
  if (!loaded) return send(res, 400, {{"error", "cql: " + load_error.message()}});
  query::QueryOptions options;
  options.depth = int(*depth);
  options.max_ply = int(*max_ply);
  options.window = int(*window);
  options.start_ply = int(from->line.size()) - 1;
  options.messages = false;
  options.max_nodes = std::uint64_t(*max_nodes);
  options.deadline = received + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(*time_limit));
  query::QueryError error;
  auto run = query::run_graph_query(readers.book().book(), loaded->program, from->position, options, nullptr,
                                    &error);
  if (!run) return send(res, 503, {{"error", readers.book().book().path() + ": " + error.message()}});
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
    const explore::OpeningName* opening = names ? names->nearest(keys) : nullptr;
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
  Json answer = {{"searched", run->nodes_visited},
                 {"matched", run->matches.size()},
                 {"depth", *depth},
                 {"results", results}};
  if (run->stopped == query::StopReason::None) return send(res, 200, answer);
  const std::string budget = run->stopped == query::StopReason::NodeBudget
                                 ? "maxNodes=" + std::to_string(*max_nodes)
                                 : "timeLimit=" + Json(*time_limit).dump() + " s";
  answer["error"] = std::string("the query stopped at its ") + query::stop_reason_name(run->stopped) + " (" +
                    budget + ") after " + std::to_string(run->nodes_visited) +
                    " positions; narrow it with depth, maxPly, fen or play (results: what it found before)";
  answer["stopped"] = query::stop_reason_name(run->stopped);
  send(res, kStatusStopped, answer);
}

}  // namespace gb::serve
