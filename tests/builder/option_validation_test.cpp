// Build and export refuse numbers out of range, dates that are not dates and
// inputs that cannot be read, with a short message naming the option or file,
// before they create or touch anything.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "process.h"
#include "test_data.h"

using gb::test::graphbook;
using gb::test::Output;
using gb::test::read_file;
using gb::test::TempDir;

namespace {

const char* kGame = "[White \"A\"]\n[Black \"B\"]\n[Date \"2012.03.15\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n";

// Runs graphbook args and requires a refusal whose message names what.
void refused(const std::vector<std::string>& args, const std::string& what) {
  Output o = graphbook(args);
  std::string all = o.out + o.err;
  INFO(all);
  CHECK(o.status == 2);  // README, "Exit status": a usage or input error
  CHECK(all.find(what) != std::string::npos);
  CHECK(all.size() < 400);  // a sentence, not a 300-digit number
}

}  // namespace

TEST_CASE("build refuses negative and out-of-range numbers and creates no book", "[builder][options]") {
  TempDir dir;
  const std::string pgn = dir.write("g.pgn", kGame), book = dir.file("b.book");
  const std::vector<std::vector<std::string>> bad = {
      {"--max-ply", "-3"},  {"--max-ply", "70000"}, {"--min-games", "-3"}, {"--min-games", "0"},
      {"--min-elo", "-5"},  {"--threads", "0"},     {"--threads", "-2"},   {"--memory", "-5M"},
      {"--memory", "1e30"}, {"--memory", "0"},      {"--memory", "12Q"}};
  for (const auto& option : bad) {
    std::vector<std::string> args = {"build", book, pgn, option[0], option[1]};
    refused(args, option[0]);
    CHECK_FALSE(std::filesystem::exists(book));
  }
  Output o = graphbook({"build", book, pgn, "--max-ply", "65535", "--min-games", "1", "--quiet"});
  INFO(o.err);
  CHECK(o.status == 0);
}

TEST_CASE("export refuses negative and out-of-range numbers and writes no file", "[builder][options]") {
  TempDir dir;
  const std::string pgn = dir.write("g.pgn", kGame), book = dir.file("b.book"), out = dir.file("o.bin");
  REQUIRE(graphbook({"build", book, pgn, "--quiet"}).status == 0);
  for (const auto& option : std::vector<std::vector<std::string>>{{"--max-ply", "-3"},
                                                                  {"--max-ply", "70000"},
                                                                  {"--min-games", "-3"},
                                                                  {"--min-games", "99999999999"}}) {
    refused({"export", book, out, option[0], option[1]}, option[0]);
    CHECK_FALSE(std::filesystem::exists(out));
  }
}

TEST_CASE("build refuses --since and --until values that are not dates", "[builder][options]") {
  TempDir dir;
  const std::string pgn = dir.write("g.pgn", kGame), book = dir.file("b.book");
  for (const char* date : {"2012-13", "2012.00", "2012.01.32", "2012.01.00", "2012x", "12", "2012.1.5",
                           "2012/03", "-2012", "0000", "2012.03.1x", "2012.+3"}) {
    INFO(date);
    refused({"build", book, pgn, "--since", date}, "--since");
    refused({"build", book, pgn, "--until", date}, "--until");
    CHECK_FALSE(std::filesystem::exists(book));
  }
  refused({"build", book, pgn, "--since", "2020", "--until", "2010"}, "--since");
  CHECK_FALSE(std::filesystem::exists(book));
  // The forms build documents pass, and filter as dates: the game is of 2012.03.15.
  for (auto [since, until, added] : {std::tuple("2012", "2012", 1),
                                     {"2012-03", "2012.03", 1},
                                     {"2012.03.15", "2012-03-15", 1},
                                     {"2012.03.16", "2013", 0}}) {
    INFO(since << " " << until);
    const std::string b = dir.file(std::string("ok-") + since + ".book");
    Output o = graphbook({"build", b, pgn, "--since", since, "--until", until, "--json", "--quiet"});
    INFO(o.err);
    REQUIRE(o.status == 0);
    CHECK(nlohmann::json::parse(o.out)["games_added"] == added);
  }
}

TEST_CASE("build from an input that cannot be read creates no book and leaves a book as it was",
          "[builder][options]") {
  TempDir dir;
  const std::string pgn = dir.write("g.pgn", kGame), missing = dir.file("missing.pgn");
  const std::string book = dir.file("new.book");
  refused({"build", book, missing}, missing);
  CHECK_FALSE(std::filesystem::exists(book));
  refused({"build", book, pgn, missing}, missing);  // one good input does not make a partial book
  CHECK_FALSE(std::filesystem::exists(book));
  std::filesystem::create_directory(dir.file("folder"));
  refused({"build", book, dir.file("folder")}, dir.file("folder"));
  CHECK_FALSE(std::filesystem::exists(book));

  const std::string existing = dir.file("existing.book");
  REQUIRE(graphbook({"build", existing, pgn, "--quiet"}).status == 0);
  const std::string before = read_file(existing);
  const std::string other = dir.write("other.pgn", "[Result \"0-1\"]\n\n1. d4 d5 0-1\n");
  refused({"build", existing, other, missing}, missing);
  CHECK(read_file(existing) == before);
}
