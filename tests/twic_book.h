// The book of twic0920.pgn that the probe and uci-adapter tests read (`graphbook build` with the
// defaults, max ply 40). Under ctest the fixture "the twic0920 book" builds it once for the whole
// run (tests/CMakeLists.txt, tests/twic_book_fixture.cmake) and passes its path in
// GRAPHBOOK_TWIC_BOOK, so `ctest -j` does not build it once per test process; a test program run
// by hand builds its own into dir. The book is shared: tests read it, and write only into copies.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "test_data.h"

namespace gb::test {

// The book's path; "" when the build failed (the reason is on stderr).
inline std::string fixture_or_build_twic_book(const std::string& dir) {
  if (const char* fixture = std::getenv("GRAPHBOOK_TWIC_BOOK"); fixture && *fixture) {
    struct stat st;
    if (::stat(fixture, &st) == 0) return fixture;
    std::fprintf(stderr, "GRAPHBOOK_TWIC_BOOK=%s does not exist; building the book here\n", fixture);
  }
  std::string book = dir + "/twic0920.book";
  std::string cmd = "'" + graphbook_binary() + "' build '" + book + "' '" +
                    data_path("pgn/small/twic0920.pgn") + "' --quiet 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "graphbook build of twic0920.pgn into %s failed\n", book.c_str());
    return "";
  }
  return book;
}

}  // namespace gb::test
