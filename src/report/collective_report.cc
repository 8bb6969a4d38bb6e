#include "report/collective_report.h"

#include <fmt/format.h>

#include "core/units.h"
#include "report/html_page.h"
#include "report/palette.h"
#include "report/sections.h"
#include "report/xy_chart.h"

namespace anatomy::report {
namespace {

// "1K", "64M", "8G": binary sizes as nccl-tests' flags take them.
std::string size_label(double bytes) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (bytes >= 1024 && i < 5) {
    bytes /= 1024;
    ++i;
  }
  return fmt::format("{:g}{}", bytes, kSuffix[i]);
}

std::string time_label(double us) {
  if (us >= 1e6) return fmt::format("{:g} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:g} ms", us / 1e3);
  if (us >= 1) return fmt::format("{:g} us", us);
  return fmt::format("{:g} ns", us * 1e3);
}

Section charts_section(const std::vector<coll::CollectiveResult>& rows) {
  const std::string op = rows.empty() ? "collective" : coll::to_string(rows.front().op);
  XyChart time;
  time.title = "collective time by message size";
  time.series = {{op, series_color(0)}};
  time.log_x = time.log_y = true;
  time.x_label = size_label;
  time.y_label = time_label;
  time.x_caption = "message size (bytes)";
  time.y_caption = "time per collective";
  XyChart bw = time;
  bw.title = "bus bandwidth by message size";
  bw.series = {{op, series_color(1)}};
  bw.log_y = false;
  bw.y_label = nullptr;
  bw.y_caption = "bus bandwidth (GB/s)";
  time.points.resize(1);
  bw.points.resize(1);
  time.tooltips.resize(1);
  bw.tooltips.resize(1);
  for (const auto& r : rows) {
    const double b = r.bytes.as_double();
    const std::string tip = fmt::format("{} B: {:.2f} us, algbw {:.2f} GB/s, busbw {:.2f} GB/s, {}/{}", r.bytes.count(),
                                        r.time.micros(), r.algbw_GBps, r.busbw_GBps, r.algorithm, r.protocol);
    time.points[0].push_back({b, r.time.micros()});
    bw.points[0].push_back({b, r.busbw_GBps});
    time.tooltips[0].push_back(tip);
    bw.tooltips[0].push_back(tip);
  }
  Table t;
  t.header = {"size (B)", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "algorithm"};
  t.numeric = {true, true, true, true, false};
  for (const auto& r : rows)
    t.rows.push_back({fmt::format("{}", r.bytes.count()), fmt::format("{:.2f}", r.time.micros()),
                      fmt::format("{:.2f}", r.algbw_GBps), fmt::format("{:.2f}", r.busbw_GBps),
                      r.algorithm + "/" + r.protocol});
  Section s;
  s.id = "sizes";
  s.title = "Collective time by size";
  s.intro_html =
      "<p>Time of one collective and its bus bandwidth (nccl-tests' busbw: algorithm bandwidth times the "
      "operation's bus factor) for each message size, with the algorithm and protocol that ran (with "
      "<code>--algo auto</code>, the fastest of those NCCL would consider). Both axes of the time chart are "
      "logarithmic.</p>\n";
  s.body_html = "<div style=\"display:flex;flex-wrap:wrap;gap:8px\">" + draw_xy(time).str() + draw_xy(bw).str() +
                "</div>\n" + html_table(t);
  return s;
}

}  // namespace

std::string collective_report_html(const std::vector<coll::CollectiveResult>& rows, const PageInfo& info) {
  HtmlPage page(info.title);
  if (!info.source.empty()) page.add_fact("command", info.source);
  for (const auto& [label, value] : info.facts) page.add_fact(label, value);
  if (!rows.empty()) {
    double peak = 0;
    for (const auto& r : rows) peak = std::max(peak, r.busbw_GBps);
    page.add_figure("sizes", fmt::format("{}", rows.size()),
                    fmt::format("{} B to {} B", rows.front().bytes.count(), rows.back().bytes.count()));
    page.add_figure("peak bus bandwidth", fmt::format("{:.1f} GB/s", peak));
    page.add_figure("largest size", fmt::format("{:.2f} us", rows.back().time.micros()),
                    rows.back().algorithm + "/" + rows.back().protocol);
  }
  page.add_section(charts_section(rows));
  page.add_section(inputs_section(info.inputs));
  return page.str();
}

}  // namespace anatomy::report
