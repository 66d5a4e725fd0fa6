// What the PGN benchmarks share: an input read whole into memory first (so
// that no timing includes the disk or zstd), and its games read on threads,
// one part of the text each, cut at game boundaries.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "book/pgn/reader.h"
#include "book/pgn/split.h"

namespace gb::bench {

// The text of a PGN file (.pgn or .pgn.zst, decompressed); nullopt with
// *error set when it cannot be read.
inline std::optional<std::string> read_text(const std::string& path, std::string* error) {
  pgn::ByteSource source = pgn::ByteSource::open(path);
  std::string text;
  std::vector<char> chunk(std::size_t(1) << 20);
  while (std::size_t n = source.read(chunk.data(), chunk.size())) text.append(chunk.data(), n);
  if (!source.ok()) return *error = source.error(), std::nullopt;
  return text;
}

// Reads the games of text on visitors.size() threads, part i with
// visitors[i] (summaries[i] says what it read); the seconds it took.
template <class Visitor>
double read_on_threads(std::string_view text, std::vector<Visitor>& visitors,
                       std::vector<pgn::ReadSummary>& summaries) {
  auto ranges = pgn::split_at_game_boundaries(text, visitors.size());
  visitors.resize(ranges.size());
  summaries.assign(ranges.size(), {});
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < ranges.size(); ++i)
    pool.emplace_back([&, i] {
      const auto& r = ranges[i];
      pgn::PgnReader reader(pgn::ByteSource::from_memory(text.substr(r.begin, r.end - r.begin)));
      reader.set_start(r.first_line, 0);
      reader.read_all(visitors[i]);
      summaries[i] = reader.summary();
    });
  for (auto& t : pool) t.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace gb::bench
