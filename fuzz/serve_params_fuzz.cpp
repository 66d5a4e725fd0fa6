// libFuzzer target for the request parameters of `graphbook serve`
// (serve/request_params.h): any bytes as fen, play and the numbers and years.
// The input is cut at its first two NUL bytes into fen, play and a number. The
// parsers must not crash, hang or trip the sanitizers, and what they accept
// must hold: a position whose FEN reads back, one key per position of the
// line, numbers inside their bounds. See docs/SERVE.md.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "serve/request_params.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::size_t a = in.find('\0');
  std::string_view fen = in.substr(0, a);
  std::string_view rest = a == std::string_view::npos ? std::string_view() : in.substr(a + 1);
  std::size_t b = rest.find('\0');
  std::string_view play = rest.substr(0, b);
  std::string_view number = b == std::string_view::npos ? std::string_view() : rest.substr(b + 1);

  gb::serve::ParamError error;
  if (auto where = gb::serve::parse_position(fen, play, &error)) {
    auto again = gb::Position::from_fen(where->position.fen());
    if (!again || again->key() != where->position.key()) __builtin_trap();
    if (where->line.empty() || where->line.back() != where->position.key()) __builtin_trap();
  } else if (error.message.empty()) {
    __builtin_trap();  // a refusal always says why
  }
  if (auto n = gb::serve::parse_bounded("moves", number, -5, 500, 12, &error))
    if (*n < -5 || *n > 500) __builtin_trap();
  if (auto y = gb::serve::parse_year("since", number, 0, &error))
    if (*y < 0 || *y > 9999) __builtin_trap();
  (void)gb::serve::parse_choice("format", number, {"json", "svg"}, &error);
  return 0;
}
