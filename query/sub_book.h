// `graphbook query --book OUT`: the matching nodes of a query as a book of
// their own, with the edges between them (an edge to a node that did not
// match is left out) and their learning counters. Written as a build writes
// a new book: in a file beside OUT, renamed over it at the end, so that OUT
// is the whole sub-book or what it was before.
#pragma once

#include <optional>
#include <string>
#include <unordered_set>

#include "book/store/book.h"
#include "book/store/buckets.h"
#include "query/query_error.h"

namespace gb::query {

struct SubBookReport {
  std::uint64_t nodes = 0, edges = 0;
};

// nullopt with error (naming the file) when the book cannot be read or OUT
// cannot be written. With a filter (the book has buckets) each node and edge
// is written as explore::filter_section sees it: the selected games' counts,
// the moves none of them played left out (the sub-book itself has no buckets).
[[nodiscard]] std::optional<SubBookReport> write_sub_book(store::Book& book,
                                                          const std::unordered_set<Key>& nodes,
                                                          const std::string& out_path, QueryError* error,
                                                          const store::BucketFilter* filter = nullptr);

}  // namespace gb::query
