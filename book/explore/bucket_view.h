// A position's report seen through a bucket filter (--ratings, --speeds,
// --since, --until): the counts summed over the selected buckets of the
// book's buckets database instead of the totals (book/store/buckets.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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

}  // namespace gb::explore
