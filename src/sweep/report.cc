#include "sweep/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "report/format.h"
#include "report/html_page.h"
#include "report/palette.h"
#include "report/xy_chart.h"
#include "sweep/expression.h"

namespace anatomy::sweep {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kMaxTableRows = 5000;  // past this the page is too heavy to scroll; the CSV has them all

std::optional<double> number_of(const Json& row, const std::string& column) {
  if (!row.contains(column)) return std::nullopt;
  const Json& v = row[column];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const ExprValue e = scalar_value(v.get<std::string>());
    if (!e.is_text) return e.number;
  }
  return std::nullopt;
}

std::string cell_text(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return v.dump();
}

std::string short_number(double v) { return fmt::format("{:.4g}", v); }

// The values of one axis in the order the points first give them.
std::vector<std::string> axis_values(const Table& t, const std::string& axis) {
  std::vector<std::string> out;
  for (const Json& r : t.rows) {
    const std::string v = cell_text(r[axis]);
    if (!v.empty() && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

std::string goal_text(bool max) { return max ? "higher is better" : "lower is better"; }

report::Section pareto_section(const Table& t, const std::vector<size_t>& front) {
  const Pareto& p = t.info.pareto;
  report::XyChart c;
  c.title = fmt::format("Pareto front: {} against {}", p.y, p.x);
  c.series = {{"every point", "#9aa5b1"}, {"Pareto front", "#e15759"}};
  c.points.resize(2);
  c.tooltips.resize(2);
  c.markers_only = {true, false};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto x = number_of(t.rows[i], p.x), y = number_of(t.rows[i], p.y);
    if (!x || !y) continue;
    c.points[0].emplace_back(*x, *y);
    c.tooltips[0].push_back(fmt::format("#{} {}: {} = {}, {} = {}", t.rows[i]["index"].dump(), t.keys[i], p.x,
                                        short_number(*x), p.y, short_number(*y)));
  }
  for (size_t i : front) {
    c.points[1].emplace_back(*number_of(t.rows[i], p.x), *number_of(t.rows[i], p.y));
    c.tooltips[1].push_back(fmt::format("#{} on the front: {}", t.rows[i]["index"].dump(), t.keys[i]));
  }
  c.x_caption = fmt::format("{} ({})", p.x, goal_text(p.x_max));
  c.y_caption = fmt::format("{} ({})", p.y, goal_text(p.y_max));
  c.width = 1120;
  c.height = 420;
  std::string intro = fmt::format(
      "<p>Every point that ran, {} against {}; the red line joins the {} points no other point beats on both "
      "(as good on one and better on the other). Hover a dot for its values.</p>",
      report::escape_html(p.y), report::escape_html(p.x), front.size());
  report::Table table;
  table.header = {"index"};
  for (const std::string& in : t.inputs) table.header.push_back(in);
  table.header.push_back(p.x);
  table.header.push_back(p.y);
  table.numeric.assign(table.header.size(), false);
  table.numeric[0] = table.numeric[table.header.size() - 1] = table.numeric[table.header.size() - 2] = true;
  for (size_t i : front) {
    std::vector<std::string> row = {cell_text(t.rows[i]["index"])};
    for (const std::string& in : t.inputs) row.push_back(cell_text(t.rows[i][in]));
    row.push_back(short_number(*number_of(t.rows[i], p.x)));
    row.push_back(short_number(*number_of(t.rows[i], p.y)));
    table.rows.push_back(std::move(row));
  }
  table.caption = "the points on the front, by " + p.x;
  const std::string body = c.points[0].empty() ? "<p>No point has both values.</p>"
                                               : report::draw_xy(c).str() + report::html_table(table);
  return {"pareto", "Pareto front", intro, body};
}

report::Section axis_section(const Table& t, const std::string& axis, size_t n) {
  const Pareto& p = t.info.pareto;
  std::vector<std::string> values = axis_values(t, axis);
  // Plain numbers on a numeric axis; quantities ("800Gbps") in value order
  // but evenly spaced and labelled as written; text in first-seen order.
  bool numeric = true, plain = true;
  std::vector<double> xs;
  for (const std::string& v : values) {
    const ExprValue e = scalar_value(v);
    numeric = numeric && !e.is_text;
    char* end = nullptr;
    std::strtod(v.c_str(), &end);
    plain = plain && end && *end == '\0';
    xs.push_back(e.number);
  }
  if (numeric) {  // in value order, not first-seen order
    std::vector<size_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
    std::vector<std::string> v2;
    std::vector<double> x2;
    for (size_t i : order) v2.push_back(values[i]), x2.push_back(xs[i]);
    values = v2;
    xs = x2;
  }
  if (!numeric || !plain) {
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i + 1);
    numeric = false;
  }
  report::XyChart c;
  c.title = fmt::format("{} by {}", p.y, axis);
  c.series = {{p.y_max ? "best (highest)" : "best (lowest)", report::series_color(0)},
              {"mean over the other axes", report::series_color(1)}};
  c.points.resize(2);
  c.tooltips.resize(2);
  for (size_t k = 0; k < values.size(); ++k) {
    double best = p.y_max ? -INFINITY : INFINITY, sum = 0;
    int count = 0;
    for (const Json& r : t.rows) {
      if (cell_text(r[axis]) != values[k]) continue;
      const auto y = number_of(r, p.y);
      if (!y) continue;
      best = p.y_max ? std::max(best, *y) : std::min(best, *y);
      sum += *y;
      ++count;
    }
    if (count == 0) continue;
    c.points[0].emplace_back(xs[k], best);
    c.points[1].emplace_back(xs[k], sum / count);
    c.tooltips[0].push_back(fmt::format("{} = {}: best {} over {} points", axis, values[k], short_number(best), count));
    c.tooltips[1].push_back(fmt::format("{} = {}: mean {}", axis, values[k], short_number(sum / count)));
  }
  const bool log_x = numeric && !xs.empty() && xs.front() > 0 && xs.back() / xs.front() >= 16;
  c.log_x = log_x;
  if (!numeric || log_x) {
    // Label the ticks with the values as written (a log axis' ticks are powers of two).
    std::map<double, std::string> names;
    for (size_t k = 0; k < values.size(); ++k) names[xs[k]] = values[k];
    c.x_label = [names, log_x](double v) {
      if (const auto it = names.find(v); it != names.end()) return it->second;
      return log_x ? short_number(v) : std::string();
    };
  }
  c.x_caption = axis;
  c.y_caption = fmt::format("{} ({})", p.y, goal_text(p.y_max));
  c.width = 550;
  c.height = 300;
  const std::string intro =
      n == 0 ? fmt::format("<p>Each axis' effect on {}: at each of its values, the best and the mean over every "
                           "point with that value.</p>",
                           report::escape_html(p.y))
             : "";
  const std::string body = c.points[0].empty() ? fmt::format("<p>{}: no point ran.</p>", report::escape_html(axis))
                                               : report::draw_xy(c).str();
  return {fmt::format("axis-{}", n), "Effect of " + axis, intro, body};
}

report::Section failures_section(const Table& t) {
  std::map<std::string, std::vector<std::string>> by_error;
  for (const Json& r : t.rows)
    if (r["status"] == "failed") by_error[cell_text(r["error"])].push_back(cell_text(r["index"]));
  report::Table table;
  table.header = {"points", "error"};
  table.numeric = {true, false};
  for (const auto& [error, ids] : by_error) {
    std::string list = ids.size() <= 8 ? fmt::format("{}", fmt::join(ids, ", "))
                                       : fmt::format("{} ({}, ...)", ids.size(), fmt::join(ids.begin(), ids.begin() + 5, ", "));
    table.rows.push_back({list, error});
  }
  return {"failed", "Points that failed",
          "<p>Points the model refused (a plan that does not fit, a size that does not divide), with the error each "
          "stored, by error.</p>",
          report::html_table(table)};
}

// A table sorted by a click on a column's arrow, without a script: one
// hidden radio button per column and direction; the checked one sets every
// row's CSS order to its precomputed rank in that column.
report::Section table_section(const Table& t, const std::vector<size_t>& front) {
  std::vector<std::string> cols = {"index", "status"};
  for (const std::string& in : t.inputs) cols.push_back(in);
  for (const std::string& m : t.info.metrics) cols.push_back(m);
  for (const char* k : {"iteration_s", "tokens_per_s", "mfu", "ettr", "time_us", "busbw_GBps", "error"})
    if (std::find(cols.begin(), cols.end(), k) == cols.end() &&
        std::find(t.columns.begin(), t.columns.end(), k) != t.columns.end())
      cols.push_back(k);
  for (const std::string& extra : {t.info.pareto.x, t.info.pareto.y})
    if (std::find(cols.begin(), cols.end(), extra) == cols.end() &&
        std::find(t.columns.begin(), t.columns.end(), extra) != t.columns.end())
      cols.insert(cols.end() - (cols.back() == "error" ? 1 : 0), extra);
  const size_t n = std::min(t.rows.size(), kMaxTableRows);
  std::vector<bool> on_front(t.rows.size(), false);
  for (size_t i : front) on_front[i] = true;

  // rank[c][i]: row i's place when sorted by column c (numbers before
  // text, empty last, ties by index).
  std::vector<std::vector<size_t>> rank(cols.size(), std::vector<size_t>(n));
  for (size_t c = 0; c < cols.size(); ++c) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto key = [&](size_t i) {
      const Json& v = t.rows[i][cols[c]];
      const auto num = v.is_string() && cols[c] != "status" && cols[c] != "error" ? number_of(t.rows[i], cols[c])
                       : v.is_number()                                         ? std::optional<double>(v.get<double>())
                                                                               : std::nullopt;
      const int kind = num ? 0 : v.is_null() || cell_text(v).empty() ? 2 : 1;
      return std::make_tuple(kind, num.value_or(0), num ? std::string() : cell_text(v));
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
    for (size_t k = 0; k < n; ++k) rank[c][order[k]] = k;
  }

  std::string css = "<style>\n.sweep-sort input { display: none; }\n"
                    ".sweep-scroll { overflow-x: auto; max-width: 100%; }\n"
                    ".sweep-grid { display: grid; font-size: 12px; }\n"
                    ".sweep-grid .r { display: contents; }\n"
                    ".sweep-grid .r > span { order: var(--k); padding: 2px 8px; border-bottom: 1px solid #e6e6e6; "
                    "white-space: nowrap; font-variant-numeric: tabular-nums; }\n"
                    ".sweep-grid .r.front > span { background: #fdecec; }\n"
                    ".sweep-grid .h { order: -2000000000; background: #f1f1ef; font-weight: 600; padding: 3px 8px; "
                    "white-space: nowrap; position: sticky; top: 0; }\n"
                    ".sweep-grid .h label { cursor: pointer; color: #4e79a7; padding: 0 2px; }\n"
                    ".sweep-grid .r { --k: var(--o0); }\n";
  for (size_t c = 0; c < cols.size(); ++c)
    css += fmt::format("#sort-{0}-a:checked ~ .sweep-scroll .r {{ --k: var(--o{0}); }}\n"
                       "#sort-{0}-d:checked ~ .sweep-scroll .r {{ --k: calc(-1 * var(--o{0})); }}\n"
                       "#sort-{0}-a:checked ~ .sweep-scroll .h{0} label.a, #sort-{0}-d:checked ~ .sweep-scroll .h{0} "
                       "label.d {{ color: #e15759; }}\n",
                       c);
  css += "</style>\n";
  std::string html = css + "<div class=\"sweep-sort\">\n";
  for (size_t c = 0; c < cols.size(); ++c)
    html += fmt::format("<input type=\"radio\" name=\"sweep-sort\" id=\"sort-{0}-a\"{1}>"
                        "<input type=\"radio\" name=\"sweep-sort\" id=\"sort-{0}-d\">\n",
                        c, c == 0 ? " checked" : "");
  html += fmt::format("<div class=\"sweep-scroll\"><div class=\"sweep-grid\" style=\"grid-template-columns: "
                      "repeat({}, max-content)\">\n",
                      cols.size());
  for (size_t c = 0; c < cols.size(); ++c)
    html += fmt::format("<span class=\"h h{0}\">{1} <label class=\"a\" for=\"sort-{0}-a\" title=\"sort up\">&#9650;</label>"
                        "<label class=\"d\" for=\"sort-{0}-d\" title=\"sort down\">&#9660;</label></span>",
                        c, report::escape_html(cols[c]));
  html += "\n";
  for (size_t i = 0; i < n; ++i) {
    std::string vars;
    for (size_t c = 0; c < cols.size(); ++c) vars += fmt::format("--o{}:{};", c, rank[c][i]);
    html += fmt::format("<div class=\"r{}\" style=\"{}\">", on_front[i] ? " front" : "", vars);
    for (const std::string& col : cols) html += "<span>" + report::escape_html(cell_text(t.rows[i][col])) + "</span>";
    html += "</div>\n";
  }
  html += "</div></div></div>\n";
  const std::string intro = fmt::format(
      "<p>Every point{}, in index order; the arrows beside a column's name sort by it (up or down). Points on the "
      "Pareto front are shaded. Every column of every point: <code>anatomy sweep export STORE --format csv</code>.</p>",
      t.rows.size() > n ? fmt::format(" (the first {} of {})", n, t.rows.size()) : "");
  return {"points", "Every point", intro, html};
}

}  // namespace

