#include "uci-adapter/protocol.h"

#include <algorithm>
#include <charconv>

namespace gb::uci_adapter {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// s without the white space around it.
std::string trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

std::optional<std::int64_t> to_number(std::string_view s) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool starts_with_word(std::string_view line, std::string_view word) {
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  if (line.substr(0, word.size()) != word) return false;
  return line.size() == word.size() || is_space(line[word.size()]);
}

GuiCommand command_of(std::string_view line) {
  auto t = tokens(line);
  if (t.empty()) return GuiCommand::Unknown;
  std::string_view w = t[0];
  if (w == "uci") return GuiCommand::Uci;
  if (w == "debug") return GuiCommand::Debug;
  if (w == "isready") return GuiCommand::IsReady;
  if (w == "setoption") return GuiCommand::SetOption;
  if (w == "register") return GuiCommand::Register;
  if (w == "ucinewgame") return GuiCommand::UciNewGame;
  if (w == "position") return GuiCommand::Position;
  if (w == "go") return GuiCommand::Go;
  if (w == "stop") return GuiCommand::Stop;
  if (w == "ponderhit") return GuiCommand::PonderHit;
  if (w == "quit") return GuiCommand::Quit;
  return GuiCommand::Unknown;
}

std::optional<SetOption> parse_setoption(std::string_view line) {
  // Find the "name" and "value" tokens by position in the line, so that the
  // text between them keeps its inner spaces.
  auto t = tokens(line);
  if (t.size() < 3 || t[0] != "setoption" || t[1] != "name") return std::nullopt;
  const char* name_begin = t[2].data();
  const char* name_end = line.data() + line.size();
  std::optional<std::string> value;
  for (std::size_t i = 3; i < t.size(); ++i) {
    if (t[i] == "value") {
      name_end = t[i].data();
      const char* value_begin = t[i].data() + t[i].size();
      value = trim(std::string_view(value_begin, line.data() + line.size() - value_begin));
      break;
    }
  }
  SetOption out;
  out.name = trim(std::string_view(name_begin, name_end - name_begin));
  if (out.name.empty()) return std::nullopt;
  out.value = value.value_or("");
  if (out.value == "<empty>") out.value.clear();
  return out;
}

std::optional<PositionCommand> parse_position(std::string_view line) {
  auto t = tokens(line);
  if (t.size() < 2 || t[0] != "position") return std::nullopt;
  PositionCommand out;
  std::size_t i = 1;
  if (t[1] == "startpos") {
    i = 2;
  } else if (t[1] == "fen") {
    std::string fen;
    for (i = 2; i < t.size() && t[i] != "moves"; ++i) {
      if (!fen.empty()) fen += ' ';
      fen += t[i];
    }
    if (fen.empty()) return std::nullopt;
    out.fen = std::move(fen);
  } else {
    return std::nullopt;
  }
  if (i < t.size()) {
    if (t[i] != "moves") return std::nullopt;
    for (++i; i < t.size(); ++i) out.moves.emplace_back(t[i]);
  }
  return out;
}

bool GoCommand::limited() const {
  if (infinite) return false;
  return wtime || btime || movetime || depth || nodes || mate || movestogo;
}

GoCommand parse_go(std::string_view line) {
  GoCommand go;
  auto t = tokens(line);
  auto number_at = [&](std::size_t& i) -> std::optional<std::int64_t> {
    if (i + 1 >= t.size()) return std::nullopt;
    auto v = to_number(t[i + 1]);
    if (v) ++i;
    return v;
  };
  for (std::size_t i = 1; i < t.size(); ++i) {
    std::string_view w = t[i];
    if (w == "ponder")
      go.ponder = true;
    else if (w == "infinite")
      go.infinite = true;
    else if (w == "wtime")
      go.wtime = number_at(i);
    else if (w == "btime")
      go.btime = number_at(i);
    else if (w == "winc")
      go.winc = number_at(i);
    else if (w == "binc")
      go.binc = number_at(i);
    else if (w == "movestogo")
      go.movestogo = number_at(i);
    else if (w == "depth")
      go.depth = number_at(i);
    else if (w == "nodes")
      go.nodes = number_at(i);
    else if (w == "mate")
      go.mate = number_at(i);
    else if (w == "movetime")
      go.movetime = number_at(i);
    else if (w == "searchmoves") {
      // searchmoves runs until the next keyword.
      static constexpr std::string_view kKeywords[] = {"ponder", "infinite", "wtime",     "btime",
                                                       "winc",   "binc",     "movestogo", "depth",
                                                       "nodes",  "mate",     "movetime"};
      while (i + 1 < t.size() &&
             std::find(std::begin(kKeywords), std::end(kKeywords), t[i + 1]) == std::end(kKeywords))
        go.searchmoves.emplace_back(t[++i]);
    }
  }
  return go;
}

std::optional<BestMove> parse_bestmove(std::string_view line) {
  auto t = tokens(line);
  if (t.size() < 2 || t[0] != "bestmove") return std::nullopt;
  BestMove out{std::string(t[1]), {}};
  if (t.size() >= 4 && t[2] == "ponder") out.ponder = std::string(t[3]);
  return out;
}

std::optional<std::string> option_name(std::string_view line) {
  auto t = tokens(line);
  if (t.size() < 3 || t[0] != "option" || t[1] != "name") return std::nullopt;
  std::string name;
  for (std::size_t i = 2; i < t.size() && t[i] != "type"; ++i) {
    if (!name.empty()) name += ' ';
    name += t[i];
  }
  return name;
}

std::string check_option(std::string_view name, bool value) {
  return "option name " + std::string(name) + " type check default " + (value ? "true" : "false");
}

std::string spin_option(std::string_view name, int value, int min, int max) {
  return "option name " + std::string(name) + " type spin default " + std::to_string(value) + " min " +
         std::to_string(min) + " max " + std::to_string(max);
}

std::string combo_option(std::string_view name, std::string_view value,
                         const std::vector<std::string>& vars) {
  std::string out = "option name " + std::string(name) + " type combo default " + std::string(value);
  for (const auto& v : vars) out += " var " + v;
  return out;
}

std::string string_option(std::string_view name, std::string_view value) {
  return "option name " + std::string(name) + " type string default " +
         (value.empty() ? std::string("<empty>") : std::string(value));
}

std::string bestmove_line(std::string_view move, std::string_view ponder) {
  std::string out = "bestmove " + std::string(move);
  if (!ponder.empty()) out += " ponder " + std::string(ponder);
  return out;
}

std::string info_string(std::string_view text) { return "info string " + std::string(text); }

}  // namespace gb::uci_adapter
