// The manifest of a sharded book (`graphbook build --mpi`, docs/FORMAT.md
// "Sharded books"): a directory holding manifest.json and one ordinary book
// per key range. The manifest is written last, once every shard is
// committed: a directory without it is not a book (a build that failed or
// was killed).
//
//   BookError error;
//   if (auto m = read_manifest("lichess.book", &error))
//     for (const std::string& shard : shard_paths("lichess.book", *m)) ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "book/chess/types.h"
#include "book/store/lmdb.h"

namespace gb::store {

struct BookError;

inline constexpr const char* kManifestName = "manifest.json";
inline constexpr const char* kShardedFormat = "graphbook-sharded";
inline constexpr int kShardedVersion = 1;

struct ShardEntry {
  std::string file;                 // in the book's directory
  Key first_key = 0, last_key = 0;  // the keys it holds, inclusive
};

struct ShardManifest {
  std::vector<ShardEntry> shards;  // in key order, tiling the keys
  std::string build_params;        // JSON text (the build's params, as in each shard's meta)
  std::uint32_t global_shard = 0;  // the shard that holds the sources and the build's totals
  std::uint32_t ranks = 0;         // the MPI ranks that built it
};

// Shard index of count: its file name and key range, the keys k with
// floor(k * count / 2^64) == index.
ShardEntry shard_entry(std::uint32_t index, std::uint32_t count);

// Whether path is a directory (a sharded book, or the start of one).
bool is_sharded_book(const std::string& path);

// Writes dir/manifest.json (a new file renamed into place).
[[nodiscard]] Status write_manifest(const std::string& dir, const ShardManifest& manifest);

// Reads dir/manifest.json and checks that its shards tile the key space in
// order. nullopt with a NotABook error naming dir when it is absent (not a
// finished sharded book) or not a manifest of this version.
[[nodiscard]] std::optional<ShardManifest> read_manifest(const std::string& dir, BookError* error);

// The shards' paths, in key order.
std::vector<std::string> shard_paths(const std::string& dir, const ShardManifest& manifest);

// A key as the manifest writes it: 16 lower-case hex digits.
std::string hex_key(Key k);

}  // namespace gb::store
