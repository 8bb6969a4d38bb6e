#include "report/palette.h"

#include <array>

namespace anatomy::report {
namespace {

// Tableau 10 and its light variants, ordered as IntervalKind.
const std::array<std::string, kIntervalKinds> kKindColors = {
    "#4e79a7",  // forward compute
    "#a0cbe8",  // backward compute
    "#59a14f",  // optimizer
    "#f28e2b",  // TP comm
    "#edc948",  // CP comm
    "#ff9da7",  // EP comm
    "#e15759",  // DP comm
    "#b07aa1",  // PP comm
    "#9d9d9d",  // pipeline bubble
    "#d7d7d7",  // waiting on others
};

const std::array<std::string, 10> kSeriesColors = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                                                   "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"};

}  // namespace

const std::string& kind_color(workload::IntervalKind k) { return kKindColors[static_cast<size_t>(k)]; }

std::vector<Series> bucket_series() {
  std::vector<Series> out;
  const auto buckets = workload::TimeBreakdown{}.buckets();
  for (size_t i = 0; i < buckets.size(); ++i) out.push_back({buckets[i].first, kKindColors[i % kKindColors.size()]});
  return out;
}

std::vector<Series> kind_series() {
  std::vector<Series> out;
  for (int i = 0; i < kIntervalKinds; ++i) {
    const auto k = static_cast<workload::IntervalKind>(i);
    out.push_back({workload::to_string(k), kind_color(k)});
  }
  return out;
}

std::vector<Series> memory_series() {
  return {{"weights", "#4e79a7"},
          {"gradients", "#f28e2b"},
          {"optimizer state", "#59a14f"},
          {"activations", "#edc948"},
          {"workspace", "#bab0ac"}};
}

const std::string& series_color(size_t i) { return kSeriesColors[i % kSeriesColors.size()]; }

}  // namespace anatomy::report
