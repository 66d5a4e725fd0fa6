// Reference Polyglot books, written by Debian's `polyglot make-book`
// (scripts/setup.sh installs it) from the test data in the test itself,
// rather than shipped: the expected side of the export and import tests.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "test_data.h"

namespace gb::test {

// The book `make-book -pgn PGN -bin OUT OPTIONS` writes from data_path(pgn),
// made once per test process; a .pgn.zst is decompressed by zstd first
// (make-book reads plain PGN only). "" after printing why when make-book
// failed or wrote no entry, so that no test compares against an empty book.
inline std::string make_book_reference(const std::string& pgn, const std::vector<std::string>& options) {
  static TempDir dir("graphbook-reference");
  static std::map<std::string, std::string> made;
  std::string id = pgn;
  for (const std::string& o : options) id += " " + o;
  if (auto it = made.find(id); it != made.end()) return it->second;

  const std::string n = std::to_string(made.size());
  std::string input = data_path(pgn);
  if (input.ends_with(".zst")) {
    const std::string plain = dir.file("games" + n + ".pgn");
    if (std::system(("zstd -q -dc '" + input + "' > '" + plain + "'").c_str()) != 0) {
      std::fprintf(stderr, "zstd could not decompress %s\n", input.c_str());
      return made[id] = "";
    }
    input = plain;
  }
  const std::string bin = dir.file("reference" + n + ".bin"), log = dir.file("make-book" + n + ".log");
  std::string command = "/usr/games/polyglot make-book -pgn '" + input + "' -bin '" + bin + "'";
  for (const std::string& o : options) command += " " + o;
  const int status = std::system((command + " > '" + log + "' 2>&1").c_str());
  std::error_code ec;
  if (status != 0 || std::filesystem::file_size(bin, ec) == 0) {
    std::fprintf(stderr, "%s: exit status %d, no entries:\n%s\n", command.c_str(), status,
                 read_file(log).c_str());
    return made[id] = "";
  }
  return made[id] = bin;
}

// The reference books by the names the shared data's README gives them
// (make-book's options in the name; "default" is -max-ply 1024 -min-game 3),
// made from the same games; the TCEC ones from the cut the test data holds
// (every 8th game, tests/data/SOURCES.md).
inline std::string reference_book(const std::string& name) {
  static const std::map<std::string, std::pair<std::string, std::vector<std::string>>> kBooks = {
      {"ref-twic0920-ply16-min1.bin", {"pgn/small/twic0920.pgn", {"-max-ply", "16", "-min-game", "1"}}},
      {"ref-twic0920-default.bin", {"pgn/small/twic0920.pgn", {}}},
      {"ref-tcec-every8th-ply20-min1.bin",
       {"pgn/small/tcec-standard-nocomments-every8th.pgn.zst", {"-max-ply", "20", "-min-game", "1"}}},
      {"ref-tcec-every8th-ply40-min3.bin",
       {"pgn/small/tcec-standard-nocomments-every8th.pgn.zst", {"-max-ply", "40", "-min-game", "3"}}},
  };
  auto it = kBooks.find(name);
  if (it == kBooks.end()) {
    std::fprintf(stderr, "no reference book is called %s\n", name.c_str());
    return "";
  }
  return make_book_reference(it->second.first, it->second.second);
}

}  // namespace gb::test
