#include "builder/fingerprint_run.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>

#include "builder/run_file.h"  // open_unnamed, write_fully

namespace gb::builder {

namespace {

BuildError failed(const std::string& what, const std::string& path, int err) {
  return BuildError::book(what + " " + path + ": " + std::strerror(err));
}

}  // namespace

FingerprintRun& FingerprintRun::operator=(FingerprintRun&& o) noexcept {
  if (this != &o) {
    unmap();
    memory_ = std::move(o.memory_);
    mapped_ = std::exchange(o.mapped_, {});
    level = o.level;
  }
  return *this;
}

void FingerprintRun::unmap() {
  if (!mapped_.empty()) ::munmap(const_cast<Fingerprint*>(mapped_.data()), mapped_.size_bytes());
  mapped_ = {};
}

bool FingerprintRun::contains(const Fingerprint& fp, std::uint64_t spread) const {
  __extension__ typedef unsigned __int128 Wide;
  const std::span<const Fingerprint> a = view();
  const std::size_t n = a.size();
  if (n == 0) return false;
  // Where fp would be if the run's fingerprints were evenly spread, then
  // steps doubling away from there to bracket it: the first that is not
  // below fp lies in [lo, hi].
  const auto i = std::size_t((static_cast<Wide>(spread) * n) >> 64);
  std::size_t lo = i, hi = i;
  if (a[i] < fp) {
    lo = hi = i + 1;
    for (std::size_t step = 1; hi < n && a[hi] < fp;) {
      lo = hi + 1;
      step *= 2;
      hi = std::min(n, i + step);
    }
  } else {
    for (std::size_t step = 1; lo > 0 && !(a[lo - 1] < fp);) {
      hi = lo - 1;
      step *= 2;
      lo = i >= step ? i - step : 0;
    }
  }
  auto end = a.begin() + std::ptrdiff_t(std::min(hi + 1, n));
  auto it = std::lower_bound(a.begin() + std::ptrdiff_t(lo), end, fp);
  return it != end && *it == fp;
}

FingerprintRunWriter::~FingerprintRunWriter() {
  if (fd_ >= 0) ::close(fd_);  // (it has no name: closed, it is gone)
}

BuildStatus FingerprintRunWriter::open(const std::string& dir, const std::string& path) {
  path_ = path;
  fd_ = open_unnamed(dir, path);
  if (fd_ < 0) return failed("create the run file", path, errno);
  buffer_.reserve(kBufferFingerprints);
  return std::nullopt;
}

BuildStatus FingerprintRunWriter::flush() {
  if (!write_fully(fd_, buffer_.data(), buffer_.size() * sizeof(Fingerprint)))
    return failed("write the run file", path_, errno);
  written_ += buffer_.size();
  buffer_.clear();
  return std::nullopt;
}

BuildStatus FingerprintRunWriter::finish(FingerprintRun& out) {
  assert(fd_ >= 0);
  if (auto e = flush()) return e;
  out = FingerprintRun();
  if (written_ > 0) {
    void* map = ::mmap(nullptr, written_ * sizeof(Fingerprint), PROT_READ, MAP_SHARED, fd_, 0);
    if (map == MAP_FAILED) return failed("map the run file", path_, errno);
    ::madvise(map, written_ * sizeof(Fingerprint), MADV_RANDOM);  // look-ups touch a page or two each
    out.mapped_ = {static_cast<const Fingerprint*>(map), written_};
  }
  ::close(fd_);  // the mapping keeps the file while the run lives
  fd_ = -1;
  return std::nullopt;
}

}  // namespace gb::builder
