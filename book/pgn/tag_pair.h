// Writing a PGN tag pair.
#pragma once

#include <string>
#include <string_view>

namespace gb::pgn {

// [Name "value"] and a newline, with '"' and '\' in the value escaped.
inline std::string tag_pair(std::string_view name, std::string_view value) {
  std::string out = "[";
  out += name;
  out += " \"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += "\"]\n";
  return out;
}

}  // namespace gb::pgn
