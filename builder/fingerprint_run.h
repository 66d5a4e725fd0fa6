// Sorted game fingerprints, a run of the build's duplicate check
// (dedup_set.h) or of the fingerprints a commit writes (book_writer.h): in
// memory, or in a file of the spill folder mapped read-only.
//
//   FingerprintRunWriter w;
//   if (auto e = w.open(path)) ...
//   w.add(fp); ...                     // in order
//   FingerprintRun run;
//   if (auto e = w.finish(run)) ...
//   run.contains(fp, spread);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "book/store/fingerprint.h"
#include "builder/build_error.h"

namespace gb::builder {

using store::Fingerprint;

// Sorted fingerprints, in memory or in a mapped file of the spill folder
// (whose name is already removed: it goes when the run goes, however the
// process ends).
class FingerprintRun {
 public:
  FingerprintRun() = default;
  explicit FingerprintRun(std::vector<Fingerprint> memory) : memory_(std::move(memory)) {}
  ~FingerprintRun() { unmap(); }
  FingerprintRun(FingerprintRun&& o) noexcept { *this = std::move(o); }
  FingerprintRun& operator=(FingerprintRun&& o) noexcept;
  FingerprintRun(const FingerprintRun&) = delete;
  FingerprintRun& operator=(const FingerprintRun&) = delete;

  std::span<const Fingerprint> view() const { return mapped_.empty() ? std::span(memory_) : mapped_; }
  std::size_t size() const { return view().size(); }
  const Fingerprint& operator[](std::size_t i) const { return view()[i]; }
  auto begin() const { return view().begin(); }
  auto end() const { return view().end(); }
  // True when the run holds fp, whose fp[0] spread over the run's KeyRange is spread.
  bool contains(const Fingerprint& fp, std::uint64_t spread) const;

  int level = 0;  // how many merges made it

 private:
  friend class FingerprintRunWriter;
  void unmap();
  std::vector<Fingerprint> memory_;
  std::span<const Fingerprint> mapped_;
};

// Writes a run to a new file of the spill folder, through a buffer, and maps
// it. The file has no name (open_unnamed): a killed build leaves nothing; the
// path names it in errors.
class FingerprintRunWriter {
 public:
  FingerprintRunWriter() = default;
  ~FingerprintRunWriter();
  FingerprintRunWriter(const FingerprintRunWriter&) = delete;
  FingerprintRunWriter& operator=(const FingerprintRunWriter&) = delete;

  [[nodiscard]] BuildStatus open(const std::string& dir, const std::string& path);
  [[nodiscard]] BuildStatus add(const Fingerprint& fp) {
    buffer_.push_back(fp);
    return buffer_.size() == kBufferFingerprints ? flush() : std::nullopt;
  }
  // Maps what was written into out (an empty run when nothing was).
  [[nodiscard]] BuildStatus finish(FingerprintRun& out);

 private:
  static constexpr std::size_t kBufferFingerprints = 4096;
  BuildStatus flush();
  std::string path_;
  int fd_ = -1;
  std::size_t written_ = 0;  // fingerprints
  std::vector<Fingerprint> buffer_;
};

}  // namespace gb::builder
