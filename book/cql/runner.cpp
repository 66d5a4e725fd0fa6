#include "book/cql/runner.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "book/cql/game_reader.h"
#include "book/pgn/byte_source.h"
#include "book/pgn/reader.h"
#include "book/pgn/split.h"

namespace gb::cql {

namespace {

constexpr std::size_t kBlockSize = std::size_t(4) << 20;
constexpr std::size_t kBatchBytes = std::size_t(1) << 20;

struct Batch {
  std::string text;
  std::uint64_t first_line = 1;
  std::uint64_t games_before = 0;
};

struct OutputGame {
  std::int64_t number = 0;
  std::int64_t match_count = 0;
  std::vector<std::optional<SortValue>> sort_values;
  std::string pgn;
};

struct BatchResult {
  std::vector<OutputGame> games;
  std::uint64_t games_read = 0;
  std::uint64_t positions_matched = 0;
  pgn::ReadSummary read;
  std::string messages;
  std::string fatal;
};

// Counts the games of a batch the way the reader does, skipping movetext.
struct GameCounter : pgn::VisitorBase {
  std::uint64_t games = 0;
  void begin_game(const pgn::GameLocation&) { ++games; }
  pgn::Control begin_movetext(const Position&) { return pgn::Control::Skip; }
};

BatchResult evaluate_batch(const Batch& batch, const Program& program, const RunConfig& config,
                           Evaluator& evaluator, const std::string& name) {
  BatchResult r;
  pgn::PgnReader reader(pgn::ByteSource::from_memory(batch.text, name), cql_read_options());
  reader.set_start(batch.first_line, batch.games_before);
  GameTreeVisitor visitor([&](Game& g) {
    if (config.gamenumber && !config.gamenumber->contains(g.number)) return;
    if (!r.fatal.empty()) return;
    ++r.games_read;
    GameResult result = evaluator.run(g, config.eval);
    r.messages += result.messages;
    if (result.assert_failure) {
      r.fatal = *result.assert_failure;
      return;
    }
    auto count = std::int64_t(result.matched_positions.size());
    r.positions_matched += std::uint64_t(count);
    if (!config.matchcount.contains(count)) return;
    OutputGame out;
    out.number = g.number;
    out.match_count = count;
    out.sort_values = result.sort_values;
    if (config.write_games) out.pgn = write_pgn(g, result, program, config.write);
    r.games.push_back(std::move(out));
  });
  reader.read_all(visitor);
  r.read = reader.summary();
  return r;
}

// Orders games for output: by each sort key (best first; games without a
// value last), then match count if asked, then game number.
bool output_before(const OutputGame& a, const OutputGame& b, const Program& program, bool sort_matchcount) {
  for (std::size_t k = 0; k < program.sorts.size(); ++k) {
    const auto &x = a.sort_values[k], &y = b.sort_values[k];
    if (x.has_value() != y.has_value()) return x.has_value();
    if (x && *x != *y) return program.sorts[k].minimize ? *x < *y : *x > *y;
  }
  if (sort_matchcount && a.match_count != b.match_count) return a.match_count > b.match_count;
  return a.number < b.number;
}

}  // namespace

RunSummary run_query(const Program& program, const RunConfig& config,
                     const std::function<void(std::string_view)>& write, std::FILE* messages) {
  RunSummary summary;
  pgn::ByteSource source = pgn::ByteSource::open(config.input);
  if (!source.ok()) {
    summary.fatal = source.error();
    return summary;
  }
  const std::string name = config.input == "-" ? "<stdin>" : config.input;
  const bool sorting = !program.sorts.empty() || config.sort_matchcount;
  const int threads = program.has_persistent() ? 1 : std::max(1, config.threads);

  std::vector<OutputGame> held;  // when sorting, every output game until the end
  bool stop = false;
  auto consume = [&](BatchResult& r) {
    summary.games_read += r.games_read;
    summary.positions_matched += r.positions_matched;
    summary.read.merge(r.read);
    if (messages && !r.messages.empty()) std::fputs(r.messages.c_str(), messages);
    if (!r.fatal.empty() && summary.fatal.empty()) {
      summary.fatal = r.fatal;
      stop = true;
    }
    for (auto& g : r.games) {
      if (stop) break;
      if (sorting) {
        held.push_back(std::move(g));
        continue;
      }
      if (config.limit && summary.games_written >= *config.limit) {
        stop = true;
        break;
      }
      ++summary.games_written;
      if (config.write_games) write(g.pgn);
    }
    if (!sorting && config.limit && summary.games_written >= *config.limit) stop = true;
  };

  // Worker pool (threads > 1): batches in, results by sequence number out.
  std::mutex mutex;
  std::condition_variable work_ready, result_ready;
  std::deque<std::pair<std::uint64_t, Batch>> queue;
  std::map<std::uint64_t, BatchResult> done;
  bool closing = false;
  std::vector<std::thread> pool;
  if (threads > 1) {
    for (int i = 0; i < threads; ++i)
      pool.emplace_back([&] {
        Evaluator evaluator(program);
        for (;;) {
          std::pair<std::uint64_t, Batch> job;
          {
            std::unique_lock lock(mutex);
            work_ready.wait(lock, [&] { return closing || !queue.empty(); });
            if (queue.empty()) return;
            job = std::move(queue.front());
            queue.pop_front();
          }
          BatchResult r = evaluate_batch(job.second, program, config, evaluator, name);
          {
            std::lock_guard lock(mutex);
            done.emplace(job.first, std::move(r));
          }
          result_ready.notify_all();
        }
      });
  }
  Evaluator inline_evaluator(program);
  std::uint64_t next_seq = 0, next_to_consume = 0;
  auto drain = [&](bool wait_all, std::size_t max_in_flight) {
    std::unique_lock lock(mutex);
    for (;;) {
      auto it = done.find(next_to_consume);
      if (it != done.end()) {
        BatchResult r = std::move(it->second);
        done.erase(it);
        lock.unlock();
        consume(r);
        lock.lock();
        ++next_to_consume;
        continue;
      }
      std::uint64_t in_flight = next_seq - next_to_consume;
      if (in_flight == 0 || (!wait_all && in_flight < max_in_flight)) return;
      result_ready.wait(lock);
    }
  };
  auto dispatch = [&](Batch&& b) {
    if (threads == 1) {
      BatchResult r = evaluate_batch(b, program, config, inline_evaluator, name);
      consume(r);
      return;
    }
    {
      std::lock_guard lock(mutex);
      queue.emplace_back(next_seq++, std::move(b));
    }
    work_ready.notify_one();
    drain(false, std::size_t(threads) * 3);
  };

  std::string pending;
  std::uint64_t line = 1, games = 0;
  std::vector<char> block(kBlockSize);
  bool eof = false;
  // pending[start + kBatchBytes, searched) holds no game boundary: a game (or a
  // file that is not PGN) longer than many reads is searched once, not once per read.
  std::size_t searched = 0;
  while (!eof && !stop) {
    std::size_t n = source.read(block.data(), block.size());
    if (n == 0)
      eof = true;
    else
      pending.append(block.data(), n);
    // Cut complete batches at game boundaries; keep the last (maybe partial) game.
    std::size_t start = 0;
    while (!stop) {
      std::size_t end;
      if (pending.size() - start >= kBatchBytes || eof) {
        end = eof && pending.size() - start < kBatchBytes
                  ? pending.size()
                  : pgn::next_game_boundary(pending, std::max(start + kBatchBytes, searched));
        if (end >= pending.size() && !eof) {  // the boundary is not in yet
          // A boundary line may start in the last bytes, not all read yet ("[Event ").
          searched = pending.size() > 8 ? pending.size() - 8 : 0;
          break;
        }
        searched = 0;
      } else {
        break;
      }
      if (end == start) break;
      Batch b;
      b.text = pending.substr(start, end - start);
      b.first_line = line;
      b.games_before = games;
      GameCounter counter;
      pgn::PgnReader count_reader(pgn::ByteSource::from_memory(b.text, name));
      count_reader.read_all(counter);
      games += counter.games;
      line += std::uint64_t(std::count(b.text.begin(), b.text.end(), '\n'));
      start = end;
      dispatch(std::move(b));
      if (start >= pending.size()) break;
    }
    pending.erase(0, start);
    searched = searched > start ? searched - start : 0;
  }
  if (!source.ok() && summary.fatal.empty()) summary.fatal = source.error();
  if (threads > 1) {
    drain(true, 0);
    {
      std::lock_guard lock(mutex);
      closing = true;
      queue.clear();
    }
    work_ready.notify_all();
    for (auto& t : pool) t.join();
  }
  summary.persistent = inline_evaluator.persistent_values();
  if (sorting) {
    std::stable_sort(held.begin(), held.end(), [&](const OutputGame& a, const OutputGame& b) {
      return output_before(a, b, program, config.sort_matchcount);
    });
    for (auto& g : held) {
      if (config.limit && summary.games_written >= *config.limit) break;
      ++summary.games_written;
      if (config.write_games) write(g.pgn);
    }
  }
  return summary;
}

}  // namespace gb::cql
