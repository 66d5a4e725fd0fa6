// The README's exit statuses (0 success, 2 a usage or input error, 3 a
// damaged book) and its JSON key style (snake_case) for the learning
// subcommands: learn, unlearn and uci-pending. Each case is made in the test:
// a book built from two games written here, a path that does not exist, a
// copy of the book cut short.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>

#include "probe/probe_helpers.h"

using namespace gb;
using namespace gb::test;

namespace {

const TwoGameBooks& books() {
  static const TwoGameBooks made = make_two_game_books("learn-exit", false);
  return made;
}

std::string book_copy(const std::string& name) {
  std::string path = temp_dir() + "/" + name;
  std::filesystem::copy_file(books().book, path, std::filesystem::copy_options::overwrite_existing);
  return path;
}

// Every key of every object in j, at any depth.
void collect_keys(const nlohmann::json& j, std::vector<std::string>& keys) {
  if (j.is_object())
    for (const auto& [key, value] : j.items()) {
      keys.push_back(key);
      collect_keys(value, keys);
    }
  if (j.is_array())
    for (const auto& value : j) collect_keys(value, keys);
}

}  // namespace

TEST_CASE("Learn, unlearn and uci-pending exit 0 done, 2 no book or unreadable PGN, 3 damaged book",
          "[learning][exit]") {
  const TwoGameBooks& b = books();
  const std::string missing_book = quote(temp_dir() + "/no-such.book");
  const std::string missing_pgn = quote(temp_dir() + "/no-such-games.pgn");
  const std::vector<std::string> commands = {"learn", "unlearn", "uci-pending"};
  for (const std::string& c : commands) {
    INFO(c);
    std::string book = book_copy("learn-exit-" + c + ".book");
    CHECK(graphbook(c + " " + quote(book) + " " + quote(b.pgn), true).status == 0);

    Run no_book = graphbook(c + " " + missing_book + " " + quote(b.pgn), true);
    CHECK(no_book.status == 2);
    CHECK(no_book.out.find("no-such.book") != std::string::npos);

    Run no_pgn = graphbook(c + " " + quote(book) + " " + missing_pgn, true);
    CHECK(no_pgn.status == 2);
    CHECK(no_pgn.out.find("no-such-games.pgn") != std::string::npos);

    Run damaged = graphbook(c + " " + quote(b.damaged) + " " + quote(b.pgn), true);
    CHECK(damaged.status == 3);
    CHECK(damaged.out.find("learn-exit-damaged.book") != std::string::npos);
    CHECK(std::filesystem::file_size(b.damaged) == 8192);  // refused, not written
  }
  // uci-pending alone lists (opening the book read-only); learn --reset alone clears.
  CHECK(graphbook("uci-pending " + quote(b.book), true).status == 0);
  CHECK(graphbook("uci-pending " + quote(b.damaged), true).status == 3);
  CHECK(graphbook("uci-pending " + missing_book, true).status == 2);
  CHECK(graphbook("learn " + quote(b.damaged) + " --reset", true).status == 3);
  // Usage: learn needs a PGN or --reset, unlearn a PGN.
  CHECK(graphbook("learn " + quote(b.book), true).status == 2);
  CHECK(graphbook("unlearn " + quote(b.book), true).status == 2);
}

TEST_CASE("Learn, unlearn, learn --reset and uci-pending write their JSON keys in snake_case", "[learning]") {
  const TwoGameBooks& b = books();
  std::string book = book_copy("learn-json.book");
  const std::string pgn = quote(b.pgn);
  auto learned = graphbook_json("learn " + quote(book) + " " + pgn + " --json");
  auto unlearned = graphbook_json("unlearn " + quote(book) + " " + pgn + " --json");
  auto reset = graphbook_json("learn " + quote(book) + " --reset " + pgn + " --json");
  auto pending = graphbook_json("uci-pending " + quote(book) + " " + pgn + " --json");
  // The two games written above, both with a result and in the book.
  REQUIRE(learned.is_array());
  REQUIRE(learned.size() == 1);
  CHECK(learned[0]["games_read"] == 2);
  CHECK(learned[0]["games_learned"] == 2);
  CHECK(learned[0]["already_learned"] == 0);
  CHECK(learned[0]["still_pending"] == 0);
  REQUIRE(unlearned.is_array());
  REQUIRE(unlearned.size() == 1);
  CHECK(unlearned[0]["games_unlearned"] == 2);
  CHECK(unlearned[0]["not_learned"] == 0);
  REQUIRE(reset.is_array());
  REQUIRE(reset.size() == 2);
  CHECK(reset[0]["reset"] == true);
  CHECK(reset[0].contains("records_removed"));
  REQUIRE(pending.is_object());
  REQUIRE(pending["resolved"].size() == 1);
  CHECK(pending["resolved"][0]["still_pending"] == 0);

  std::vector<std::string> keys;
  for (const auto* j : {&learned, &unlearned, &reset, &pending}) collect_keys(*j, keys);
  REQUIRE(keys.size() >= 20);
  const std::regex snake_case("[a-z][a-z0-9]*(_[a-z0-9]+)*");
  for (const std::string& key : keys) {
    INFO(key);
    CHECK(std::regex_match(key, snake_case));
  }
}
