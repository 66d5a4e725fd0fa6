// How many pages of a range are not resident (mincore): for the tests of
// memory made resident before it is written (builder/large_pages.h).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace gb::test {

inline std::size_t pages_not_resident(std::uintptr_t from, std::size_t bytes) {
  const auto page = std::size_t(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = from / page * page;
  const std::size_t pages = (from + bytes - first + page - 1) / page;
  std::vector<unsigned char> resident(pages);
  REQUIRE(::mincore(reinterpret_cast<void*>(first), pages * page, resident.data()) == 0);
  std::size_t missing = 0;
  for (unsigned char r : resident) missing += !(r & 1);
  return missing;
}

}  // namespace gb::test
