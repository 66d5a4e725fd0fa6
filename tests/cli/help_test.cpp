// Every subcommand has --help with an example (the project's rules). The
// subcommands are read from `graphbook --help`, so a new one without an
// example fails here without anyone adding it to a list.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "run_graphbook.h"

namespace {

// The names listed under "Subcommands:" in `graphbook --help` (CLI11: two spaces, the name, the description).
std::vector<std::string> subcommands(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream in(help);
  bool listing = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:") {
      listing = true;
      continue;
    }
    if (!listing) continue;
    if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') break;
    names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

// The shared libraries the graphbook binary loads, as ldd lists them.
std::string graphbook_libraries() {
  gb::test::Run libs = gb::test::run_shell("ldd " + gb::test::quote(gb::test::graphbook_binary()));
  REQUIRE(libs.status == 0);
  REQUIRE(libs.out.find("libc.so") != std::string::npos);  // ldd listed the libraries
  return libs.out;
}

// The text from the line that starts "Example" ("Example:", "Examples:", "Example (...):") to the end.
std::string example_section(const std::string& help) {
  std::size_t at = help.rfind("\nExample");
  return at == std::string::npos ? "" : help.substr(at + 1);
}

}  // namespace

TEST_CASE("graphbook --help lists the subcommands and exits 0", "[cli]") {
  gb::test::Run r = gb::test::graphbook("--help");
  CHECK(r.status == 0);
  auto names = subcommands(r.out);
  INFO(r.out);
  // The README's table names these; the list read from the help must hold them.
  for (const char* name : {"perft", "pgn-check", "build", "info", "export", "import", "probe", "pick",
                           "learn", "tree", "match", "uci", "cql"})
    CHECK(std::count(names.begin(), names.end(), name) == 1);
}

TEST_CASE("Every subcommand's --help runs, exits 0 and shows an example of that subcommand", "[cli]") {
  auto names = subcommands(gb::test::graphbook("--help").out);
  REQUIRE(names.size() >= 13);  // the subcommands of the test above, at least
  for (const std::string& name : names) {
    INFO("graphbook " << name << " --help");
    gb::test::Run r = gb::test::graphbook(gb::test::quote(name) + " --help");
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("\nUsage: graphbook " + name + " ") != std::string::npos);
    std::string example = example_section(r.out);
    CHECK_FALSE(example.empty());
    // The example runs this subcommand: "graphbook NAME " on one of its lines.
    CHECK(example.find("graphbook " + name + " ") != std::string::npos);
  }
}

#ifdef GRAPHBOOK_LINK_STATIC
// GRAPHBOOK_STATIC (the default): libstdc++, zstd and xxhash are linked into
// graphbook, so that the loader does not map them at each start; LMDB stays
// a shared library, whose mapping the fault guard finds its code by
// (book/store/fault_guard.cpp; tests/store/damaged_book_test.cpp).
TEST_CASE("graphbook has libstdc++, zstd and xxhash in it and loads LMDB beside it", "[cli]") {
  const std::string libs = graphbook_libraries();
  INFO(libs);
  CHECK(libs.find("liblmdb") != std::string::npos);
  CHECK(libs.find("libstdc++") == std::string::npos);
  CHECK(libs.find("libzstd") == std::string::npos);
  CHECK(libs.find("libxxhash") == std::string::npos);
}
#endif

// serve runs in graphbook-serve beside graphbook, build --mpi in graphbook-mpi
// (cli/helper.h), so that no other subcommand loads cpp-httplib and the
// libraries it brings, or Open MPI. (tests/mpi runs build --mpi.)
TEST_CASE("graphbook loads no HTTP library, and serve runs graphbook-serve beside it", "[cli]") {
  const std::string libs = graphbook_libraries();
  CHECK(libs.find("httplib") == std::string::npos);
  CHECK(libs.find("libssl") == std::string::npos);
  CHECK(libs.find("libmpi") == std::string::npos);  // build --mpi runs in graphbook-mpi

  // graphbook alone, without graphbook-serve: serve names what is missing.
  gb::test::TempDir dir("graphbook-lone");
  const std::string lone = dir.file("graphbook");
  std::filesystem::copy_file(gb::test::graphbook_binary(), lone);
  std::filesystem::permissions(lone, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  gb::test::Run r = gb::test::run_shell(gb::test::quote(lone) + " serve nothing.book 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("cannot run " + dir.file("graphbook-serve")) != std::string::npos);
  // Beside it (the build's), serve is the same subcommand as before: its own errors.
  gb::test::Run beside = gb::test::graphbook("serve " + gb::test::quote(dir.file("nothing.book")), true);
  CHECK(beside.status == 2);
  CHECK(beside.out.find("no such book") != std::string::npos);
}
