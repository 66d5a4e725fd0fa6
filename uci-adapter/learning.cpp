#include "uci-adapter/learning.h"

#include <unistd.h>

#include <ctime>

namespace gb::uci_adapter {

namespace {

std::string today() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buffer[16];
  std::strftime(buffer, sizeof buffer, "%Y.%m.%d", &tm);
  return buffer;
}

}  // namespace

AdapterStatus learn_game(store::Book& book, const learning::PlayedGame& game, Color side, Outcome outcome,
                         LearnSummary* summary) {
  pgn::Outcome result = outcome == Outcome::Draw                              ? pgn::Outcome::Draw
                        : (outcome == Outcome::Win) == (side == Color::White) ? pgn::Outcome::WhiteWins
                                                                              : pgn::Outcome::BlackWins;
  std::string us = "graphbook uci", them = "opponent";
  std::vector<std::pair<std::string, std::string>> tags = {
      {"Event", "graphbook uci"},
      {"Site", "pid " + std::to_string(::getpid())},
      {"Date", today()},
      // A unique Round makes a unique fingerprint: every game played counts.
      {"Round", std::to_string(learning::unique_game_number())},
      {"White", side == Color::White ? us : them},
      {"Black", side == Color::White ? them : us}};
  std::uint64_t moves = 0;
  if (auto error = learning::learn_played_game(book, game, side, result, std::move(tags), &moves))
    return AdapterError{AdapterError::Code::Learn, error->message};
  if (summary) summary->moves_learned = moves;
  return std::nullopt;
}

}  // namespace gb::uci_adapter
