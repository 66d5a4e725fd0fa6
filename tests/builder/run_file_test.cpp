// write_fully (builder/run_file.h), which writes a spill of plies in pieces
// of at most kWritePiece bytes: every byte must still land, in order, at any
// size around the pieces' edges.
#include "builder/run_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <string>

#include "temp_dir.h"
#include "test_data.h"

using gb::builder::kWritePiece;
using gb::builder::write_fully;

namespace {

// n bytes that differ from piece to piece and within one (a piece written
// twice or skipped changes what the file holds).
std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = char((i * 131 + i / 4093) & 0xff);
  return s;
}

}  // namespace

TEST_CASE("write_fully writes all of its data in order, whatever its size against the pieces",
          "[builder][run_file]") {
  gb::test::TempDir dir;
  const std::size_t sizes[] = {0, 1, kWritePiece - 1, kWritePiece, kWritePiece + 1, 3 * kWritePiece + 7};
  for (std::size_t n : sizes) {
    INFO("bytes " << n);
    const std::string path = dir.file("out-" + std::to_string(n));
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    // Written after some bytes already in the file: write_fully goes on from
    // the file's offset, as a spill after the one before does.
    const std::string head = "head", data = pattern(n);
    REQUIRE(::write(fd, head.data(), head.size()) == ssize_t(head.size()));
    const bool written = write_fully(fd, data.data(), data.size());
    ::close(fd);
    CHECK(written);
    CHECK(gb::test::read_file(path) == head + data);
  }
}

TEST_CASE("write_fully says so when it cannot write", "[builder][run_file]") {
  gb::test::TempDir dir;
  const std::string path = dir.file("read-only");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  const std::string data = pattern(kWritePiece + 1);
  errno = 0;
  CHECK_FALSE(write_fully(fd, data.data(), data.size()));
  CHECK(errno == EBADF);
  ::close(fd);
}
