// `graphbook import`: a Polyglot .bin into the book. A .bin holds keys, not
// positions: the positions are recovered by walking from the start position
// through the book's own moves; entries no walk reaches stay as key-only
// edges (EdgeFlags kEdgeKeyOnly) that a probe by key still finds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "book/store/book.h"
#include "builder/build_error.h"

namespace gb::builder {

struct ImportReport {
  std::uint64_t entries = 0;
  std::uint64_t positions_reached = 0;
  std::uint64_t edges_reached = 0;  // entries placed on a known position with a legal move
  std::uint64_t key_only = 0;       // entries kept by key only
  bool already_in_book = false;     // the same file was imported before: nothing added
};

[[nodiscard]] std::optional<ImportReport> import_polyglot(const std::string& book_path,
                                                          const std::string& bin_path, BuildError* error);

}  // namespace gb::builder
