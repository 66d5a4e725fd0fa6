// Where PGN bytes come from: a plain file, a zstd-compressed file (streamed
// with ZSTD_decompressStream, bounded memory whatever the size), stdin ("-"),
// a byte range of a plain file, or text already in memory.
//
// A ByteSource is move-only and owns its file handle and zstd context. read()
// never throws; an I/O or decompression failure ends the stream and is kept in
// error() for the caller to report with the file name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gb::pgn {

class ByteSource {
 public:
  // Opens path for reading; "-" is stdin. A name ending in ".zst" or a file
  // starting with the zstd magic number is decompressed on the fly. On failure
  // the source is empty and error() says why ("cannot open x.pgn: No such file").
  [[nodiscard]] static ByteSource open(const std::string& path);
  // Bytes [begin, end) of an uncompressed file (see split.h).
  [[nodiscard]] static ByteSource open_range(const std::string& path, std::uint64_t begin, std::uint64_t end);
  // Text the caller keeps alive for as long as the source is read.
  [[nodiscard]] static ByteSource from_memory(std::string_view text, std::string name = "<memory>");

  ByteSource(ByteSource&&) noexcept;
  ByteSource& operator=(ByteSource&&) noexcept;
  ~ByteSource();

  // Copies up to size bytes into out; 0 means the end of the input (or an error).
  std::size_t read(char* out, std::size_t size);

  bool ok() const { return error_.empty(); }
  // Whether read() gives decompressed bytes rather than the file's own.
  bool decompresses() const { return zstd_ != nullptr; }
  const std::string& error() const { return error_; }
  const std::string& name() const { return name_; }

 private:
  ByteSource() = default;
  std::size_t read_raw(char* out, std::size_t size);
  std::size_t read_zstd(char* out, std::size_t size);
  void close();

  std::string name_;
  std::string error_;
  std::FILE* file_ = nullptr;
  bool owns_file_ = false;
  std::uint64_t remaining_ = UINT64_MAX;  // bytes left in a range
  std::string_view memory_;
  bool from_memory_ = false;
  // zstd streaming state
  struct ZstdState;
  std::unique_ptr<ZstdState> zstd_;
  // Bytes read while sniffing for the zstd magic, served before the file.
  char sniff_[4] = {};
  std::size_t sniff_len_ = 0, sniff_pos_ = 0;
};

}  // namespace gb::pgn
