// bench/parse: parse + SAN decode + Polyglot key of every position, with one
// and two threads, against pgn-extract -Wuci on the same input in the same run.
//
//   bench_parse [FILE...]   (default: the two collections of ../shared/data/pgn/medium;
//                            skipped, exit 0, when they are absent)
//
// Each input is decompressed into memory first (not timed) and written to a
// temporary file for pgn-extract. The last line is
//   RATIO parse_vs_pgn_extract <our 2-thread games/s / pgn-extract's on the first file>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench/data_dir.h"
#include "bench/pgn_text.h"
#include "book/pgn/reader.h"

namespace {

using Clock = std::chrono::steady_clock;

// Touches the key of every position, so that nothing is optimised away.
struct alignas(64) KeyVisitor : gb::pgn::VisitorBase {  // one cache line each: no false sharing
  gb::Key checksum = 0;
  std::uint64_t positions = 0;
  gb::pgn::Control move(const gb::pgn::MoveEvent& e) {
    checksum ^= e.before.key() + std::uint64_t(e.ply);
    ++positions;
    return gb::pgn::Control::Continue;
  }
  void end_game(const gb::pgn::GameEnd& end) {
    checksum ^= end.final_position.key();
    ++positions;
  }
};

struct Result {
  std::uint64_t games = 0, plies = 0, errors = 0;
  gb::Key checksum = 0;
  double seconds = 0;
};

Result parse(std::string_view text, int threads) {
  std::vector<KeyVisitor> visitors(static_cast<std::size_t>(threads));
  std::vector<gb::pgn::ReadSummary> summaries;
  Result total;
  total.seconds = gb::bench::read_on_threads(text, visitors, summaries);
  for (std::size_t i = 0; i < visitors.size(); ++i) {
    total.games += summaries[i].games_read;
    total.plies += summaries[i].plies;
    total.errors += summaries[i].errors;
    total.checksum ^= visitors[i].checksum;
  }
  return total;
}

// Seconds pgn-extract takes to write every game as UCI moves to /dev/null; < 0 on failure.
double run_pgn_extract(const std::string& file) {
  auto start = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stderr);
    execlp("pgn-extract", "pgn-extract", "-Wuci", "-s", "-o", "/dev/null", file.c_str(), (char*)nullptr);
    // Debian installs it in /usr/games, which is not always on PATH.
    execl("/usr/games/pgn-extract", "pgn-extract", "-Wuci", "-s", "-o", "/dev/null", file.c_str(),
          (char*)nullptr);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 127) return -1;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.push_back(argv[i]);
  if (files.empty()) {
    for (const char* name :
         {"tcec-standard-nocomments.pgn.zst", "sfbooks-bjbraams_chessdb_198350_lines.pgn.zst"}) {
      files.push_back(gb::bench::shared_data(std::string("pgn/medium/") + name));
      gb::bench::skip_unless_present("bench_parse", files.back());
    }
  }
  double ratio = 0;
  for (std::size_t f = 0; f < files.size(); ++f) {
    // Decompress into memory (not timed).
    std::string error;
    auto read = gb::bench::read_text(files[f], &error);
    if (!read) {
      std::fprintf(stderr, "bench_parse: %s\n", error.c_str());
      return 2;
    }
    const std::string& text = *read;
    std::string name = files[f].substr(files[f].find_last_of('/') + 1);
    std::printf("%s: %.1f MB\n", name.c_str(), text.size() / 1e6);
    Result best[3];
    for (int threads : {1, 2}) {
      Result r;
      for (int rep = 0; rep < 3; ++rep) {  // best of three
        Result x = parse(text, threads);
        if (rep == 0 || x.seconds < r.seconds) r = x;
      }
      best[threads] = r;
      std::printf(
          "  graphbook %d thread%s: %llu games, %llu plies, %llu errors in %.3f s: %.0f games/s, %.2f M "
          "plies/s (checksum %016llx)\n",
          threads, threads > 1 ? "s" : " ", (unsigned long long)r.games, (unsigned long long)r.plies,
          (unsigned long long)r.errors, r.seconds, r.games / r.seconds, r.plies / r.seconds / 1e6,
          (unsigned long long)r.checksum);
    }
    char tmp[] = "/tmp/bench_parse_XXXXXX";
    int fd = mkstemp(tmp);
    double extract = -1;
    if (fd >= 0) {
      std::FILE* out = fdopen(fd, "wb");
      std::fwrite(text.data(), 1, text.size(), out);
      std::fclose(out);
      extract = run_pgn_extract(tmp);
      std::remove(tmp);
    }
    if (extract > 0) {
      double speed = best[1].games / extract;
      std::printf(
          "  pgn-extract -Wuci: %.3f s: %.0f games/s; graphbook/pgn-extract: %.1fx (1 thread), %.1fx (2 "
          "threads)\n",
          extract, speed, best[1].seconds > 0 ? extract / best[1].seconds : 0,
          best[2].seconds > 0 ? extract / best[2].seconds : 0);
      if (f == 0) ratio = extract / best[2].seconds;
    } else {
      std::printf("  pgn-extract: not run (is it installed?)\n");
    }
  }
  std::printf("RATIO parse_vs_pgn_extract %.2f\n", ratio);
  return 0;
}
