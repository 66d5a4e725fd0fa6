// Games per second of graphbook's CQL engine on the TCEC collection, for the
// queries of issue 6, with one and two threads. The games are read, built
// into trees and evaluated; matching games are counted, not written.
//
//   bench_cql [file.pgn.zst]     (default: tcec-standard of ../shared/data; skipped, exit 0, when absent)
// Each figure is the best of three runs. Last lines: RATE cql_<query>_<threads>t <games/s>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "bench/data_dir.h"
#include "book/cql/runner.h"

int main(int argc, char** argv) {
  std::string input =
      argc > 1 ? argv[1] : gb::bench::shared_data("pgn/medium/tcec-standard-nocomments.pgn.zst");
  if (argc <= 1) gb::bench::skip_unless_present("bench_cql", input);
  struct Query {
    const char* name;
    const char* text;
  };
  const Query queries[] = {
      {"mate", "mate"},
      {"check", "check"},
      {"move_legal_count_gt_40", "move legal count > 40"},
      {"flipcolor_wtm_mate", "flipcolor { wtm mate }"},
      {"find_both_castlings", "initial find move o-o find move o-o-o"},
  };
  std::vector<std::string> rates;
  for (const Query& q : queries) {
    auto parsed = gb::cql::parse(q.text);
    if (auto* e = std::get_if<gb::cql::ParseError>(&parsed)) {
      std::fputs(e->render(q.text, "query").c_str(), stderr);
      return 2;
    }
    const gb::cql::Program& program = std::get<gb::cql::Program>(parsed);
    for (int threads : {1, 2}) {
      gb::cql::RunConfig config;
      config.input = input;
      config.threads = threads;
      config.write_games = false;
      std::clock_t cpu0 = std::clock();
      auto t0 = std::chrono::steady_clock::now();
      gb::cql::RunSummary s = gb::cql::run_query(
          program, config, [](std::string_view) {}, nullptr);
      double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      double cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
      if (!s.fatal.empty()) {
        std::fprintf(stderr, "bench_cql: %s\n", s.fatal.c_str());
        return 2;
      }
      std::printf("%-40s %dt: %llu games, %llu matched, %.2f s wall, %.2f s cpu\n", q.text, threads,
                  (unsigned long long)s.games_read, (unsigned long long)s.games_written, wall, cpu);
      char line[160];
      std::snprintf(line, sizeof line, "RATE cql_%s_%dt %.0f", q.name, threads, double(s.games_read) / wall);
      rates.push_back(line);
    }
  }
  for (const auto& r : rates) std::printf("%s\n", r.c_str());
  return 0;
}
