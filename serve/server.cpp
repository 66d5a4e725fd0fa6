#include "serve/server.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <charconv>
#include <cstdio>
#include <thread>

#include "book/explore/book_reader.h"
#include "book/store/exit_status.h"
#include "command/support.h"
#include "serve/api.h"

#ifndef GRAPHBOOK_SOURCE_DIR
#define GRAPHBOOK_SOURCE_DIR ""
#endif

namespace gb::serve {

namespace {

bool has_page(const std::string& dir) {
  struct stat st;
  return !dir.empty() && ::stat((dir + "/static/index.html").c_str(), &st) == 0;
}

// Every error answer is JSON, also those cpp-httplib makes itself (no
// route, a request line or body past the limits), and a request the
// library refuses for its size is a bad request (400), as the API says.
httplib::Server::HandlerResponse on_error(const httplib::Request& req, httplib::Response& res) {
  if (res.get_header_value("Content-Type") == "application/json")
    return httplib::Server::HandlerResponse::Unhandled;
  std::string message;
  switch (res.status) {
    case 404: message = "no such resource: " + req.path + " (see docs/SERVE.md)"; break;
    case 413: message = "the body is longer than " + std::to_string(kMaxBodyBytes) + " bytes"; break;
    case 414: message = "the request line is longer than 8192 bytes"; break;
    case 431: message = "a header is too long"; break;
    default: message = "bad request (HTTP " + std::to_string(res.status) + ")";
  }
  if (res.status == 413 || res.status == 414 || res.status == 431) res.status = 400;
  res.set_header("Access-Control-Allow-Origin", "*");
  res.set_content(nlohmann::json{{"error", message}}.dump(), "application/json");
  return httplib::Server::HandlerResponse::Handled;
}

}  // namespace

std::optional<ListenAddress> parse_listen(const std::string& text, const std::string& default_host) {
  std::string host = default_host, port_text = text;
  if (auto colon = text.rfind(':'); colon != std::string::npos) {
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  }
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (host.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 ||
      port > 65535)
    return std::nullopt;
  return ListenAddress{host, port};
}

std::string find_web_root(const std::string& requested, const std::string& binary_path) {
  if (!requested.empty()) return has_page(requested) ? requested : "";
  std::string from_source = std::string(GRAPHBOOK_SOURCE_DIR) + "/serve/web";
  if (has_page(from_source)) return from_source;
  // build/cli/graphbook -> serve/web beside build/
  std::string dir = binary_path;
  for (int up = 0; up < 3 && !dir.empty(); ++up) {
    auto slash = dir.rfind('/');
    dir = slash == std::string::npos ? "" : dir.substr(0, slash);
    if (has_page(dir + "/serve/web")) return dir + "/serve/web";
  }
  return "";
}

int serve(const ServeOptions& o, const std::string& binary_path) {
  command::PositionOptions names_options;
  names_options.eco_tables = o.eco_tables;
  names_options.no_names = o.no_names;
  auto names = command::load_names("serve", names_options);
  if (!names) return store::kExitBadInput;
  store::BookError error;
  auto source = BookSource::open(o.book, &error);
  if (!source) {
    std::fprintf(stderr, "graphbook serve: %s\n", error.message.c_str());
    return store::exit_status_for(error);
  }
  // A default filter the book cannot answer (no buckets, months of a book of
  // years) is refused at start, as probe refuses it, not at every request.
  if (o.filter.given()) {
    store::Error e;
    auto reader = explore::BookReader::open(source->current()->book(), &e);
    if (!reader) {
      std::fprintf(stderr, "graphbook serve: %s: %s\n", o.book.c_str(), e.message().c_str());
      return store::kExitDamagedBook;
    }
    bool refused = false;
    (void)command::resolve_filter("serve", o.filter, o.book, reader->bucket_params(),
                                  source->current()->book().sources(), &refused);
    if (refused) return store::kExitBadInput;
  }
  ApiContext ctx;
  ctx.source = source.get();
  ctx.default_filter = o.filter;
  ctx.names = names->empty() ? nullptr : &*names;
  ctx.web_root = find_web_root(o.web_root, binary_path);
  ctx.threads = o.threads;
  if (ctx.web_root.empty())
    std::fprintf(stderr,
                 "graphbook serve: the page's files were not found%s%s; the API answers, the page does not "
                 "(give --web-root DIR, the serve/web folder with its node_modules)\n",
                 o.web_root.empty() ? "" : " in ", o.web_root.c_str());

  // SIGINT and SIGTERM go to one thread that stops the server; every other
  // thread (the pool's, made after this) has them blocked.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);  // the main thread's "the server ended by itself"
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is its own business

  httplib::Server server;
  const int threads = o.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(std::size_t(threads)); };
  // One connection holds a pool thread while it is kept alive (blocking
  // I/O), so keep-alive is long enough for a client's burst of requests and
  // bounded so that idle connections give their threads back.
  server.set_keep_alive_max_count(100000);
  server.set_keep_alive_timeout(2);
  server.set_read_timeout(5);
  server.set_write_timeout(5);
  server.set_tcp_nodelay(true);  // headers and body are two writes: no Nagle wait between them
  server.set_payload_max_length(kMaxBodyBytes);
  server.set_error_handler(httplib::Server::HandlerWithResponse(on_error));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    std::fprintf(stderr, "graphbook serve: a request failed: %s\n", what.c_str());
    res.status = 503;
    res.set_content(nlohmann::json{{"error", "the server could not answer: " + what}}.dump(
                        -1, ' ', false, nlohmann::json::error_handler_t::replace),
                    "application/json");
  });
  add_routes(server, ctx);

  int port = o.port;
  bool bound = port == 0 ? (port = server.bind_to_any_port(o.host)) > 0 : server.bind_to_port(o.host, port);
  if (!bound) {
    std::fprintf(stderr,
                 "graphbook serve: cannot listen on %s:%d (in use, or not an address of this machine)\n",
                 o.host.c_str(), o.port);
    return store::kExitBadInput;
  }
  std::string shown_host = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  std::printf("graphbook serve: %s on http://%s:%d/ (%d threads; Ctrl-C stops)\n", o.book.c_str(),
              shown_host.c_str(), port, threads);
  std::fflush(stdout);

  std::thread stopper([&server, &stop_signals] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    if (signal != SIGUSR1)
      std::fprintf(stderr, "graphbook serve: stopping: finishing the requests in flight\n");
    server.stop();
  });
  bool clean = server.listen_after_bind();
  pthread_kill(stopper.native_handle(), SIGUSR1);
  stopper.join();
  if (!clean) std::fprintf(stderr, "graphbook serve: the listening socket failed\n");
  return clean ? 0 : store::kExitBadInput;
}

}  // namespace gb::serve
