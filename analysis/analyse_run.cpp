#include "analysis/analyse_run.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "book/store/evaluation.h"

namespace gb::analysis {

namespace {

using Clock = std::chrono::steady_clock;

bool already_done(const store::Evaluation& stored, SearchLimit limit) {
  return limit.depth > 0 ? stored.depth >= limit.depth : stored.nodes >= limit.nodes;
}

// The positions the book holds no evaluation of as deep as asked.
std::optional<std::vector<Position>> still_to_do(store::Book& book, std::span<const Position> positions,
                                                 SearchLimit limit, store::Error* error) {
  auto txn = store::ReadTxn::begin(book.env(), error);
  if (!txn) return std::nullopt;
  std::optional<MDB_dbi> evals;
  if (auto s = store::find_evals(*txn, evals)) {
    if (error) *error = *s;
    return std::nullopt;
  }
  std::vector<Position> out;
  for (const Position& pos : positions) {
    auto stored = evals ? store::get_evaluation(*txn, *evals, pos.key()) : std::nullopt;
    if (!stored || !already_done(*stored, limit)) out.push_back(pos);
  }
  return out;
}

struct Result {
  Key key;
  store::Evaluation eval;
};

// What the workers and the committing thread share.
struct Shared {
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<Result> results;  // searched, not yet committed
  std::size_t workers_left = 0;
  std::optional<std::string> engine_failure;
  std::string engine_name;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> abort{false};
};

void work(const AnalyseOptions& options, std::span<const Position> todo, const std::atomic<bool>& stop,
          Shared& shared) {
  EngineError error{};
  auto engine = UciEngine::start(options.engine, options.engine_options, &error);
  auto finish = [&](std::optional<std::string> failure) {
    std::lock_guard lock(shared.mutex);
    // An engine that dies of the terminal's SIGINT (it is in our process group) is no failure.
    if (failure && !stop && !shared.engine_failure) shared.engine_failure = failure, shared.abort = true;
    --shared.workers_left;
    shared.arrived.notify_all();
  };
  if (!engine) return finish(error.message);
  {
    std::lock_guard lock(shared.mutex);
    if (shared.engine_name.empty()) shared.engine_name = engine->name();
  }
  for (;;) {
    if (stop || shared.abort) return finish(std::nullopt);
    std::size_t i = shared.next++;
    if (i >= todo.size()) return finish(std::nullopt);
    auto eval = engine->search(todo[i], options.limit, &error);
    if (!eval) return finish(error.message);
    std::lock_guard lock(shared.mutex);
    shared.results.push_back({todo[i].key(), std::move(*eval)});
    shared.arrived.notify_all();
  }
}

// Writes a batch in one transaction: a result replaces what is stored only when deeper.
store::Status commit(store::Book& book, const std::vector<Result>& batch, SearchLimit limit,
                     std::size_t& stored) {
  std::size_t written = 0;
  auto status = book.write([&](store::WriteTxn& txn) -> store::Status {
    written = 0;  // the batch may run again after the map grew
    store::Error e;
    auto evals = store::open_evals(txn, true, &e);
    if (!evals) return e;
    for (const Result& r : batch) {
      auto old = store::get_evaluation(txn, *evals, r.key);
      if (old && already_done(*old, limit)) continue;  // another run stored one as deep meanwhile
      if (auto s = store::put_evaluation(txn, *evals, r.key, r.eval)) return s;
      ++written;
    }
    return std::nullopt;
  });
  if (!status) stored += written;
  return status;
}

}  // namespace

std::optional<AnalyseError> analyse_positions(store::Book& book, std::span<const Position> positions,
                                              const AnalyseOptions& options, const std::atomic<bool>& stop,
                                              AnalyseSummary& summary,
                                              const std::function<void(const AnalyseProgress&)>& progress) {
  summary.positions = positions.size();
  store::Error e;
  auto todo = still_to_do(book, positions, options.limit, &e);
  if (!todo) return AnalyseError{AnalyseFailure::Book, e.message()};
  summary.skipped = positions.size() - todo->size();
  const Clock::time_point started = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
  if (todo->empty()) return std::nullopt;

  Shared shared;
  int jobs = std::max(1, std::min<int>(options.jobs, int(todo->size())));
  shared.workers_left = std::size_t(jobs);
  std::vector<std::thread> workers;
  for (int j = 0; j < jobs; ++j)
    workers.emplace_back([&, list = std::span<const Position>(*todo)] { work(options, list, stop, shared); });

  std::optional<AnalyseError> failure;
  Clock::time_point last_commit = Clock::now(), last_progress = Clock::now();
  for (bool done = false; !done;) {
    std::vector<Result> batch;
    {
      std::unique_lock lock(shared.mutex);
      shared.arrived.wait_for(lock, std::chrono::milliseconds(250));
      done = shared.workers_left == 0;
      bool due = shared.results.size() >= options.batch ||
                 std::chrono::duration<double>(Clock::now() - last_commit).count() >= options.batch_seconds;
      if (done || due || stop) batch.swap(shared.results);
      summary.engine = shared.engine_name;
    }
    if (!batch.empty() && !failure) {
      if (auto s = commit(book, batch, options.limit, summary.stored)) {
        failure = AnalyseError{AnalyseFailure::Book, s->message()};
        shared.abort = true;
      } else {
        summary.analysed += batch.size();
      }
      last_commit = Clock::now();
    }
    if (progress && Clock::now() - last_progress >= std::chrono::milliseconds(500)) {
      progress({summary.analysed, todo->size(), seconds()});
      last_progress = Clock::now();
    }
  }
  for (std::thread& t : workers) t.join();
  summary.seconds = seconds();
  summary.interrupted = stop && summary.analysed < todo->size();
  if (failure) return failure;
  if (shared.engine_failure) return AnalyseError{AnalyseFailure::Engine, *shared.engine_failure};
  return std::nullopt;
}

}  // namespace gb::analysis
