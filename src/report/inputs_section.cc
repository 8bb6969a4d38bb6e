#include "report/sections.h"

namespace anatomy::report {

Section inputs_section(const std::vector<InputRow>& inputs) {
  Table t;
  t.header = {"input", "value"};
  t.css_class = "kv";
  std::string group;
  for (const auto& in : inputs) {
    if (in.section != group) {
      group = in.section;
      t.rows.push_back({group, ""});
      t.row_class.push_back("group");
    }
    t.rows.push_back({in.field, in.value});
    t.row_class.push_back("");
  }
  Section s;
  s.id = "inputs";
  s.title = "Inputs";
  s.intro_html =
      "<p>Everything this page was computed from: the scenario as written, with defaults and derived values "
      "filled in, so the page stands on its own.</p>\n";
  s.body_html = html_table(t);
  return s;
}

}  // namespace anatomy::report
