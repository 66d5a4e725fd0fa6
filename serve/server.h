// `graphbook serve`: the explorer API and its page over one book, on
// cpp-httplib (Debian's libcpp-httplib-dev). Routes and their answers are in
// docs/SERVE.md; the handlers are in api.cpp, this is the server around them:
// the listening socket, the thread pool, the limits and the signals.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "command/filter_options.h"

namespace gb::serve {

struct ServeOptions {
  std::string book;
  std::string host = "127.0.0.1";
  int port = 8642;  // 0: any free port (the one taken is printed)
  int threads = 16;
  std::string web_root;  // the page's folder (serve/web); empty: found beside the source tree
  std::vector<std::string> eco_tables;
  bool no_names = false;
  // --ratings, --speeds, --since, --until: the filter of every request to
  // /masters and /lichess that does not give its own (docs/SERVE.md).
  command::FilterOptions filter;
};

// The most threads: each holds up to two LMDB read transactions, and a book's
// reader table has 254 slots shared with every other process reading it.
inline constexpr int kMaxThreads = 120;
// Request limits: cpp-httplib refuses a request line past 8,192 bytes (its
// compiled CPPHTTPLIB_REQUEST_URI_MAX_LENGTH) and a header line past 8,192;
// a body (POST /api/match) past this is refused before it is read.
inline constexpr std::size_t kMaxBodyBytes = 1 << 20;

struct ListenAddress {
  std::string host;
  int port = 0;
};
// "HOST:PORT", "[V6]:PORT" or "PORT" (on default_host); nullopt when it does
// not parse, the one way it fails (the caller says what --listen takes).
[[nodiscard]] std::optional<ListenAddress> parse_listen(const std::string& text,
                                                        const std::string& default_host);

// The folder of the page: options.web_root, else GRAPHBOOK_SOURCE_DIR/serve/web
// (the source tree the binary was built from), else serve/web beside the
// binary's ../.. ; "" when none holds static/index.html.
std::string find_web_root(const std::string& requested, const std::string& binary_path);

// Serves until SIGINT or SIGTERM, then stops accepting, finishes the requests
// in flight and returns 0; 2 or 3 (the README's table) when the book does not
// open, 2 when the address cannot be bound.
int serve(const ServeOptions& options, const std::string& binary_path);

}  // namespace gb::serve
