#include "report/html_page.h"

#include <fmt/format.h>

#include "report/svg.h"

namespace anatomy::report {
namespace {

// Laid out for a 1280 px window: the content column is at most 1200 px, a
// section's inside 1130 px, and full-width charts are drawn 1120 px wide
// (two x-y charts 550 px each side by side); narrower windows scale them down.
constexpr const char* kStyle = R"(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f6f4; color: #222;
       font: 14px/1.45 'DejaVu Sans', Verdana, 'Bitstream Vera Sans', sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 20px 40px; }
header h1 { font-size: 22px; margin: 8px 0 4px; overflow-wrap: anywhere; }
.facts { margin: 0; padding: 0; list-style: none; color: #444; font-size: 13px; }
.facts li { overflow-wrap: anywhere; }
.facts b { color: #222; font-weight: 600; }
.figures { display: flex; flex-wrap: wrap; gap: 10px; margin: 14px 0 6px; }
.figure { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 160px; }
.figure .label { font-size: 12px; color: #555; }
.figure .value { font-size: 20px; font-weight: 600; }
.figure .note { font-size: 11px; color: #666; }
.warning { background: #fff4e5; border: 1px solid #f0b36b; border-radius: 6px; padding: 8px 12px; margin: 8px 0;
           overflow-wrap: anywhere; }
nav { margin: 10px 0; font-size: 13px; }
nav a { color: #2a5d9f; margin-right: 14px; text-decoration: none; white-space: nowrap; }
section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 12px 14px 16px; margin: 16px 0; }
section h2 { font-size: 17px; margin: 2px 0 6px; }
section p { margin: 4px 0 10px; color: #333; max-width: 1100px; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 6px 0 10px; }
table { border-collapse: collapse; width: 100%; table-layout: auto; font-size: 13px; margin: 6px 0; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border-bottom: 1px solid #e6e6e6; padding: 3px 8px; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f1f1ef; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
th { overflow-wrap: normal; }
table.kv td:first-child { white-space: nowrap; width: 1%; overflow-wrap: normal; }
tr.total td { font-weight: 600; border-top: 2px solid #ccc; }
tr.group td { background: #fafaf8; font-weight: 600; color: #555; }
tr.differs td { background: #fff8e1; }
td.better { color: #1b7a2f; }
td.worse { color: #b3261e; }
footer { color: #777; font-size: 12px; margin-top: 20px; }
)";

}  // namespace

std::string escape_html(const std::string& s) { return escape_xml(s); }

std::string html_table(const Table& t) {
  std::string out =
      t.css_class.empty() ? std::string("<table>\n") : fmt::format("<table class=\"{}\">\n", escape_html(t.css_class));
  if (!t.caption.empty()) out += "<caption>" + escape_html(t.caption) + "</caption>\n";
  const auto num = [&](size_t c) { return c < t.numeric.size() && t.numeric[c]; };
  out += "<thead><tr>";
  for (size_t c = 0; c < t.header.size(); ++c)
    out += fmt::format("<th{}>{}</th>", num(c) ? R"( class="num")" : "", escape_html(t.header[c]));
  out += "</tr></thead>\n<tbody>\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const std::string cls = r < t.row_class.size() ? t.row_class[r] : "";
    out += cls.empty() ? "<tr>" : fmt::format(R"(<tr class="{}">)", escape_html(cls));
    for (size_t c = 0; c < t.rows[r].size(); ++c)
      out += fmt::format("<td{}>{}</td>", num(c) ? R"( class="num")" : "", escape_html(t.rows[r][c]));
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  return out;
}

HtmlPage::HtmlPage(std::string title) : title_(std::move(title)) {}

void HtmlPage::add_fact(std::string label, std::string value) {
  facts_.emplace_back(std::move(label), std::move(value));
}

void HtmlPage::add_figure(std::string label, std::string value, std::string note) {
  figures_.push_back({std::move(label), std::move(value), std::move(note)});
}

void HtmlPage::add_warning(std::string text) { warnings_.push_back(std::move(text)); }

void HtmlPage::add_section(Section s) { sections_.push_back(std::move(s)); }

std::string HtmlPage::str() const {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + escape_html(title_) + " — anatomy</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n<main>\n<header>\n";
  out += "<h1>" + escape_html(title_) + "</h1>\n";
  if (!facts_.empty()) {
    out += "<ul class=\"facts\">\n";
    for (const auto& [label, value] : facts_)
      out += "<li><b>" + escape_html(label) + ":</b> " + escape_html(value) + "</li>\n";
    out += "</ul>\n";
  }
  if (!figures_.empty()) {
    out += "<div class=\"figures\">\n";
    for (const auto& f : figures_) {
      out += "<div class=\"figure\"><div class=\"label\">" + escape_html(f.label) + "</div><div class=\"value\">" +
             escape_html(f.value) + "</div>";
      if (!f.note.empty()) out += "<div class=\"note\">" + escape_html(f.note) + "</div>";
      out += "</div>\n";
    }
    out += "</div>\n";
  }
  for (const auto& w : warnings_) out += "<div class=\"warning\">" + escape_html(w) + "</div>\n";
  out += "</header>\n";
  if (sections_.size() > 1) {
    out += "<nav>";
    for (const auto& s : sections_) out += "<a href=\"#" + escape_html(s.id) + "\">" + escape_html(s.title) + "</a>";
    out += "</nav>\n";
  }
  for (const auto& s : sections_) {
    out += "<section id=\"" + escape_html(s.id) + "\">\n<h2>" + escape_html(s.title) + "</h2>\n";
    out += s.intro_html;
    out += s.body_html;
    out += "</section>\n";
  }
  out +=
      "<footer>Written by anatomy. Every figure on this page comes from a model whose inputs are listed "
      "above; the same scenario and seed give the same page, byte for byte.</footer>\n";
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace anatomy::report
