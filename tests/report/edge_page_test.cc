#include "report/edge_page.h"

#include <gtest/gtest.h>

namespace anatomy::report {
namespace {

using core::SimTime;

TEST(EdgePage, TheReportHasTheHeadlineFiguresAndASectionPerPart) {
  // A naive site's 2.5 s gap shows as a headline figure, its failed cycle
  // in the cycles table, and an end-to-end p99 over the 100 ms budget as a
  // warning.
  scenario::Scenario s;
  s.name = "line";
  s.edge = job::edge::EdgeSpec{};
  job::edge::EdgeResult r;
  job::edge::CycleResult c;
  c.failed = true;
  r.cycles.push_back(c);
  r.coverage_gap = SimTime::ms(2500);
  r.end_to_end.p99_ps = SimTime::ms(120).count_ps();
  const workload::EdgeModel m = workload::find_edge_model("resnet-50", 0);
  const std::string html = edge_html(s, r, {&m, "8 GPUs", "roofline", "RCCL"});
  EXPECT_NE(html.find("2.500 s"), std::string::npos);
  EXPECT_NE(html.find("failed in production, rolled back"), std::string::npos);
  EXPECT_NE(html.find("over the decision budget"), std::string::npos);
  for (const char* id : {"id=\"cycles\"", "id=\"tiers\"", "id=\"accelerators\"", "id=\"registry\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
}

}  // namespace
}  // namespace anatomy::report
