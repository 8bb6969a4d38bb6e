#pragma once
// HtmlPage: one self-contained HTML file — its styles inline, its charts
// inline SVG, no scripts, fonts, images or links to anything outside it —
// built from a header and an ordered list of sections.
//
// A report is a page plus sections; a new kind of figure (goodput and
// dollars per bucket, once the job lifecycle exists) is one more
// add_section() call, and the table of contents follows.
//
//   HtmlPage page("llama3-70b on 1024 B200");
//   page.add_fact("model", "llama3-70b (70.6B parameters)");
//   page.add_figure("iteration time", "1.310 s");
//   page.add_section({"time", "Where the time goes", "<p>…</p>", svg.str()});
//   std::string html = page.str();

#include <string>
#include <utility>
#include <vector>

namespace anatomy::report {

struct Section {
  std::string id;  // the anchor ("time"); letters, digits and '-'
  std::string title;
  std::string intro_html;  // a paragraph or two saying what the figure shows (HTML)
  std::string body_html;   // charts and tables (HTML)
};

// A plain table; cells are text (escaped when written).
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;           // per column: right-aligned, tabular digits
  std::vector<std::string> row_class;  // per row, optional CSS class ("total", "differs")
  std::string caption;
  std::string css_class;  // "kv": a key/value table whose first column never wraps
};
std::string html_table(const Table& t);

// Escapes text for HTML (same as escape_xml).
std::string escape_html(const std::string& s);

class HtmlPage {
 public:
  explicit HtmlPage(std::string title);
  // One line under the title: "label: value".
  void add_fact(std::string label, std::string value);
  // A headline figure in the summary strip.
  void add_figure(std::string label, std::string value, std::string note = {});
  // A line in a warning box under the header.
  void add_warning(std::string text);
  void add_section(Section s);
  std::string str() const;

 private:
  std::string title_;
  std::vector<std::pair<std::string, std::string>> facts_;
  struct Figure {
    std::string label, value, note;
  };
  std::vector<Figure> figures_;
  std::vector<std::string> warnings_;
  std::vector<Section> sections_;
};

}  // namespace anatomy::report
