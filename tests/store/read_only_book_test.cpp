// Books in folders their reader cannot write to: LMDB would make its lock
// file beside the book, so graphbook reads them without it. The tests run as
// root, whom permission bits do not stop, so the folder is made read-only
// for real: the reader runs as user nobody (setpriv), or the folder is made
// immutable (chattr +i), which stops root too.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "run_graphbook.h"
#include "temp_dir.h"

using gb::test::graphbook;
using gb::test::quote;
using gb::test::read_file;
using gb::test::Run;
using gb::test::run_shell;
using gb::test::TempDir;

namespace {

// Three games from the start position, one of each result.
const char* kGames =
    "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n"
    "[Event \"b\"]\n[Result \"0-1\"]\n\n1. e4 c5 2. Nf3 d6 0-1\n\n"
    "[Event \"c\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 1/2-1/2\n";

// Runs a shell command; its exit status (-1 when it did not exit).
int shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The book built in a folder that others may enter; nothing but the book in it.
std::string build_book(const TempDir& dir) {
  std::filesystem::create_directory(dir.file("shelf"));
  const std::string book = dir.file("shelf/games.book");
  Run r = graphbook("build " + quote(book) + " " + quote(dir.write("games.pgn", kGames)) + " --quiet");
  REQUIRE(r.status == 0);
  std::filesystem::remove(book + "-lock");
  return book;
}

// The start position's games as `probe --json` reports them: the three games.
void require_probe_counts(const Run& probe) {
  INFO("probe: " << probe.out << probe.err);
  REQUIRE(probe.status == 0);
  auto j = nlohmann::json::parse(probe.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j.value("games", 0) == 3);
  CHECK(j.value("white", 0) == 1);
  CHECK(j.value("black", 0) == 1);
  CHECK(j.value("draws", 0) == 1);
}

}  // namespace

TEST_CASE("A book in a folder its reader cannot write to opens for reading, without a lock file", "[store]") {
  if (shell("setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null") != 0) {
    WARN("SKIPPED: setpriv cannot run a command as user nobody here");
    return;
  }
  TempDir dir;
  const std::string book = build_book(dir);
  // nobody may enter the folders and read the book, not write beside it.
  REQUIRE(shell("chmod 0755 " + quote(dir.path) + " " + quote(dir.file("shelf")) + " && chmod 0644 " +
                quote(book)) == 0);
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  REQUIRE(shell(as_nobody + "touch " + quote(dir.file("shelf/x")) + " 2>/dev/null") !=
          0);  // it is read-only to nobody

  const std::string before = read_file(book);
  const std::string probe =
      "'" + gb::test::graphbook_binary() + "' probe " + quote(book) + " --json --no-names";
  SECTION("without a lock file beside it") {
    // graphbook() runs as root; run the binary as nobody through the shell.
    Run r = run_shell(as_nobody + probe + " 2>&1");
    require_probe_counts(r);
    CHECK_FALSE(std::filesystem::exists(book + "-lock"));
  }
  SECTION("with a lock file nobody may not write") {
    REQUIRE(graphbook("info " + quote(book)).status == 0);  // root leaves the lock file, 0644
    REQUIRE(std::filesystem::exists(book + "-lock"));
    Run r = run_shell(as_nobody + probe + " 2>&1");
    require_probe_counts(r);
  }
  CHECK(read_file(book) == before);
}

TEST_CASE("A book in an immutable folder opens for reading, even for root", "[store]") {
  TempDir dir;
  const std::string book = build_book(dir);
  const std::string shelf = dir.file("shelf");
  if (shell("chattr +i " + quote(shelf) + " 2>/dev/null") != 0) {
    WARN("SKIPPED: chattr +i is not supported on " << shelf);
    return;
  }
  struct Mutable {  // the folder is removed with the test's temporary folder
    std::string path;
    ~Mutable() { std::system(("chattr -i '" + path + "'").c_str()); }
  } restore{shelf};
  REQUIRE(shell("touch " + quote(shelf + "/x") + " 2>/dev/null") != 0);  // root cannot write there now

  const std::string before = read_file(book);
  require_probe_counts(graphbook("probe " + quote(book) + " --json --no-names"));
  Run info = graphbook("info " + quote(book) + " --json");
  INFO(info.err);
  CHECK(info.status == 0);
  Run check = graphbook("check " + quote(book));
  CHECK(check.status == 0);
  CHECK_FALSE(std::filesystem::exists(book + "-lock"));
  CHECK(read_file(book) == before);
  // A write still needs the lock: it fails with a message, not a crash.
  Run build =
      graphbook("build " + quote(book) + " " + quote(dir.write("more.pgn", kGames)) + " --quiet --no-dedup");
  CHECK(build.status > 0);
  CHECK(build.status < 128);
  CHECK(read_file(book) == before);
}
