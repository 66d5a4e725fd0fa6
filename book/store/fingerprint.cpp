#include "book/store/fingerprint.h"

#include <xxhash.h>

namespace gb::store {

Fingerprint game_fingerprint(const GameIdentity& game, Key start, std::span<const std::uint16_t> moves,
                             std::string& scratch) {
  scratch.clear();
  for (std::string_view tag : {game.white, game.black, game.date, game.round, game.event}) {
    scratch += tag;
    scratch += '\n';
  }
  scratch.append(reinterpret_cast<const char*>(&start), sizeof start);
  scratch.append(reinterpret_cast<const char*>(moves.data()), moves.size_bytes());
  XXH128_hash_t h = XXH3_128bits(scratch.data(), scratch.size());
  return {h.high64, h.low64};
}

}  // namespace gb::store
