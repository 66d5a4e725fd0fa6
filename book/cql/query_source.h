// The text of a query as the commands take it (graphbook cql, query, build
// --filter): --cql texts first, then a query file (".cql" may be left out),
// parsed into a Program; a parse error comes back rendered with its caret,
// naming the source, the way `graphbook cql` prints it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "book/cql/parser.h"

namespace gb::cql {

struct QuerySource {
  std::vector<std::string> texts;   // --cql TEXT, in order
  std::string file;                 // a query file, empty for none
  std::string prefix;               // text put before both (graphbook cql's injected filters)
  std::string text_name = "--cql";  // how errors name the texts (build says --filter)
};

struct LoadedQuery {
  Program program;
  std::string text;  // the whole source that was parsed
  std::string name;  // how errors name it: "--cql", the file, "FILE (after --cql text)"
};

// The parsed query, or nullopt with error set: the rendered parse error
// (several lines ending in a newline), or one line without a newline for an
// unreadable file or an empty query.
[[nodiscard]] std::optional<LoadedQuery> load_query(const QuerySource& source, std::string* error);

// A file's bytes; false when it cannot be read.
[[nodiscard]] bool read_query_file(const std::string& path, std::string& out);

}  // namespace gb::cql
