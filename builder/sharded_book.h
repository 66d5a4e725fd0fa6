// A sharded book (`graphbook build --mpi`, docs/FORMAT.md "Sharded books"): a
// directory holding manifest.json and one ordinary book per key range. The
// manifest is written last, by rank 0, once every shard is committed: a
// directory without it is not a book (a build that failed or was killed).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "book/chess/types.h"
#include "builder/build_error.h"

namespace gb::builder {

inline constexpr const char* kManifestName = "manifest.json";
inline constexpr const char* kShardedFormat = "graphbook-sharded";
inline constexpr int kShardedVersion = 1;

struct ShardEntry {
  std::string file;                 // in the book's directory
  Key first_key = 0, last_key = 0;  // the keys it holds, inclusive (KeyRange{index, count})
};

struct ShardManifest {
  std::vector<ShardEntry> shards;  // in key order
  std::string build_params;        // JSON text (build.h params_json)
  std::uint32_t global_shard = 0;  // the shard that holds stats, sources and the build's totals
  std::uint32_t ranks = 0;         // the MPI ranks that built it
};

// The shard of index of count: its file name and key range.
ShardEntry shard_entry(std::uint32_t index, std::uint32_t count);

// Whether path is a directory (a sharded book, or the start of one).
bool is_sharded_book(const std::string& path);

// Writes path/manifest.json (a new file renamed into place); a BuildError::book on failure.
[[nodiscard]] BuildStatus write_manifest(const std::string& dir, const ShardManifest& manifest);

// Reads path/manifest.json. nullopt with a BuildError::input when it is absent
// (not a finished sharded book) or not a manifest of this version.
[[nodiscard]] std::optional<ShardManifest> read_manifest(const std::string& dir, BuildError* error);

// The shards' paths, in key order.
std::vector<std::string> shard_paths(const std::string& dir, const ShardManifest& manifest);

// `graphbook info` of a sharded book: the shard count and the totals of its
// shards (nodes, edges, games, duplicates...), and each shard's range and
// counts. nullopt with error set when a shard cannot be opened or read.
[[nodiscard]] std::optional<nlohmann::json> sharded_info(const std::string& dir, BuildError* error);
std::string sharded_info_text(const nlohmann::json& info);

}  // namespace gb::builder
