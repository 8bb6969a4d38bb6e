// The HTML report: one self-contained page with every section, in order.

#include <gtest/gtest.h>

#include "coll/collective.h"
#include "fixtures.h"
#include "report/collective_report.h"
#include "report/html_page.h"
#include "report/run_report.h"

namespace anatomy::report {
namespace {

PageInfo info() {
  PageInfo i;
  i.title = "two stages <test>";
  i.source = "fixture.yaml";
  i.facts = {{"model", "tiny"}};
  i.inputs = {{"parallelism", "pp", "2"}, {"training", "global_batch", "4"}};
  return i;
}

std::string run_page() {
  return run_report_html(testing::two_stage_result(), info(), {0, 16}, core::Bytes(80'000'000'000));
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

void expect_self_contained(const std::string& html) {
  for (const char* outside : {"http:", "https:", "<script", "<link", "src=", "url(", "@import", "<img", "<iframe"})
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
}

TEST(RunReport, IsSelfContained) { expect_self_contained(run_page()); }

TEST(RunReport, HasEverySectionInOrder) {
  const std::string html = run_page();
  size_t at = 0;
  for (const char* id : {"id=\"time\"", "id=\"timeline\"", "id=\"links\"", "id=\"memory\"", "id=\"inputs\""}) {
    const size_t found = html.find(id, at);
    ASSERT_NE(found, std::string::npos) << id;
    at = found;
  }
}

TEST(RunReport, DrawsFourCharts) {
  // Breakdown, timeline, links, memory.
  EXPECT_EQ(count(run_page(), "<svg class=\"chart\""), 4u);
}

TEST(RunReport, NamesEachStageByItsGpu) { EXPECT_NE(run_page().find("stage 1 · GPU 16"), std::string::npos); }

TEST(RunReport, SaysTpCollectivesAreNotInLinkLoads) {
  EXPECT_NE(run_page().find("do <em>not</em> appear in these link loads"), std::string::npos);
}

TEST(RunReport, EscapesTheTitle) { EXPECT_NE(run_page().find("two stages &lt;test&gt;"), std::string::npos); }

TEST(RunReport, SameResultSameBytes) { EXPECT_EQ(run_page(), run_page()); }

TEST(HtmlPage, ASectionAddedLaterJoinsTheContentsAndThePage) {
  HtmlPage page("p");
  page.add_section({"time", "Where the time goes", "", "<p>a</p>"});
  page.add_section({"goodput", "Goodput and dollars", "<p>b</p>", ""});
  const std::string html = page.str();
  EXPECT_NE(html.find("<a href=\"#goodput\">Goodput and dollars</a>"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"goodput\">"), std::string::npos);
}

TEST(HtmlTable, RightAlignsNumericColumnsAndEscapesCells) {
  Table t;
  t.header = {"k", "v"};
  t.numeric = {false, true};
  t.rows = {{"a<b", "1"}};
  const std::string html = html_table(t);
  EXPECT_NE(html.find("<td>a&lt;b</td><td class=\"num\">1</td>"), std::string::npos);
}

TEST(CollectiveReport, IsSelfContainedWithBothCharts) {
  std::vector<coll::CollectiveResult> rows(3);
  for (int i = 0; i < 3; ++i) {
    rows[i].bytes = core::Bytes(int64_t{1} << (20 + 3 * i));
    rows[i].time = core::SimTime::us(30 * (i + 1));
    rows[i].busbw_GBps = 100.0 * (i + 1);
    rows[i].algorithm = "ring";
    rows[i].protocol = "Simple";
  }
  const std::string html = collective_report_html(rows, info());
  expect_self_contained(html);
  EXPECT_EQ(count(html, "<svg class=\"chart\""), 2u);
  EXPECT_NE(html.find("id=\"inputs\""), std::string::npos);
}

}  // namespace
}  // namespace anatomy::report
