// The routes of `graphbook serve` (docs/SERVE.md): the lichess explorer's
// GET /masters, /lichess and /masters/pgn/{id}, and our /api/tree,
// /api/query, /api/match, /api/info, /health, and the page.
//
// Every answer is JSON (or PGN, SVG, the page's files). A bad request gets 400
// and {"error": "..."} naming the parameter; a book that fails to read gets
// 503; nothing a client sends is meant to reach a 500.
#pragma once

#include <string>

#include "book/explore/opening_names.h"
#include "command/filter_options.h"
#include "serve/book_source.h"
#include "serve/explorer.h"

namespace httplib {
class Server;
}

namespace gb::serve {

struct ApiContext {
  BookSource* source = nullptr;
  const explore::OpeningTable* names = nullptr;  // nullptr: no opening names
  std::string web_root;                          // "" : no page (the API still answers)
  int threads = 0;
  // serve --ratings/--speeds/--since/--until: what a request to /masters or
  // /lichess filters by where it does not name the parameter itself.
  command::FilterOptions default_filter;
  GamesCache games_cache;
};

void add_routes(httplib::Server& server, ApiContext& context);

}  // namespace gb::serve
