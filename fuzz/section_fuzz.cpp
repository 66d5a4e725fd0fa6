// libFuzzer target for a book's sections (docs/FORMAT.md): any bytes as the
// value of a position. Reading must not crash or trip the sanitizers, and a
// section that reads whole must read the same after it is written again, and
// again in the self-delimited form a group keeps it in where it has one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "book/store/records.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view value(reinterpret_cast<const char*>(data), size);
  if (gb::store::self_delimited_length(value) > size) __builtin_trap();
  gb::store::SectionReader moves_only(value);
  for (std::uint16_t move; moves_only.next(move);) {
  }
  gb::store::Section section;
  if (!gb::store::from_bytes(value, section)) return 0;
  std::string again;
  gb::store::to_bytes(section, again);
  gb::store::Section back;
  if (!gb::store::from_bytes(again, back) || back.node != section.node || back.edges != section.edges)
    __builtin_trap();
  if (gb::store::self_delimited_size(again)) {
    std::string stored;
    gb::store::append_self_delimited(stored, again);
    if (gb::store::self_delimited_length(stored) != stored.size() || !gb::store::from_bytes(stored, back) ||
        back.node != section.node || back.edges != section.edges)
      __builtin_trap();
  }
  return 0;
}
