// What a build records of an input file (its source record, store::SourceInfo).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gb::builder {

// The file's size in bytes; nullopt when it cannot be read.
std::optional<std::uint64_t> file_size(const std::string& path);
// XXH3-64 of the file's bytes (SourceInfo::content_hash); nullopt when it cannot be read.
std::optional<std::uint64_t> file_hash(const std::string& path);

}  // namespace gb::builder