std::vector<size_t> pareto_front(const Table& t, const Pareto& p) {
  struct Candidate {
    size_t row;
    double x, y;  // both as "lower is better"
  };
  std::vector<Candidate> c;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto x = number_of(t.rows[i], p.x), y = number_of(t.rows[i], p.y);
    if (!x || !y || !std::isfinite(*x) || !std::isfinite(*y)) continue;
    c.push_back({i, p.x_max ? -*x : *x, p.y_max ? -*y : *y});
  }
  // By x then y: a point is on the front when its y beats every y before it.
  std::stable_sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
    return a.x != b.x ? a.x < b.x : a.y < b.y;
  });
  std::vector<size_t> front;
  double best_y = INFINITY;
  for (const Candidate& k : c)
    if (k.y < best_y) {
      front.push_back(k.row);
      best_y = k.y;
    }
  return front;
}

std::string sweep_html(const Table& t) {
  const Pareto& p = t.info.pareto;
  report::HtmlPage page("sweep: " + t.info.name);
  page.add_fact("base scenario", t.info.base);
  page.add_fact("store", fmt::format("{}", fmt::join(t.stores, ", ")));
  page.add_fact("axes", t.inputs.empty() ? "none" : fmt::format("{}", fmt::join(t.inputs, ", ")));
  int64_t failed = 0;
  for (const Json& r : t.rows) failed += r["status"] == "failed" ? 1 : 0;
  const std::vector<size_t> front = pareto_front(t, p);
  page.add_figure("points", fmt::format("{}", t.rows.size()), fmt::format("{} ran, {} failed", t.rows.size() - failed, failed));
  page.add_figure("on the Pareto front", fmt::format("{}", front.size()), p.y + " against " + p.x);
  // The best y, and the point that has it.
  std::optional<size_t> best;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto y = number_of(t.rows[i], p.y);
    if (!y) continue;
    if (!best || (p.y_max ? *y > *number_of(t.rows[*best], p.y) : *y < *number_of(t.rows[*best], p.y))) best = i;
  }
  if (best) page.add_figure("best " + p.y, short_number(*number_of(t.rows[*best], p.y)), "point #" + cell_text(t.rows[*best]["index"]));
  if (failed > 0) page.add_warning(fmt::format("{} of {} points failed: see 'Points that failed'.", failed, t.rows.size()));
  page.add_section(pareto_section(t, front));
  for (size_t a = 0; a < t.inputs.size(); ++a) page.add_section(axis_section(t, t.inputs[a], a));
  if (failed > 0) page.add_section(failures_section(t));
  page.add_section(table_section(t, front));
  return page.str();
}

}  // namespace anatomy::sweep
