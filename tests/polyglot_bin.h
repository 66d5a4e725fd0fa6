// Reading a Polyglot .bin by hand in the tests, from nothing but the format's
// description (16 bytes big-endian: key u64, move u16, weight u16, learn u32;
// move bits: to-file 0-2, to-row 3-5, from-file 6-8, from-row 9-11,
// promotion 12-14), so that what graphbook reads or writes is checked against
// an independent reader.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace gb::test {

struct BinEntry {
  std::uint64_t key = 0;
  std::uint16_t move = 0, weight = 0;
  std::uint32_t learn = 0;
};

// The entries of one key (every entry when all_keys), in file order.
inline std::vector<BinEntry> read_bin_entries(const std::string& path, std::uint64_t key,
                                              bool all_keys = false) {
  std::ifstream in(path, std::ios::binary);
  std::vector<BinEntry> out;
  unsigned char e[16];
  while (in.read(reinterpret_cast<char*>(e), 16)) {
    auto be = [&](int at, int bytes) {
      std::uint64_t v = 0;
      for (int i = 0; i < bytes; ++i) v = v << 8 | e[at + i];
      return v;
    };
    BinEntry entry{be(0, 8), std::uint16_t(be(8, 2)), std::uint16_t(be(10, 2)), std::uint32_t(be(12, 4))};
    if (all_keys || entry.key == key) out.push_back(entry);
  }
  return out;
}

// A Polyglot move in UCI notation. Castling is stored as the king taking its
// rook (e1h1); unless chess960, it is written as the king's two-square move.
inline std::string bin_move_uci(std::uint16_t move, bool chess960 = false) {
  auto square = [](int file, int row) { return std::string{char('a' + file), char('1' + row)}; };
  std::string text = square((move >> 6) & 7, (move >> 9) & 7) + square(move & 7, (move >> 3) & 7);
  if (int promo = (move >> 12) & 7) text += "nbrq"[promo - 1];
  if (!chess960) {
    if (text == "e1h1") text = "e1g1";
    if (text == "e1a1") text = "e1c1";
    if (text == "e8h8") text = "e8g8";
    if (text == "e8a8") text = "e8c8";
  }
  return text;
}

}  // namespace gb::test
