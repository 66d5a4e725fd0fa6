// Helpers of the serve tests: a `graphbook serve` process on a free port of
// the loopback, HTTP through curl (an independent client), the twic0920 book
// built here with its stored games, and counts made from the PGN with the
// chess core alone.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "probe/probe_helpers.h"

namespace gb::test {

// `graphbook serve BOOK --listen 127.0.0.1:0 ARGS...`, started and waited
// for (its first line names the address); stopped with SIGTERM when the
// object goes. Deadlines only stop hangs.
class ServerProcess {
 public:
  explicit ServerProcess(const std::string& book, std::vector<std::string> args = {}) {
    int out[2];
    if (::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      std::vector<std::string> argv_s = {graphbook_binary(), "serve", book, "--listen", "127.0.0.1:0"};
      argv_s.insert(argv_s.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : argv_s) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    out_ = out[0];
    // The first line: "graphbook serve: BOOK on http://127.0.0.1:PORT/ (...)".
    std::string line;
    pollfd p{out_, POLLIN, 0};
    while (line.find('\n') == std::string::npos && ::poll(&p, 1, 30000) > 0) {
      char buf[512];
      ssize_t n = ::read(out_, buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, std::size_t(n));
    }
    first_line = line;
    auto at = line.find("http://");
    if (at != std::string::npos) url = line.substr(at, line.find('/', at + 7) - at);
  }
  ~ServerProcess() { stop(); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Sends sig and waits for the exit (30 s, then SIGKILL); the exit status, -1 when killed.
  int stop(int sig = SIGTERM) {
    if (pid_ <= 0) return status_;
    ::kill(pid_, sig);
    int status = 0;
    for (int i = 0; i < 300; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        ::close(out_);
        return status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::fprintf(stderr, "graphbook serve did not stop within 30 s of signal %d: killed\n", sig);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status_ = -1;
  }
  pid_t pid() const { return pid_; }

  std::string url;  // "http://127.0.0.1:PORT"; empty when it did not start
  std::string first_line;

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  int status_ = -1;
};

struct HttpAnswer {
  int status = 0;
  std::string body;
  nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
};

// GET (or POST with body_file) through curl; 30 s at most.
inline HttpAnswer http(const std::string& url, const std::string& body_file = "") {
  static TempDir dir("graphbook-serve-http");
  static int serial = 0;
  std::string out = dir.file("body" + std::to_string(serial++));
  std::string command = "curl -s -g --max-time 30 -o " + quote(out) + " -w '%{http_code}' " +
                        (body_file.empty() ? "" : "--data-binary @" + quote(body_file) + " ") + quote(url);
  Run r = run_shell(command);
  HttpAnswer a;
  a.status = std::atoi(r.out.c_str());
  a.body = read_file(out);
  std::remove(out.c_str());
  return a;
}

// Sends raw bytes to the server at url ("http://127.0.0.1:PORT") and returns
// all it answers until it closes the connection or 30 s pass (for requests
// that curl will not send, such as a request line of 10 MB).
inline std::string raw_http(const std::string& url, const std::string& bytes) {
  int port = std::atoi(url.substr(url.rfind(':') + 1).c_str());
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(std::uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return answer;
  timeval timeout{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  for (std::size_t sent = 0; sent < bytes.size();) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer and close before reading it all
    sent += std::size_t(n);
  }
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, std::size_t(n));
  ::close(fd);
  return answer;
}

// The twic0920 book with its stored games (--index-games), built once per test process.
inline const std::string& twic_games_book() {
  static const std::string path = [] {
    std::string book = temp_dir() + "/twic-games.book";
    Run r = graphbook(
        "build " + quote(book) + " " + quote(data_path("pgn/small/twic0920.pgn")) + " --index-games --quiet",
        true);
    if (r.status != 0) std::fprintf(stderr, "build failed: %s\n", r.out.c_str());
    return book;
  }();
  return path;
}

// Counts of one position from the PGN alone: the games that reach it within the
// book's 40 plies (each once), by result, and per move played from it.
struct CountedPosition {
  int games = 0, white = 0, draws = 0, black = 0;
  std::map<std::string, int> moves;  // uci -> games that played it there
};
inline CountedPosition count_position(const std::vector<ReplayedGame>& games, const Position& pos) {
  CountedPosition c;
  Key key = pos.key();
  for (const ReplayedGame& g : games) {
    bool reached = false;
    std::set<std::string> played;
    for (std::size_t i = 0; i < g.keys.size() && i <= 40; ++i) {
      if (g.keys[i] != key) continue;
      reached = true;
      if (i < g.moves.size() && i < 40) played.insert(to_uci(g.moves[i], false));
    }
    if (!reached) continue;
    ++c.games;
    c.white += g.result == "1-0";
    c.draws += g.result == "1/2-1/2";
    c.black += g.result == "0-1";
    for (const auto& m : played) ++c.moves[m];
  }
  return c;
}

}  // namespace gb::test
