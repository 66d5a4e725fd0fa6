// A game's fingerprint: what makes two copies of one game the same game (the
// same players, date, round and event, the same start and the same moves),
// as an XXH3-128. A build stores it to skip duplicate games; learning keys
// the games it learned by it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "book/chess/types.h"
#include "book/store/records.h"

namespace gb::store {

using Fingerprint = std::array<std::uint64_t, 2>;  // XXH3-128, high then low

// The tags a fingerprint covers, in this order.
struct GameIdentity {
  std::string_view white, black, date, round, event;
};

// XXH3-128 of the tags (each followed by '\n'), the start position's key and
// the moves' 16-bit codes. scratch is reused from game to game (one buffer,
// one hash call: a streaming hash per move was slower).
Fingerprint game_fingerprint(const GameIdentity& game, Key start, std::span<const std::uint16_t> moves,
                             std::string& scratch);

// A fingerprint as a database key: 16 bytes, big-endian.
struct FingerprintKey {
  char bytes[16];
  explicit FingerprintKey(const Fingerprint& fp) {
    put_be64(bytes, fp[0]);
    put_be64(bytes + 8, fp[1]);
  }
  std::string_view view() const { return {bytes, 16}; }
};

}  // namespace gb::store
