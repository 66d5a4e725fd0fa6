#include "builder/input_file.h"

#include <sys/stat.h>

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t
#include <xxhash.h>

#include <cstdio>
#include <vector>

namespace gb::builder {

std::optional<std::uint64_t> file_size(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::uint64_t(st.st_size);
}

std::optional<std::uint64_t> file_hash(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return std::nullopt;
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  std::vector<char> buf(std::size_t(1) << 20);
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) XXH3_64bits_update(&state, buf.data(), n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  if (!ok) return std::nullopt;
  return XXH3_64bits_digest(&state);
}

}  // namespace gb::builder
