#include "builder/dedup_set.h"

#include <unistd.h>

#include <cassert>
#include <optional>

#include "builder/run_file.h"  // kRunFilePrefix

namespace gb::builder {

namespace {

// Sorted fingerprints read one after another from pieces that follow each
// other in order: a run, or the tables' sorted shards.
struct Stream {
  std::vector<std::span<const Fingerprint>> pieces;
  std::size_t piece = 0, at = 0;
  void skip_empty() {
    while (piece < pieces.size() && at == pieces[piece].size()) {
      ++piece;
      at = 0;
    }
  }
  bool done() const { return piece == pieces.size(); }
  const Fingerprint& front() const { return pieces[piece][at]; }
  void pop() {
    ++at;
    skip_empty();
  }
};

}  // namespace

void DedupSet::take_tables(std::vector<std::vector<Fingerprint>>& out) {
  if (has_zero_) out.push_back({Fingerprint{}});
  for (Shard& shard : shards_) {
    std::vector<Fingerprint>& v = shard.slots;
    v.erase(std::remove_if(v.begin(), v.end(), empty), v.end());
    v.shrink_to_fit();
    std::sort(v.begin(), v.end());
    if (!v.empty()) out.push_back(std::move(v));
    shard = Shard();
  }
  has_zero_ = false;
}

std::string DedupSet::next_run_name() {
  return run_file_path(spill_dir_, "fp-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-" +
                                       std::to_string(run_serial_++));
}

BuildStatus DedupSet::merge(std::vector<FingerprintRun> runs,
                            const std::vector<std::vector<Fingerprint>>& parts, int level,
                            FingerprintRun& out) {
  std::vector<Stream> streams;
  for (const FingerprintRun& run : runs) streams.push_back(Stream{{run.view()}});
  if (!parts.empty()) {
    Stream tables;
    for (const auto& part : parts) tables.pieces.emplace_back(part);
    streams.push_back(std::move(tables));
  }
  for (Stream& s : streams) s.skip_empty();
  FingerprintRunWriter writer;
  if (auto e = writer.open(spill_dir_, next_run_name())) return e;
    // The runs and the tables never share a fingerprint (insert adds only new
    // ones): the merge takes the least front each time, few streams as there are.
#ifndef NDEBUG
  std::optional<Fingerprint> last;  // sorted, each fingerprint once
#endif
  for (;;) {
    Stream* least = nullptr;
    for (Stream& s : streams)
      if (!s.done() && (!least || s.front() < least->front())) least = &s;
    if (!least) break;
#ifndef NDEBUG
    assert(!last || *last < least->front());
    last = least->front();
#endif
    if (auto e = writer.add(least->front())) return e;
    least->pop();
  }
  if (auto e = writer.finish(out)) return e;
  out.level = level;
  return std::nullopt;
}

BuildStatus DedupSet::spill() {
  std::vector<std::vector<Fingerprint>> parts;
  const std::size_t n = in_memory();
  take_tables(parts);
  FingerprintRun run;
  if (auto e = merge({}, parts, 0, run)) return e;
  runs_.push_back(std::move(run));
  spilled_ += n;
  ++spills_;
  return compact();
}

BuildStatus DedupSet::compact() {
  for (int level = 0;; ++level) {
    auto same = [level](const FingerprintRun& r) { return r.level == level; };
    if (std::size_t(std::count_if(runs_.begin(), runs_.end(), same)) < kRunsPerMerge) return std::nullopt;
    auto first =
        std::stable_partition(runs_.begin(), runs_.end(), [&](const FingerprintRun& r) { return !same(r); });
    std::vector<FingerprintRun> merged(std::make_move_iterator(first), std::make_move_iterator(runs_.end()));
    runs_.erase(first, runs_.end());
    FingerprintRun run;
    if (auto e = merge(std::move(merged), {}, level + 1, run)) return e;
    runs_.push_back(std::move(run));
  }
}

BuildStatus DedupSet::spill_if_over() {
  if (memory_limit_ == 0 || spill_dir_.empty() || in_memory() == 0 || memory_bytes() <= memory_limit_)
    return std::nullopt;
  return spill();
}

BuildStatus DedupSet::take(std::vector<FingerprintRun>& out) {
  std::vector<std::vector<Fingerprint>> parts;
  take_tables(parts);
  if (runs_.empty()) {
    for (auto& part : parts) out.emplace_back(std::move(part));
    return std::nullopt;
  }
  FingerprintRun run;
  if (auto e = merge(std::move(runs_), parts, 0, run)) return e;
  runs_.clear();
  spilled_ = 0;
  out.push_back(std::move(run));
  return std::nullopt;
}

}  // namespace gb::builder
