// `graphbook check BOOK`: walks every page and every record of a book and
// names what is damaged (docs/FORMAT.md, "Damage").
//
// First every page, read from the file without LMDB (store/page_check.h);
// only when the pages are sound, every record through LMDB, each value
// decoded with the store's own decoders and its counters checked where the
// format says they must agree.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "book/store/page_check.h"

namespace gb::builder {

struct BookCheck {
  std::string path;
  store::PageReport pages;
  std::map<std::string, std::uint64_t> records;  // records read per database
  std::vector<store::Damage> damage;             // pages' and records' findings; empty: sound
  std::string refused;                           // why the file is not a book at all ("" when it is one)
  bool sound() const { return refused.empty() && damage.empty(); }
};

[[nodiscard]] BookCheck check_book(const std::string& path);

nlohmann::json to_json(const BookCheck& check);
std::string to_text(const BookCheck& check);

// Registers `graphbook check` (exit 0: sound; 2: not a book; 3: damaged).
void add_check_command(CLI::App& app, int& exit_status);

}  // namespace gb::builder
