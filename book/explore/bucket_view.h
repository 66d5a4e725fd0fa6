// A position's report seen through a bucket filter (--ratings, --speeds,
// --since, --until): the counts summed over the selected buckets of the
// book's buckets database instead of the totals (book/store/buckets.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/explore/book_reader.h"
#include "book/explore/position_report.h"
#include "book/store/buckets.h"

namespace gb::explore {

using store::counters_of;  // the source counters of a sum

// Replaces the report's counters by the sums of the selected buckets: the
// node's, each move's and each resulting position's; moves no selected game
// played are dropped (imported moves have no buckets), the rest ordered as
// make_report orders them, ties by the first play among the selected games.
// The book must have buckets (store::filter_refusal).
[[nodiscard]] store::Status filter_report(BookReader& reader, PositionReport& report,
                                          const store::BucketFilter& filter);

// A node record seen through a filter, from the key's bucket entries:
// counters and min_ply the selected sums; nullopt when no selected game
// reached the position.
std::optional<store::NodeRecord> filter_node(const std::vector<store::BucketEntry>& entries,
                                             const store::NodeRecord& node, const store::BucketFilter& filter,
                                             bool by_month);
// An edge record seen through a filter: counters, occurrences, score and
// min_ply the selected sums (polyglot_rank as it was: filter_section ranks
// a whole position's); nullopt when no selected game played the move (an
// imported move, without buckets, never is). first_play, when given, is set
// to the selected first play's stamp.
std::optional<store::EdgeRecord> filter_edge(const std::vector<store::BucketEntry>& entries,
                                             std::uint16_t move, const store::EdgeRecord& edge,
                                             const store::BucketFilter& filter, bool by_month,
                                             std::uint64_t* first_play = nullptr);
// A position's section (a value of the positions database) seen through a
// filter, into out: its node and edges by filter_node and filter_edge, the
// edges' polyglot_rank the order of their first plays among the selected
// games. False (out empty) when no selected game reached the position, or
// the section does not decode.
bool filter_section(std::string_view section, const std::vector<store::BucketEntry>& entries,
                    const store::BucketFilter& filter, bool by_month, std::string& out);

}  // namespace gb::explore
