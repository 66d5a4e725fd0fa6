// bench/uci: what the UCI adapter costs a GUI, against Stockfish spoken to
// directly, in the same run.
//
//   bench_uci [GRAPHBOOK] [STOCKFISH]   (defaults: $GRAPHBOOK or build/cli/graphbook, /usr/games/stockfish)
//
// 1. Book answers: `position ...` + `go wtime ...` to `bestmove`, round trip
//    through the pipes as a GUI sees it, over the book's main line (a book made
//    with `graphbook build` from TWIC 920 in a temporary directory): the first
//    answer of a fresh adapter alone (the one a GUI waits for after the
//    handshake; it was once a 500 ms check in the tests, which assert no
//    latency), then p50, p99 of the warm ones.
// 2. Pass-through: `isready` to `readyok` round trips, alternately through
//    the adapter and straight to a second Stockfish: p50, p99 of each, in
//    five blocks of 1000.
// The last line is
//   RATIO uci_passthrough_overhead <adapter p50 round trip / direct p50 round trip, quietest block of each>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/data_dir.h"

namespace {

using Clock = std::chrono::steady_clock;

// A child process spoken to through two pipes, lines in and out (blocking).
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv) {
    int in[2], out[2];
    if (::pipe(in) || ::pipe(out)) std::perror("pipe"), std::exit(1);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Child() {
    send("quit");
    ::close(to_);
    int status;
    ::waitpid(pid_, &status, 0);
    ::close(from_);
  }
  void send(const std::string& line) {
    std::string text = line + "\n";
    if (::write(to_, text.data(), text.size()) != ssize_t(text.size())) std::perror("write");
  }
  // Reads lines until one starts with prefix.
  void until(const std::string& prefix) {
    for (;;) {
      std::size_t nl;
      while ((nl = buffer_.find('\n')) != std::string::npos) {
        bool hit = buffer_.compare(0, prefix.size(), prefix) == 0;
        buffer_.erase(0, nl + 1);
        if (hit) return;
      }
      char chunk[4096];
      ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0)
        std::fprintf(stderr, "bench_uci: child ended waiting for '%s'\n", prefix.c_str()), std::exit(1);
      buffer_.append(chunk, std::size_t(n));
    }
  }

 private:
  pid_t pid_;
  int to_, from_;
  std::string buffer_;
};

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

struct Percentiles {
  double p50, p99;
};
Percentiles percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 99 / 100)]};
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("GRAPHBOOK");
  std::string graphbook = argc > 1 ? argv[1] : env ? env : "build/cli/graphbook";
  std::string stockfish = argc > 2 ? argv[2] : "/usr/games/stockfish";
  ::signal(SIGPIPE, SIG_IGN);

  char dir_template[] = "/tmp/bench-uci-XXXXXX";
  std::string dir = ::mkdtemp(dir_template);
  std::string book = dir + "/twic0920.book";
  std::string build = graphbook + " build " + book + " " + gb::bench::test_data("pgn/small/twic0920.pgn") +
                      " --quiet >/dev/null";
  if (std::system(build.c_str()) != 0) return std::fprintf(stderr, "bench_uci: cannot build the book\n"), 1;

  Child adapter({graphbook, "uci", "--book", book, "--", stockfish});
  Child direct({stockfish});
  for (Child* c : {&adapter, &direct}) {
    c->send("uci");
    c->until("uciok");
    c->send("isready");
    c->until("readyok");
  }

  // 1. Book answers along the book's main line (the adapter's own choices).
  const char* line[] = {"", " e2e4", " e2e4 c7c5", " e2e4 c7c5 g1f3", " e2e4 c7c5 g1f3 d7d6"};
  constexpr int kBookRounds = 2000;
  std::vector<double> book_times;
  double first_answer = 0;
  for (int i = 0; i < kBookRounds + 100; ++i) {
    std::string moves = line[i % 5];
    std::string position = "position startpos" + (moves.empty() ? "" : " moves" + moves);
    auto t0 = Clock::now();
    adapter.send(position);
    adapter.send("go wtime 60000 btime 60000");
    adapter.until("bestmove");
    if (i == 0) first_answer = micros(Clock::now() - t0);
    if (i >= 100) book_times.push_back(micros(Clock::now() - t0));  // the first 100 warm the book
  }

  // 2. Pass-through round trips, alternating so both see the same machine
  // state, in blocks: the ratio uses the quietest block's medians, since other
  // work on the machine only ever adds time.
  constexpr int kBlocks = 5, kRounds = 1000;
  std::vector<double> via, straight;
  double best_via = 1e18, best_straight = 1e18;
  for (int block = 0; block < kBlocks; ++block) {
    std::vector<double> v, d;
    for (int i = 0; i < kRounds; ++i) {
      for (Child* c : {&adapter, &direct}) {
        auto t0 = Clock::now();
        c->send("isready");
        c->until("readyok");
        (c == &adapter ? v : d).push_back(micros(Clock::now() - t0));
      }
    }
    best_via = std::min(best_via, percentiles(v).p50);
    best_straight = std::min(best_straight, percentiles(d).p50);
    via.insert(via.end(), v.begin(), v.end());
    straight.insert(straight.end(), d.begin(), d.end());
  }
  auto b = percentiles(book_times), v = percentiles(via), s = percentiles(straight);
  std::printf("first book answer after the handshake: %.2f ms (the budget: 500 ms)\n", first_answer / 1000);
  std::printf("book answer (position + go -> bestmove), %d rounds: p50 %.1f us, p99 %.1f us\n", kBookRounds,
              b.p50, b.p99);
  std::printf("isready round trip through the adapter, %d rounds: p50 %.1f us, p99 %.1f us\n",
              kBlocks * kRounds, v.p50, v.p99);
  std::printf("isready round trip straight to Stockfish, %d rounds: p50 %.1f us, p99 %.1f us\n",
              kBlocks * kRounds, s.p50, s.p99);
  std::printf("quietest block of %d: p50 through the adapter %.1f us, straight %.1f us\n", kRounds, best_via,
              best_straight);
  std::printf("pass-through overhead per round trip (two lines): %.1f us\n", best_via - best_straight);
  std::system(("rm -rf " + dir).c_str());
  std::printf("RATIO uci_passthrough_overhead %.3f\n", best_via / best_straight);
  return 0;
}
