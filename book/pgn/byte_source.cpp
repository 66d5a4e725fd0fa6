#include "book/pgn/byte_source.h"

#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gb::pgn {

struct ByteSource::ZstdState {
  ZSTD_DCtx* ctx = nullptr;
  std::vector<char> in;
  ZSTD_inBuffer input{nullptr, 0, 0};
  bool frame_done = true;  // the last call ended a frame (a clean end of file is allowed here)
  ~ZstdState() { ZSTD_freeDCtx(ctx); }
};

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};
}  // namespace

ByteSource ByteSource::open(const std::string& path) {
  ByteSource s;
  s.name_ = path;
  if (path == "-") {
    s.file_ = stdin;
    s.name_ = "<stdin>";
  } else {
    s.file_ = std::fopen(path.c_str(), "rb");
    if (!s.file_) {
      s.error_ = "cannot open " + path + ": " + std::strerror(errno);
      return s;
    }
    s.owns_file_ = true;
  }
  // Sniff the zstd magic number, so that stdin and misnamed files work too.
  s.sniff_len_ = std::fread(s.sniff_, 1, sizeof s.sniff_, s.file_);
  bool zstd = ends_with(path, ".zst") || (s.sniff_len_ == 4 && std::memcmp(s.sniff_, kZstdMagic, 4) == 0);
  if (zstd) {
    s.zstd_ = std::make_unique<ZstdState>();
    s.zstd_->ctx = ZSTD_createDCtx();
    s.zstd_->in.resize(ZSTD_DStreamInSize());
    std::memcpy(s.zstd_->in.data(), s.sniff_, s.sniff_len_);
    s.zstd_->input = {s.zstd_->in.data(), s.sniff_len_, 0};
    s.sniff_len_ = 0;
  }
  return s;
}

ByteSource ByteSource::open_range(const std::string& path, std::uint64_t begin, std::uint64_t end) {
  ByteSource s;
  s.name_ = path;
  s.file_ = std::fopen(path.c_str(), "rb");
  if (!s.file_) {
    s.error_ = "cannot open " + path + ": " + std::strerror(errno);
    return s;
  }
  s.owns_file_ = true;
  if (std::fseek(s.file_, long(begin), SEEK_SET) != 0) {
    s.error_ = "cannot seek in " + path + ": " + std::strerror(errno);
    s.close();
  }
  s.remaining_ = end > begin ? end - begin : 0;
  return s;
}

ByteSource ByteSource::from_memory(std::string_view text, std::string name) {
  ByteSource s;
  s.name_ = std::move(name);
  s.memory_ = text;
  s.from_memory_ = true;
  return s;
}

ByteSource::ByteSource(ByteSource&& o) noexcept { *this = std::move(o); }

ByteSource& ByteSource::operator=(ByteSource&& o) noexcept {
  if (this != &o) {
    close();
    name_ = std::move(o.name_);
    error_ = std::move(o.error_);
    file_ = std::exchange(o.file_, nullptr);
    owns_file_ = std::exchange(o.owns_file_, false);
    remaining_ = o.remaining_;
    memory_ = o.memory_;
    from_memory_ = o.from_memory_;
    zstd_ = std::move(o.zstd_);
    std::memcpy(sniff_, o.sniff_, sizeof sniff_);
    sniff_len_ = o.sniff_len_;
    sniff_pos_ = o.sniff_pos_;
  }
  return *this;
}

ByteSource::~ByteSource() { close(); }

void ByteSource::close() {
  if (file_ && owns_file_) std::fclose(file_);
  file_ = nullptr;
  owns_file_ = false;
}

std::size_t ByteSource::read(char* out, std::size_t size) {
  if (size == 0 || !error_.empty()) return 0;
  if (from_memory_) {
    std::size_t n = std::min(size, memory_.size());
    std::memcpy(out, memory_.data(), n);
    memory_.remove_prefix(n);
    return n;
  }
  if (!file_) return 0;
  return zstd_ ? read_zstd(out, size) : read_raw(out, size);
}

std::size_t ByteSource::read_raw(char* out, std::size_t size) {
  std::size_t n = 0;
  while (sniff_pos_ < sniff_len_ && n < size) out[n++] = sniff_[sniff_pos_++];
  if (remaining_ != UINT64_MAX) size = std::size_t(std::min<std::uint64_t>(size, remaining_ + n));
  if (n < size) {
    std::size_t got = std::fread(out + n, 1, size - n, file_);
    if (got < size - n && std::ferror(file_)) error_ = "cannot read " + name_ + ": " + std::strerror(errno);
    n += got;
  }
  if (remaining_ != UINT64_MAX) remaining_ -= std::min<std::uint64_t>(remaining_, n);
  return n;
}

std::size_t ByteSource::read_zstd(char* out, std::size_t size) {
  ZstdState& z = *zstd_;
  ZSTD_outBuffer output{out, size, 0};
  while (output.pos == 0) {
    if (z.input.pos == z.input.size) {
      std::size_t got = std::fread(z.in.data(), 1, z.in.size(), file_);
      if (got == 0) {
        if (std::ferror(file_))
          error_ = "cannot read " + name_ + ": " + std::strerror(errno);
        else if (!z.frame_done)
          error_ = name_ + ": truncated zstd stream";
        return 0;
      }
      z.input = {z.in.data(), got, 0};
    }
    std::size_t ret = ZSTD_decompressStream(z.ctx, &output, &z.input);
    if (ZSTD_isError(ret)) {
      error_ = name_ + ": zstd: " + ZSTD_getErrorName(ret);
      return 0;
    }
    z.frame_done = ret == 0;
  }
  return output.pos;
}

}  // namespace gb::pgn
