#include "book/store/position_hash.h"

// Inline: the hash of 67 bytes runs at every ply of a build, and a call into the
// shared library costs more than the hash (the value is the same: docs/FORMAT.md).
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gb::store {

std::uint64_t position_hash(const Position& pos) {
  // 64 squares, then side, castling rights, en passant square: 67 bytes.
  std::uint8_t buf[67];
  for (int s = 0; s < 64; ++s) buf[s] = std::uint8_t(pos.piece_on(Square(s)));
  buf[64] = std::uint8_t(pos.side_to_move());
  buf[65] = std::uint8_t(pos.castling_rights());
  buf[66] = std::uint8_t(pos.ep_square());
  return XXH3_64bits(buf, sizeof buf) & 0xffffffff;  // 32 bits are kept (format 6)
}

}  // namespace gb::store
