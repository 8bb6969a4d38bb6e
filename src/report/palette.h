#pragma once
// The report's colors, one per thing shown, so that a bucket has the same
// color in the breakdown bars, the timeline, and the comparison.
//
// The iteration's buckets (TimeBreakdown::buckets()) and its interval kinds
// (IntervalKind) are listed in the same order, so bucket i is kind i:
//   forward, backward, optimizer, TP comm, CP comm, EP comm, DP comm, PP comm, bubble,
//   waiting.
// Compute is blue/green, communication warm, idle grey.

#include <string>
#include <vector>

#include "report/chart_parts.h"
#include "workload/iteration.h"

namespace anatomy::report {

inline constexpr int kIntervalKinds = 10;

const std::string& kind_color(workload::IntervalKind k);

// The iteration buckets as chart series: TimeBreakdown::buckets()'s names,
// in its order, each with its kind's color.
std::vector<Series> bucket_series();

// The interval kinds as chart series (timeline legend), named as in
// workload::to_string(IntervalKind).
std::vector<Series> kind_series();

// Memory per GPU: weights, gradients, optimizer, activations, workspace.
std::vector<Series> memory_series();

// Colors for compared scenarios and collective series, in order (cycled).
const std::string& series_color(size_t i);

}  // namespace anatomy::report
