#include "book/explore/opening_names.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "book/chess/notation.h"
#include "book/explore/position_arg.h"

namespace gb::explore {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_result(std::string_view t) { return t == "*" || t == "1-0" || t == "0-1" || t == "1/2-1/2"; }

// Calls f(line_number, line) for every line of text, without the line end.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t number = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(++number, line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// The value of a PGN tag line `[Name "value"]`, or nullopt when line is not that tag.
std::optional<std::string> tag_value(std::string_view line, std::string_view name) {
  if (line.size() < name.size() + 4 || line[0] != '[' || line.substr(1, name.size()) != name) return {};
  std::size_t open = line.find('"');
  std::size_t close = line.rfind('"');
  if (open == std::string_view::npos || close <= open || open != name.size() + 2) return {};
  return std::string(line.substr(open + 1, close - open - 1));
}

}  // namespace

ExploreStatus OpeningTable::add_line(std::string_view movetext, OpeningName name, std::string_view source,
                                     std::size_t line) {
  Position pos;
  int plies = 0;
  int comment_depth = 0;
  std::size_t i = 0;
  while (i < movetext.size()) {
    char c = movetext[i];
    if (c == '{') ++comment_depth;
    if (c == '}' && comment_depth > 0) --comment_depth;
    if (comment_depth > 0 || c == '}' || std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < movetext.size() && !std::isspace(static_cast<unsigned char>(movetext[end])) &&
           movetext[end] != '{')
      ++end;
    std::string_view token = strip_move_number(movetext.substr(i, end - i));
    i = end;
    if (token.empty() || is_result(token)) continue;
    MoveParse parsed = parse_san(pos, token);
    if (!parsed.ok())
      return ExploreError{ExploreError::Code::Names, std::string(source) + ":" + std::to_string(line) +
                                                         ": move '" + std::string(token) +
                                                         "': " + std::string(to_string(parsed.error))};
    UndoInfo undo;
    pos.do_move(parsed.move, undo);
    ++plies;
  }
  if (plies == 0) return std::nullopt;  // a name for the start position says nothing
  auto [it, inserted] = by_key_.try_emplace(pos.key(), Entry{name, plies});
  if (!inserted && plies < it->second.plies) it->second = Entry{std::move(name), plies};
  return std::nullopt;
}

ExploreStatus OpeningTable::add_tsv(std::string_view text, std::string_view source) {
  ExploreStatus status;
  for_each_line(text, [&](std::size_t number, std::string_view line) {
    if (status || line.empty() || line.starts_with("eco\t")) return;
    std::size_t tab1 = line.find('\t');
    std::size_t tab2 = tab1 == std::string_view::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string_view::npos) {
      status = ExploreError{ExploreError::Code::Names, std::string(source) + ":" + std::to_string(number) +
                                                           ": expected eco<TAB>name<TAB>pgn"};
      return;
    }
    OpeningName name{std::string(line.substr(0, tab1)), std::string(line.substr(tab1 + 1, tab2 - tab1 - 1))};
    status = add_line(line.substr(tab2 + 1), std::move(name), source, number);
  });
  return status;
}

ExploreStatus OpeningTable::add_eco_pgn(std::string_view text, std::string_view source) {
  std::string eco, opening, variation, sub_variation, movetext;
  std::size_t movetext_line = 0;
  ExploreStatus status;
  auto flush = [&] {
    if (status || movetext.empty()) return;
    std::string name = opening;
    if (!variation.empty()) name += ": " + variation;
    if (!sub_variation.empty()) name += (variation.empty() ? ": " : ", ") + sub_variation;
    status = add_line(movetext, OpeningName{eco, name}, source, movetext_line);
    eco.clear(), opening.clear(), variation.clear(), sub_variation.clear(), movetext.clear();
  };
  for_each_line(text, [&](std::size_t number, std::string_view line) {
    if (line.starts_with("[")) {
      if (!movetext.empty()) flush();
      if (auto v = tag_value(line, "ECO")) eco = *v;
      if (auto v = tag_value(line, "Opening")) opening = *v;
      if (auto v = tag_value(line, "Variation")) variation = *v;
      if (auto v = tag_value(line, "SubVariation")) sub_variation = *v;
      return;
    }
    if (line.empty()) return;
    if (movetext.empty()) movetext_line = number;
    movetext.append(line).push_back(' ');
  });
  flush();
  return status;
}

ExploreStatus OpeningTable::add_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ExploreError{ExploreError::Code::Names, path + ": cannot open the opening table"};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  return ends_with(path, ".tsv") ? add_tsv(text, path) : add_eco_pgn(text, path);
}

const OpeningName* OpeningTable::find(Key key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &it->second.name;
}

const OpeningName* OpeningTable::nearest(std::span<const Key> line) const {
  for (auto it = line.rbegin(); it != line.rend(); ++it)
    if (const OpeningName* name = find(*it)) return name;
  return nullptr;
}

}  // namespace gb::explore
