#include "book/store/shard_manifest.h"

#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "book/store/book.h"
#include "book/store/records.h"

namespace gb::store {

namespace {

std::optional<Key> parse_hex_key(const std::string& s) {
  if (s.size() != 16 || s.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  return Key(std::stoull(s, nullptr, 16));
}

// The first key k with floor(k * count / 2^64) == index: ceil(index * 2^64 / count).
Key first_key_of(std::uint32_t index, std::uint32_t count) {
  __extension__ typedef unsigned __int128 Wide;
  const Wide top = Wide(1) << 64;
  return Key((Wide(index) * top + count - 1) / count);
}

}  // namespace

std::string hex_key(Key k) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, k);
  return buf;
}

ShardEntry shard_entry(std::uint32_t index, std::uint32_t count) {
  char name[64];
  std::snprintf(name, sizeof name, "shard-%05u-of-%05u.book", index, count);
  const Key last = index + 1 == count ? ~Key(0) : first_key_of(index + 1, count) - 1;
  return {.file = name, .first_key = first_key_of(index, count), .last_key = last};
}

bool is_sharded_book(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Status write_manifest(const std::string& dir, const ShardManifest& m) {
  nlohmann::json shards = nlohmann::json::array();
  for (const ShardEntry& s : m.shards)
    shards.push_back(
        {{"file", s.file}, {"first_key", hex_key(s.first_key)}, {"last_key", hex_key(s.last_key)}});
  auto params = nlohmann::json::parse(m.build_params, nullptr, false);
  nlohmann::json j = {{"format", kShardedFormat},
                      {"version", kShardedVersion},
                      {"book_format_version", kFormatVersion},
                      {"key_ranges", "shard i of n holds the keys k with floor(k * n / 2^64) == i"},
                      {"global_shard", m.global_shard},
                      {"ranks", m.ranks},
                      {"build_params", params.is_discarded() ? nlohmann::json::object() : params},
                      {"shards", shards}};
  const std::string path = dir + "/" + kManifestName, tmp = path + ".new";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump(2) << '\n';
    out.flush();
    if (!out) return Error{EIO, "write " + tmp};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Error{errno, "rename " + tmp + " to " + path};
  return std::nullopt;
}

std::optional<ShardManifest> read_manifest(const std::string& dir, BookError* error) {
  const std::string path = dir + "/" + kManifestName;
  auto fail = [&](std::string why) -> std::optional<ShardManifest> {
    if (error) *error = BookError{BookError::Code::NotABook, dir + ": " + why};
    return std::nullopt;
  };
  std::ifstream in(path);
  if (!in)
    return fail(
        "a directory without manifest.json: not a sharded book (or one whose build did not finish; build it "
        "again)");
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != kShardedFormat)
    return fail("manifest.json is not a graphbook sharded-book manifest");
  if (j.value("version", 0) != kShardedVersion)
    return fail("manifest.json has version " + std::to_string(j.value("version", 0)) +
                ", this graphbook reads " + std::to_string(kShardedVersion));
  ShardManifest m;
  m.global_shard = j.value("global_shard", 0u);
  m.ranks = j.value("ranks", 0u);
  if (j.contains("build_params")) m.build_params = j["build_params"].dump();
  if (!j.contains("shards") || !j["shards"].is_array() || j["shards"].empty())
    return fail("manifest.json lists no shards");
  for (const auto& s : j["shards"]) {
    if (!s.is_object() || !s.contains("file") || !s["file"].is_string())
      return fail("manifest.json: a shard without a file");
    auto first = parse_hex_key(s.value("first_key", "")), last = parse_hex_key(s.value("last_key", ""));
    const std::string file = s["file"];
    if (!first || !last || file.empty() || file.find('/') != std::string::npos)
      return fail("manifest.json: shard " + file + " has no valid key range");
    m.shards.push_back({.file = file, .first_key = *first, .last_key = *last});
  }
  for (std::size_t i = 0; i < m.shards.size(); ++i) {  // the ranges must tile the key space in order
    const bool starts =
        i == 0 ? m.shards[i].first_key == 0 : m.shards[i].first_key == m.shards[i - 1].last_key + 1;
    if (!starts || m.shards[i].last_key < m.shards[i].first_key)
      return fail("manifest.json: the shards' key ranges do not cover the keys in order");
  }
  if (m.shards.back().last_key != ~Key(0))
    return fail("manifest.json: the shards' key ranges do not cover the keys");
  if (m.global_shard >= m.shards.size()) return fail("manifest.json: global_shard is not a shard");
  return m;
}

std::vector<std::string> shard_paths(const std::string& dir, const ShardManifest& manifest) {
  std::vector<std::string> paths;
  for (const ShardEntry& s : manifest.shards) paths.push_back(dir + "/" + s.file);
  return paths;
}

}  // namespace gb::store
