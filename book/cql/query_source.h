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

// Why a query did not load (docs/DESIGN.md, "Errors: one convention per
// layer"); each is the user's input (exit status 2).
struct QueryLoadError {
  enum class Code {
    File,   // the query file (nor FILE.cql) cannot be read; detail is the path
    Empty,  // no --cql text and no file
    Parse,  // the query does not parse; detail is the rendered error
  };
  Code code = Code::File;
  std::string detail;
  // File: "cannot read query file PATH"; Empty: "no query: give a query file
  // or --cql TEXT" (one line each, without a newline); Parse: the parse error
  // rendered with its caret, naming the source (several lines ending in a
  // newline, to print as they are).
  std::string message() const;
};

// The parsed query, or nullopt with *error set.
[[nodiscard]] std::optional<LoadedQuery> load_query(const QuerySource& source, QueryLoadError* error);

// A file's bytes; false when it cannot be read.
[[nodiscard]] bool read_query_file(const std::string& path, std::string& out);

}  // namespace gb::cql
