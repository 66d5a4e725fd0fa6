// The CQL parser: query text -> Program (a typed filter tree plus the
// options of the cql() header). Follows the precedence table and the
// precedence vitiation of the CQLi reference (section 28): when an infix
// filter meets a left operand of the wrong type, the operand is widened to
// the enclosing production; if nothing fits, that is a syntax error.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "book/cql/ast.h"

namespace gb::cql {

struct ParseError {
  int line = 0;
  int column = 0;
  int offset = 0;
  int length = 1;
  std::string message;
  std::string expected;  // what the parser wanted there, empty if nothing useful
  // "name:line:col: error: message", the source line, a caret line, "expected ...".
  std::string render(std::string_view source, std::string_view source_name) const;
};

struct Range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  bool contains(std::int64_t v) const { return lo <= v && v <= hi; }
};

// The cql(...) header; every field is optional, the command line overrides it.
struct Header {
  bool variations = false;
  bool quiet = false;
  bool silent = false;
  std::optional<std::string> input, output, matchstring, result;
  std::optional<Range> gamenumber, matchcount;
  bool sort_matchcount = false;
};

struct VariableInfo {
  std::string name;
  Type type;
  bool persistent = false;  // kept from game to game, printed at the end unless quiet
  bool quiet = false;
  Type key_type = Type::String, value_type = Type::String;  // dictionaries (always persistent)
};

struct SortKey {
  std::string description;
  bool minimize = false;
  Type type = Type::Numeric;  // Numeric (sets become their size) or String
  bool quiet = false;
};

struct Program {
  NodePtr root;  // a Block of the top-level filters
  Header header;
  std::vector<VariableInfo> variables;
  std::vector<SortKey> sorts;

  bool has_persistent() const {
    for (const auto& v : variables)
      if (v.persistent || v.type == Type::Dictionary) return true;
    return false;
  }
};

// Parses a whole query. On error nothing is returned but the error.
[[nodiscard]] std::variant<Program, ParseError> parse(std::string_view text);

}  // namespace gb::cql
