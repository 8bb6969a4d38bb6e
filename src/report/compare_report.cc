#include <fmt/format.h>

#include <algorithm>

#include "report/compare.h"
#include "report/format.h"
#include "report/html_page.h"
#include "report/palette.h"
#include "report/stacked_bars.h"

namespace anatomy::report {
namespace {


Section breakdown(const std::vector<CompareRun>& runs) {
  StackedBarChart c;
  c.title = "where the time goes, side by side";
  c.series = bucket_series();
  c.unit = "ms";
  c.axis_caption = "mean GPU's time in one iteration (ms)";
  for (const auto& r : runs) {
    StackedBar b;
    b.label = r.label + ": " + r.info.title;
    for (auto [name, t] : r.result.mean.buckets()) b.values.push_back(t.millis());
    c.bars.push_back(std::move(b));
  }
  Section s;
  s.id = "time";
  s.title = "Where the time goes";
  s.intro_html =
      "<p>The mean GPU's iteration of each run, by bucket (the buckets add up to the iteration exactly). "
      "Hover over a segment for its value.</p>\n";
  s.body_html = draw_stacked_bars(c).str();
  return s;
}

Section side_by_side(const std::vector<CompareRun>& runs, const std::vector<CompareMetric>& metrics) {
  Table t;
  t.header = {"metric"};
  t.numeric = {false};
  for (size_t i = 0; i < runs.size(); ++i) {
    t.header.push_back(runs[i].label);
    t.numeric.push_back(true);
    if (i > 0) {
      t.header.push_back(runs[i].label + " − " + runs[0].label);
      t.header.push_back("%");
      t.numeric.push_back(true);
      t.numeric.push_back(true);
    }
  }
  for (const auto& m : metrics) {
    std::vector<std::string> row = {m.unit.empty() ? m.name : fmt::format("{} ({})", m.name, m.unit)};
    bool differs = false;
    for (size_t i = 0; i < m.values.size(); ++i) {
      row.push_back(fmt::format("{:.{}f}", m.values[i] * m.shown, m.decimals));
      if (i > 0) {
        differs = differs || m.diff(i) != 0;
        row.push_back(signed_fixed(m.diff(i) * m.shown, m.decimals));
        const auto pct = m.diff_pct(i);
        row.push_back(pct ? signed_fixed(*pct, 2) + "%" : "-");
      }
    }
    t.rows.push_back(std::move(row));
    t.row_class.push_back(differs ? "differs" : "");
  }
  Section s;
  s.id = "table";
  s.title = "Side by side";
  s.intro_html = fmt::format(
      "<p>Every figure of each run and its difference from {} (the baseline): absolute, in the figure's unit, "
      "and relative. Highlighted rows differ. Times are the mean GPU's.</p>\n",
      escape_html(runs.empty() ? "" : runs[0].label));
  s.body_html = html_table(t);
  return s;
}

Section inputs(const std::vector<CompareRun>& runs) {
  // Every input of any run, in the order first seen, with each run's value.
  struct Row {
    std::string section, field;
    bool names_run = false;
    std::vector<std::string> values;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const auto& in : runs[i].info.inputs) {
      auto it = std::find_if(rows.begin(), rows.end(),
                             [&](const Row& r) { return r.section == in.section && r.field == in.field; });
      if (it == rows.end()) {
        rows.push_back({in.section, in.field, in.names_run, std::vector<std::string>(runs.size(), "-")});
        it = rows.end() - 1;
      }
      it->values[i] = in.value;
    }
  // Sections stay together, in the order they first appear.
  std::vector<std::string> sections;
  for (const auto& r : rows)
    if (std::find(sections.begin(), sections.end(), r.section) == sections.end()) sections.push_back(r.section);
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    return std::find(sections.begin(), sections.end(), a.section) <
           std::find(sections.begin(), sections.end(), b.section);
  });
  Table t;
  t.header = {"input"};
  t.css_class = "kv";
  for (const auto& r : runs) t.header.push_back(r.label);
  std::string group;
  for (const auto& r : rows) {
    if (r.section != group) {
      group = r.section;
      t.rows.push_back(std::vector<std::string>(runs.size() + 1));
      t.rows.back()[0] = group;
      t.row_class.push_back("group");
    }
    std::vector<std::string> row = {r.field};
    row.insert(row.end(), r.values.begin(), r.values.end());
    const bool differs = !r.names_run && std::any_of(r.values.begin(), r.values.end(),
                                                     [&](const std::string& v) { return v != r.values[0]; });
    t.rows.push_back(std::move(row));
    t.row_class.push_back(differs ? "differs" : "");
  }
  Section s;
  s.id = "inputs";
  s.title = "Inputs";
  s.intro_html = "<p>Each run's inputs; highlighted rows are where the runs differ.</p>\n";
  s.body_html = html_table(t);
  return s;
}

}  // namespace

std::string compare_report_html(const std::vector<CompareRun>& runs, const std::vector<CompareMetric>& metrics) {
  std::string title = "anatomy compare:";
  for (size_t i = 0; i < runs.size(); ++i) title += (i ? " vs " : " ") + runs[i].label;
  HtmlPage page(title);
  for (const auto& r : runs)
    page.add_fact(r.label, r.info.title + (r.info.source.empty() ? "" : " (" + r.info.source + ")"));
  for (const auto& [key, v] : differing_inputs(runs)) {
    std::string text;
    for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + runs[i].label + " " + (v[i].empty() ? "-" : v[i]);
    page.add_fact("differs: " + key, text);
  }
  for (const auto& r : runs)
    page.add_figure(r.label + ": iteration time", human_time(r.result.iteration),
                    fmt::format("MFU {}", percent(r.result.mfu)));
  page.add_section(breakdown(runs));
  page.add_section(side_by_side(runs, metrics));
  page.add_section(inputs(runs));
  return page.str();
}

}  // namespace anatomy::report
