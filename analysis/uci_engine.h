// A UCI engine driven one search at a time: what `graphbook analyse` runs J of.
// The process layer is the adapter's (uci-adapter/engine_process.h, which
// knows nothing of UCI); the protocol here is the small part analysis needs:
// the handshake, options, and `go depth N` / `go nodes N` to `bestmove`.
//
// Each search starts with `ucinewgame` and `isready`, so that no hash entry of
// an earlier position is left: a fixed-depth search on one thread then gives
// the same result whatever was searched before it (the test compares with
// Stockfish run directly). Not thread-safe: one UciEngine per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/engine_error.h"
#include "book/chess/position.h"
#include "book/store/evaluation.h"
#include "uci-adapter/engine_process.h"
#include "uci-adapter/line_reader.h"

namespace gb::analysis {

// What one `info` line says of the search (multipv 1 only).
struct SearchInfo {
  store::Evaluation::Kind kind = store::Evaluation::Kind::Centipawns;
  std::int32_t score = 0;
  std::uint16_t depth = 0;
  std::uint64_t nodes = 0;
  bool bound = false;  // lowerbound or upperbound: not the search's answer
};
// The score of an `info` line; nullopt for a line without one, or of another multipv.
[[nodiscard]] std::optional<SearchInfo> parse_search_info(std::string_view line);

struct SearchLimit {
  int depth = 0;            // go depth N when > 0
  std::uint64_t nodes = 0;  // go nodes N otherwise
};

class UciEngine {
 public:
  UciEngine(UciEngine&&) noexcept = default;
  UciEngine& operator=(UciEngine&&) = delete;

  // Starts argv, does the handshake (uci -> uciok, reading `id name`) and sets
  // the options (setoption name N value V), then waits for readyok. nullopt
  // and an error (Start, Died, Timeout) when the engine cannot be started, dies
  // or does not answer within 30 s.
  [[nodiscard]] static std::optional<UciEngine> start(
      const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& options,
      EngineError* error);

  const std::string& name() const { return name_; }

  // Searches pos to the limit. The evaluation is that of the last info line
  // with an exact score (else the last with any) before `bestmove`, from the
  // side to move's point of view; best is Move() for `bestmove (none)`.
  // nullopt and an error when the engine dies (Died) or says nothing usable (Protocol).
  [[nodiscard]] std::optional<store::Evaluation> search(const Position& pos, SearchLimit limit,
                                                        EngineError* error);

 private:
  explicit UciEngine(uci_adapter::EngineProcess process)
      : process_(std::move(process)), reader_(process_.output_fd()) {}
  // The next line from the engine; nullopt and an error (Died, Timeout, System)
  // when it ended or after timeout_ms (-1: none).
  std::optional<std::string> next_line(int timeout_ms, EngineError* error);
  // Reads lines until one starts with word; the error of next_line when none came.
  [[nodiscard]] std::optional<EngineError> wait_for(std::string_view word, int timeout_ms);

  uci_adapter::EngineProcess process_;
  uci_adapter::LineReader reader_;
  std::vector<std::string> lines_;
  std::size_t next_ = 0;
  std::string name_;
};

}  // namespace gb::analysis
