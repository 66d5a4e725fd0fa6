// Unsigned LEB128 varints, as the book's encoded records, sections, groups
// and bucket sections write their numbers (docs/FORMAT.md): 7 bits a byte,
// low bits first, the high bit set on every byte but the last; signed ones
// zigzagged first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gb::store {

inline void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(char(v));
}

// Reads a varint at at; false at the end of in or past 64 bits.
inline bool get_varint(std::string_view in, std::size_t& at, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at >= in.size()) return false;
    const auto b = std::uint8_t(in[at++]);
    v |= std::uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// Signed numbers as unsigned ones for a varint, small magnitudes small:
// 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
inline std::uint64_t zigzag(std::int64_t v) { return (std::uint64_t(v) << 1) ^ std::uint64_t(v >> 63); }
inline std::int64_t unzigzag(std::uint64_t v) { return std::int64_t(v >> 1) ^ -std::int64_t(v & 1); }

// The bytes put_varint writes for v.
inline std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

}  // namespace gb::store
