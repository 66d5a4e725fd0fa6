#include "book/cql/query_source.h"

#include <fstream>
#include <sstream>
#include <variant>

namespace gb::cql {

bool read_query_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

std::string QueryLoadError::message() const {
  switch (code) {
    case Code::File: return "cannot read query file " + detail;
    case Code::Empty: return "no query: give a query file or --cql TEXT";
    case Code::Parse: return detail;
  }
  return detail;
}

std::optional<LoadedQuery> load_query(const QuerySource& source, QueryLoadError* error) {
  std::string text, name = source.text_name;
  for (const auto& t : source.texts) text += t + "\n";
  if (!source.file.empty()) {
    std::string file_text;
    if (!read_query_file(source.file, file_text) && !read_query_file(source.file + ".cql", file_text)) {
      *error = {QueryLoadError::Code::File, source.file};
      return std::nullopt;
    }
    name = source.texts.empty() ? source.file : source.file + " (after " + source.text_name + " text)";
    text += file_text;
  }
  if (text.empty() && source.prefix.empty()) {
    *error = {QueryLoadError::Code::Empty, ""};
    return std::nullopt;
  }
  text = source.prefix + text;
  auto parsed = parse(text);
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    *error = {QueryLoadError::Code::Parse, e->render(text, name)};
    return std::nullopt;
  }
  return LoadedQuery{std::move(std::get<Program>(parsed)), std::move(text), std::move(name)};
}

}  // namespace gb::cql
