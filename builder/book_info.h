// `graphbook info`: what a book holds, computed from its databases.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "book/store/book.h"
#include "builder/build_error.h"

namespace gb::builder {

struct BookInfo {
  std::uint64_t nodes = 0, edges = 0, key_only_edges = 0;
  store::BookStats stats;
  std::uint64_t transpositions = 0;              // positions entered by more than one (position, move) edge
  std::map<int, std::uint64_t> depth_histogram;  // min ply -> nodes
  std::vector<store::SourceInfo> sources;
  std::string build_params;  // JSON
  std::uint64_t file_bytes = 0;
  std::uint64_t learned = 0;     // learning records
  std::uint64_t root_games = 0;  // games through the start position
  // The pages of positions, and the buckets (book/store/buckets.h) when the book has them.
  std::uint64_t positions_bytes = 0;
  // Where the positions' bytes go: the sections' own bytes (the rest of
  // positions_bytes is LMDB's: keys, node headers, page slack), and the
  // positions one game reached, with their sections' bytes.
  std::uint64_t section_bytes = 0, one_game_positions = 0, one_game_section_bytes = 0;
  bool has_buckets = false, by_month = false;
  std::uint64_t bucket_keys = 0, buckets = 0, bucket_bytes = 0;
  // A sharded book's shards (build --mpi), in key order; empty for a book file.
  struct Shard {
    std::string file;
    Key first_key = 0, last_key = 0;
    std::uint64_t nodes = 0, edges = 0, file_bytes = 0;
  };
  std::vector<Shard> shards;
};

// nullopt and a BuildError::book when LMDB fails reading the book.
[[nodiscard]] std::optional<BookInfo> book_info(store::Book& book, BuildError* error);
nlohmann::json to_json(const BookInfo& info);
std::string to_text(const BookInfo& info);

}  // namespace gb::builder
