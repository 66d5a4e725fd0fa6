#include "book/store/polyglot.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "book/chess/movegen.h"

namespace gb::store {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::uint64_t read_be(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

void write_be(unsigned char* p, std::uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<unsigned char>(v & 0xff);
}

}  // namespace

std::uint16_t to_polyglot_move(Move m) {
  std::uint16_t pm = m.raw() & 0x0fff;
  if (m.kind() == Move::Kind::Promotion)
    pm |= std::uint16_t((int(m.promotion()) - int(PieceType::Knight) + 1) << 12);
  return pm;
}

Move from_polyglot_move(const Position& pos, std::uint16_t pm) {
  MoveList list;
  generate_legal(pos, list);
  for (Move m : list)
    if (to_polyglot_move(m) == pm) return m;
  return Move();
}

Move raw_move_from_polyglot(std::uint16_t pm) {
  int promo = (pm >> 12) & 7;
  Square from = Square((pm >> 6) & 63), to = Square(pm & 63);
  if (promo >= 1 && promo <= 4)
    return Move::make(from, to, Move::Kind::Promotion, PieceType(int(PieceType::Knight) + promo - 1));
  return Move(from, to);
}

std::string PolyglotFileError::message() const {
  switch (code) {
    case Code::Open: return path + ": " + std::strerror(system_error);
    case Code::Read: return path + ": read error";
    case Code::NotPolyglot: return path + ": not a Polyglot book (size is not a multiple of 16 bytes)";
    case Code::Write: return path + ": write error: " + std::strerror(system_error);
  }
  return path;
}

std::optional<std::vector<PolyglotEntry>> read_polyglot_file(const std::string& path,
                                                             PolyglotFileError* error) {
  using Code = PolyglotFileError::Code;
  auto fail = [&](Code code, int system_error = 0) -> std::optional<std::vector<PolyglotEntry>> {
    if (error) *error = PolyglotFileError{.code = code, .path = path, .system_error = system_error};
    return std::nullopt;
  };
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return fail(Code::Open, errno);
  std::vector<PolyglotEntry> entries;
  unsigned char buf[16 * 4096];
  std::size_t carry = 0;
  for (;;) {
    std::size_t n = std::fread(buf + carry, 1, sizeof buf - carry, f.get()) + carry;
    std::size_t whole = n / 16 * 16;
    for (std::size_t i = 0; i < whole; i += 16) {
      const unsigned char* p = buf + i;
      entries.push_back({.key = read_be(p, 8),
                         .move = std::uint16_t(read_be(p + 8, 2)),
                         .weight = std::uint16_t(read_be(p + 10, 2)),
                         .learn = std::uint32_t(read_be(p + 12, 4))});
    }
    carry = n - whole;
    std::memmove(buf, buf + whole, carry);
    if (n < sizeof buf) break;
  }
  if (std::ferror(f.get())) return fail(Code::Read);
  if (carry) return fail(Code::NotPolyglot);
  return entries;
}

std::optional<PolyglotFileError> write_polyglot_file(const std::string& path,
                                                     const std::vector<PolyglotEntry>& entries) {
  using Code = PolyglotFileError::Code;
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) return PolyglotFileError{.code = Code::Open, .path = path, .system_error = errno};
  std::vector<unsigned char> buf(entries.size() * 16);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    unsigned char* p = buf.data() + 16 * i;
    write_be(p, entries[i].key, 8);
    write_be(p + 8, entries[i].move, 2);
    write_be(p + 10, entries[i].weight, 2);
    write_be(p + 12, entries[i].learn, 4);
  }
  // An empty book is an empty file: fwrite must not be given the null data() of an empty vector.
  if ((!buf.empty() && std::fwrite(buf.data(), 1, buf.size(), f.get()) != buf.size()) ||
      std::fflush(f.get()) != 0) {
    return PolyglotFileError{.code = Code::Write, .path = path, .system_error = errno};
  }
  return std::nullopt;
}

}  // namespace gb::store
