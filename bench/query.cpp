// bench_query: graphbook query's traversal rate on one thread, nodes
// evaluated per second, for a statistics query and a board-only query over
// the TCEC book at --max-ply 40 (about half a million nodes).
//
//   bench_query [--graphbook BIN] [--pgn FILE] [--work DIR]
//
// Builds DIR/tcec.book from the TCEC games of ../shared/data with graphbook
// build --max-ply 40 unless it exists (prints "SKIPPED: missing PATH" and
// exits 0 when the games are absent), then runs each query once to warm the
// page cache and once timed, in this process (run_graph_query, as the
// command does). Prints per query a line naming it with the wall-clock time
// too, then `RATE query_nodes_per_s <n>` over the thread's CPU time. Targets: >= 1 M nodes/s for `bookgames
// >= 10`, >= 200 k for `move legal count > 30`.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <variant>

#include "bench/data_dir.h"
#include "book/cql/parser.h"
#include "book/store/book.h"
#include "query/graph_query.h"

namespace {

// The CPU time of this thread: the rate of one thread that has a core, which
// the wall clock of a machine shared with other work is not.
double thread_cpu_seconds() {
  timespec t;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string graphbook = GRAPHBOOK_BINARY_FOR_BENCH;
  std::string pgn = gb::bench::shared_data("pgn/medium/tcec-standard-nocomments.pgn.zst");
  std::string work = "/tmp/graphbook-bench-query";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--graphbook") graphbook = argv[i + 1];
    if (a == "--pgn") pgn = argv[i + 1];
    if (a == "--work") work = argv[i + 1];
  }
  ::mkdir(work.c_str(), 0755);
  const std::string book_path = work + "/tcec40.book";
  if (gb::store::BookError stale;
      exists(book_path) && !gb::store::Book::open(book_path, gb::store::OpenMode::ReadOnly, &stale))
    std::remove(book_path.c_str());  // a book of another format: built again
  if (!exists(book_path)) {
    if (!exists(pgn)) {
      std::printf("SKIPPED: missing %s\n", pgn.c_str());
      return 0;
    }
    std::string command = "'" + graphbook + "' build '" + book_path + "' '" + pgn + "' --max-ply 40 --quiet";
    std::fprintf(stderr, "$ %s\n", command.c_str());
    if (std::system(command.c_str()) != 0) return 1;
  }
  gb::store::BookError error;
  auto book = gb::store::Book::open(book_path, gb::store::OpenMode::ReadOnly, &error);
  if (!book) return std::fprintf(stderr, "%s\n", error.message.c_str()), 1;

  for (const char* text : {"bookgames >= 10", "move legal count > 30", "check"}) {
    auto parsed = gb::cql::parse(text);
    if (auto* e = std::get_if<gb::cql::ParseError>(&parsed)) {
      std::fputs(e->render(text, "query").c_str(), stderr);
      continue;  // a filter this engine does not have yet
    }
    const gb::cql::Program& program = std::get<gb::cql::Program>(parsed);
    gb::query::QueryOptions options;
    options.max_ply = 40;
    gb::query::QueryError run_error;
    (void)gb::query::run_graph_query(*book, program, gb::Position(), options, stderr, &run_error);  // warm-up
    auto start = std::chrono::steady_clock::now();
    double cpu_start = thread_cpu_seconds();
    auto run = gb::query::run_graph_query(*book, program, gb::Position(), options, stderr, &run_error);
    double cpu = thread_cpu_seconds() - cpu_start;
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!run) return std::fprintf(stderr, "%s\n", run_error.message().c_str()), 1;
    std::printf(
        "query '%s': %llu nodes, %zu matched, %.3f s on the thread's CPU, %.3f s wall (%.0f nodes/s)\n", text,
        (unsigned long long)run->nodes_visited, run->matches.size(), cpu, seconds,
        double(run->nodes_visited) / seconds);
    std::printf("RATE query_nodes_per_s %.0f\n", double(run->nodes_visited) / cpu);
  }
  return 0;
}
