// The session's routing on strings, without processes and without a book.
#include "uci-adapter/session.h"

#include <catch2/catch.hpp>

using namespace gb::uci_adapter;

namespace {

Outbox gui(Session& s, const std::string& line) {
  Outbox out;
  s.on_gui_line(line, out);
  return out;
}

Outbox engine(Session& s, const std::string& line) {
  Outbox out;
  s.on_engine_line(line, out);
  return out;
}

}  // namespace

TEST_CASE("The handshake adds the adapter's options before uciok and drops the engine's OwnBook",
          "[uci-adapter]") {
  Session s(BookOptions{});
  CHECK(gui(s, "uci").to_engine == std::vector<std::string>{"uci"});
  CHECK(engine(s, "id name Engine").to_gui == std::vector<std::string>{"id name Engine"});
  CHECK(engine(s, "option name OwnBook type check default false").to_gui.empty());
  CHECK(engine(s, "option name Hash type spin default 16 min 1 max 33554432").to_gui.size() == 1);
  auto done = engine(s, "uciok").to_gui;
  REQUIRE(done.size() == 15);
  CHECK(done[0] == "option name OwnBook type check default true");
  CHECK(
      done[4] ==
      "option name BookPolicy type combo default best var best var weighted var uniform var learned var lcb");
  CHECK(done[7] == "option name BookExitMargin type spin default 0 min 0 max 10000");
  CHECK(done[8] == "option name BookLookahead type spin default 0 min 0 max 64");
  CHECK(done[9] == "option name BookRatings type string default <empty>");
  CHECK(done[12] == "option name BookUntil type string default <empty>");
  CHECK(done[13] == "option name BookWeights type string default <empty>");
  CHECK(done.back() == "uciok");
}

TEST_CASE("Setoption for the adapter's options is kept, the engine's is forwarded", "[uci-adapter]") {
  Session s(BookOptions{});
  CHECK(gui(s, "setoption name BookDepth value 12").to_engine.empty());
  CHECK(s.options().depth == 12);
  CHECK(gui(s, "setoption name bookpolicy value weighted").to_engine.empty());
  CHECK(s.options().policy == gb::explore::Policy::Weighted);
  auto bad = gui(s, "setoption name BookPolicy value sometimes");
  CHECK(bad.to_engine.empty());
  REQUIRE(bad.to_gui.size() == 1);
  CHECK(bad.to_gui[0].rfind("info string", 0) == 0);
  CHECK(gui(s, "setoption name Hash value 32").to_engine ==
        std::vector<std::string>{"setoption name Hash value 32"});
}

TEST_CASE("Without a book a go reaches the engine and its bestmove the GUI", "[uci-adapter]") {
  Session s(BookOptions{});
  CHECK(gui(s, "position startpos moves e2e4").to_engine.size() == 1);
  CHECK(gui(s, "go movetime 10").to_engine == std::vector<std::string>{"go movetime 10"});
  CHECK(gui(s, "isready").to_engine == std::vector<std::string>{"isready"});
  CHECK(gui(s, "stop").to_engine == std::vector<std::string>{"stop"});
  CHECK(engine(s, "bestmove e7e5").to_gui == std::vector<std::string>{"bestmove e7e5"});
  // Nothing searches now: a late stop is not forwarded.
  CHECK(gui(s, "stop").to_engine.empty());
}

TEST_CASE("Quit and the end of the GUI's input end the session", "[uci-adapter]") {
  Session s(BookOptions{});
  auto q = gui(s, "quit");
  CHECK(q.quit);
  CHECK(q.to_engine == std::vector<std::string>{"quit"});
  Session t(BookOptions{});
  Outbox out;
  t.on_gui_closed(out);
  CHECK(out.quit);
}

TEST_CASE("Malformed GUI lines never crash the session and still reach the engine", "[uci-adapter]") {
  Session s(BookOptions{});
  for (std::string line :
       {"position fen", "position fen not a fen moves e2e4", "position startpos moves e2e5 zz",
        "position startpos moves", "go wtime", "go wtime -5 btime x movetime 99999999999999999999",
        "go searchmoves", "setoption", "setoption name", "setoption name BookDepth value -3",
        "setoption name BookMinGames value 1e9", "setoption name OwnBook value maybe", "ponderhit", "stop",
        "\t", "",
        "position startpos moves e2e4 e7e5 e1e2 "
        "e8e7 e2e1 e7e8 e1e2 e8e7 e2e1 e7e8"}) {
    INFO("'" << line << "'");
    Outbox out;
    s.on_gui_line(line, out);
    // Each line goes on to the engine as it came, or is one of the adapter's own options and its
    // bad value is answered by an info string; the session goes on either way.
    CHECK_FALSE(out.quit);
    const bool passed_on = out.to_engine == std::vector<std::string>{line};
    const bool answered = out.to_engine.empty() && out.to_gui.size() == 1 &&
                          out.to_gui[0].rfind("info string graphbook: ", 0) == 0;
    CHECK((passed_on || answered));
  }
  // A position that was not followed: the go still reaches the engine.
  Outbox bad = gui(s, "position fen 8/8/8/8/8/8/8/8 w - - 0 1");
  CHECK(bad.to_engine.size() == 1);
  REQUIRE(bad.to_gui.size() == 1);
  CHECK(bad.to_gui[0].rfind("info string graphbook: position not followed", 0) == 0);
  CHECK(gui(s, "go movetime 10").to_engine == std::vector<std::string>{"go movetime 10"});
}
