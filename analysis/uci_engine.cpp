#include "analysis/uci_engine.h"

#include <poll.h>

#include <charconv>
#include <chrono>

#include "book/chess/notation.h"

namespace gb::analysis {

namespace {

constexpr int kAnswerTimeoutMs = 30000;  // uciok, readyok: only stops a hang

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

template <class T>
bool number(std::string_view text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool starts_with_word(std::string_view line, std::string_view word) {
  auto w = words(line);
  return !w.empty() && w.front() == word;
}

void set(EngineError* error, EngineError::Code code, std::string message) {
  if (error) *error = {code, std::move(message)};
}

constexpr const char* kClosedInput = "the engine closed its input";

}  // namespace

std::optional<SearchInfo> parse_search_info(std::string_view line) {
  auto w = words(line);
  if (w.empty() || w[0] != "info") return std::nullopt;
  SearchInfo info;
  bool scored = false;
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (w[i] == "string" || w[i] == "pv") break;  // the rest is free text or moves
    bool has_next = i + 1 < w.size();
    if (w[i] == "multipv" && has_next) {
      int pv = 0;
      if (number(w[++i], pv) && pv != 1) return std::nullopt;
    } else if (w[i] == "depth" && has_next) {
      if (!number(w[++i], info.depth)) return std::nullopt;
    } else if (w[i] == "nodes" && has_next) {
      if (!number(w[++i], info.nodes)) return std::nullopt;
    } else if (w[i] == "score" && i + 2 < w.size()) {
      if (w[i + 1] == "cp")
        info.kind = store::Evaluation::Kind::Centipawns;
      else if (w[i + 1] == "mate")
        info.kind = store::Evaluation::Kind::Mate;
      else
        return std::nullopt;
      if (!number(w[i + 2], info.score)) return std::nullopt;
      scored = true;
      i += 2;
    } else if (w[i] == "lowerbound" || w[i] == "upperbound") {
      info.bound = true;
    }
  }
  if (!scored) return std::nullopt;
  return info;
}

std::optional<UciEngine> UciEngine::start(const std::vector<std::string>& argv,
                                          const std::vector<std::pair<std::string, std::string>>& options,
                                          EngineError* error) {
  uci_adapter::AdapterError start_error;
  auto process = uci_adapter::EngineProcess::start(argv, &start_error);
  if (!process) {
    set(error, EngineError::Code::Start, std::move(start_error.message));
    return std::nullopt;
  }
  UciEngine engine(std::move(*process));
  if (!engine.process_.send("uci")) {
    set(error, EngineError::Code::Died, kClosedInput);
    return std::nullopt;
  }
  for (;;) {
    EngineError why{};
    auto line = engine.next_line(kAnswerTimeoutMs, &why);
    if (!line) {
      set(error, why.code, "no uciok from the engine: " + why.message);
      return std::nullopt;
    }
    if (line->rfind("id name ", 0) == 0) engine.name_ = line->substr(8);
    if (starts_with_word(*line, "uciok")) break;
  }
  for (const auto& [name, value] : options)
    if (!engine.process_.send("setoption name " + name + " value " + value)) break;
  if (!engine.process_.send("isready")) {
    set(error, EngineError::Code::Died, kClosedInput);
    return std::nullopt;
  }
  if (auto e = engine.wait_for("readyok", kAnswerTimeoutMs)) {
    if (error) *error = std::move(*e);
    return std::nullopt;
  }
  return engine;
}

std::optional<store::Evaluation> UciEngine::search(const Position& pos, SearchLimit limit,
                                                   EngineError* error) {
  std::string go =
      limit.depth > 0 ? "go depth " + std::to_string(limit.depth) : "go nodes " + std::to_string(limit.nodes);
  if (!process_.send("ucinewgame") || !process_.send("isready")) {
    set(error, EngineError::Code::Died, kClosedInput);
    return std::nullopt;
  }
  if (auto e = wait_for("readyok", kAnswerTimeoutMs)) {
    if (error) *error = std::move(*e);
    return std::nullopt;
  }
  if (!process_.send("position fen " + pos.fen()) || !process_.send(go)) {
    set(error, EngineError::Code::Died, kClosedInput);
    return std::nullopt;
  }
  std::optional<SearchInfo> exact, any;
  for (;;) {
    auto line = next_line(-1, error);  // a search has no deadline: its depth decides how long it takes
    if (!line) return std::nullopt;
    if (auto info = parse_search_info(*line)) {
      any = info;
      if (!info->bound) exact = info;
      continue;
    }
    auto w = words(*line);
    if (w.empty() || w[0] != "bestmove") continue;
    const std::optional<SearchInfo>& last = exact ? exact : any;
    if (!last) {
      set(error, EngineError::Code::Protocol, "the engine gave no score for " + pos.fen());
      return std::nullopt;
    }
    store::Evaluation e;
    e.kind = last->kind;
    e.score = last->score;
    e.depth = last->depth;
    e.nodes = last->nodes;
    e.engine = name_;
    if (w.size() > 1 && w[1] != "(none)" && w[1] != "0000") {
      auto move = parse_uci(pos, w[1]);
      if (!move) {
        set(error, EngineError::Code::Protocol,
            "the engine's best move " + std::string(w[1]) + " is not legal in " + pos.fen());
        return std::nullopt;
      }
      e.best = *move;
    }
    return e;
  }
}

std::optional<std::string> UciEngine::next_line(int timeout_ms, EngineError* error) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (next_ >= lines_.size()) {
    lines_.clear();
    next_ = 0;
    int wait = -1;
    if (timeout_ms >= 0) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        set(error, EngineError::Code::Timeout,
            "no answer within " + std::to_string(timeout_ms / 1000) + " s");
        return std::nullopt;
      }
      wait = int(left.count());
    }
    pollfd p{reader_.fd(), POLLIN, 0};
    if (::poll(&p, 1, wait) < 0 && errno != EINTR) {
      set(error, EngineError::Code::System, "poll failed");
      return std::nullopt;
    }
    auto read = reader_.read_available(lines_);
    if (lines_.empty() &&
        (read == uci_adapter::LineReader::Read::End || read == uci_adapter::LineReader::Read::Error)) {
      auto status = process_.wait_exit(1000);
      set(error, EngineError::Code::Died,
          "the engine ended (" + (status ? status->describe() : std::string("still running")) + ")");
      return std::nullopt;
    }
  }
  return std::move(lines_[next_++]);
}

std::optional<EngineError> UciEngine::wait_for(std::string_view word, int timeout_ms) {
  for (;;) {
    EngineError error{};
    auto line = next_line(timeout_ms, &error);
    if (!line) return error;
    if (starts_with_word(*line, word)) return std::nullopt;
  }
}

}  // namespace gb::analysis
