// CSV of the iteration: exact seconds that add up per stage, one row per
// representative GPU, one per interval.

#include "report/csv.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.h"

namespace anatomy::report {
namespace {

std::vector<std::vector<std::string>> rows_of(const std::string& csv) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line);
    while (std::getline(l, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    out.push_back(cells);
  }
  return out;
}

// "0.000010000001" -> 10000001 (ps), exactly.
int64_t ps_of(const std::string& seconds) {
  const size_t dot = seconds.find('.');
  return std::stoll(seconds.substr(0, dot)) * 1'000'000'000'000 + std::stoll(seconds.substr(dot + 1));
}

TEST(BreakdownCsv, EachStagesBucketsAddUpToTheIteration) {
  const auto rows = rows_of(breakdown_csv(testing::two_stage_result(), testing::kTwoStageGpus));
  ASSERT_EQ(rows[0], (std::vector<std::string>{"stage", "gpu", "bucket", "seconds", "percent"}));
  std::map<std::string, int64_t> total;
  for (size_t i = 1; i < rows.size(); ++i) total[rows[i][0]] += ps_of(rows[i][3]);
  EXPECT_EQ(total["0"], 80'000'007);
  EXPECT_EQ(total["1"], 80'000'007);
  EXPECT_EQ(rows.size(), 1u + 3 * 10);  // mean + 2 stages, 10 buckets each
}

TEST(BreakdownCsv, NamesTheStagesGpu) {
  const auto rows = rows_of(breakdown_csv(testing::two_stage_result(), testing::kTwoStageGpus));
  EXPECT_EQ(rows[1][0], "mean");
  EXPECT_EQ(rows.back()[0], "1");
  EXPECT_EQ(rows.back()[1], "16");
}

TEST(PerRankCsv, HasOneRowPerRepresentativeGpu) {
  const auto rows = rows_of(per_rank_csv(testing::two_stage_result(), testing::kTwoStageGpus));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][2], "iteration_s");
  EXPECT_EQ(rows[0][3], "forward_compute_s");
  EXPECT_EQ(rows[2][1], "16");
  EXPECT_EQ(rows[2][2], "0.000080000007");
}

TEST(TimelineCsv, HasOneRowPerInterval) {
  const auto r = testing::two_stage_result();
  const auto rows = rows_of(timeline_csv(r, testing::kTwoStageGpus));
  EXPECT_EQ(rows.size(), 1 + r.timeline[0].size() + r.timeline[1].size());
  EXPECT_EQ(rows[1], (std::vector<std::string>{"0", "0", "forward", "0.000000000000", "0.000010000001",
                                               "0.000010000001", "0", "0"}));
}

TEST(CsvField, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_field("ring"), "ring");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

}  // namespace
}  // namespace anatomy::report
