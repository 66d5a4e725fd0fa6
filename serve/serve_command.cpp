#include <unistd.h>

#include "book/explore/opening_names.h"
#include "book/store/exit_status.h"
#include "serve/commands.h"
#include "serve/server.h"

namespace gb::serve {

namespace {

// The running binary's path, to find the page's files beside it.
std::string binary_path() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

}  // namespace

void add_commands(CLI::App& app, int& exit_status) {
  struct Options {
    ServeOptions serve;
    std::string listen = "127.0.0.1:8642";
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("serve", kDescription);
  cmd->add_option("book", opt->serve.book, "The book file")->required();
  cmd->add_option("--listen", opt->listen,
                  "HOST:PORT to listen on (default 127.0.0.1:8642, this machine only; port 0: any free one)");
  cmd->add_option("--threads", opt->serve.threads,
                  "Threads answering requests; each serves one connection at a time (default 16)")
      ->check(CLI::Range(1, kMaxThreads));
  cmd->add_option("--web-root", opt->serve.web_root,
                  "The page's folder (serve/web, with node_modules); default: the source tree's");
  cmd->add_option("--eco", opt->serve.eco_tables,
                  "Opening-name table(s) (default " + std::string(explore::kDefaultEcoTable) + ")");
  cmd->add_flag("--no-names", opt->serve.no_names, "Do not look up opening names");
  // The default filter of /masters and /lichess; a request's own ratings,
  // speeds, since or until replace the one it names.
  command::add_filter_options(cmd, opt->serve.filter);
  cmd->footer(
      "Examples:\n"
      "  graphbook serve twic.book                      # then open http://127.0.0.1:8642/\n"
      "  graphbook serve twic.book --listen 0.0.0.0:8080 --threads 64\n"
      "  curl 'http://127.0.0.1:8642/masters?play=e2e4,c7c5'\n"
      "  curl 'http://127.0.0.1:8642/lichess?play=e2e4&ratings=2000,2200&speeds=blitz,rapid&since=2015'\n"
      "--ratings, --speeds, --since and --until (a book built with --buckets) filter every request that "
      "does\n"
      "not give its own.\n"
      "The API (lichess explorer's /masters, /lichess, /masters/pgn/ID; /api/tree, /api/query, /api/match,\n"
      "/api/info, /health) is described in docs/SERVE.md. SIGINT or SIGTERM stops it after the requests in\n"
      "flight. Exit status: 0 stopped by a signal, 2 bad option or address, a book that does not open, or a\n"
      "filter it cannot answer,\n"
      "3 a damaged book.");
  cmd->callback([opt, &exit_status] {
    auto address = parse_listen(opt->listen, opt->serve.host);
    if (!address) {
      std::fprintf(
          stderr,
          "graphbook serve: --listen: '%s' is not HOST:PORT (like 127.0.0.1:8642; port 0 takes a free "
          "one)\n",
          opt->listen.c_str());
      exit_status = store::kExitBadInput;
      return;
    }
    opt->serve.host = address->host;
    opt->serve.port = address->port;
    exit_status = serve(opt->serve, binary_path());
  });
}

}  // namespace gb::serve
