#pragma once
// What a page needs besides the model's result so that it stands on its
// own: its title, one-line facts (model, cluster, plan, compute and network
// models) and the inputs that produced it, as a table.
// scenario_page.h makes one from a scenario; `anatomy collective` from its
// flags. The writers only lay them out.

#include <string>
#include <utility>
#include <vector>

namespace anatomy::report {

struct InputRow {
  std::string section;     // "cluster", "parallelism", ...
  std::string field;       // "fabric.nic_speed"
  std::string value;       // as the user would write it, or as resolved ("800Gbps (the preset's)")
  bool names_run = false;  // names the run (its title, its file) rather than configuring it
  bool derived = false;    // follows from other inputs (the built topology): shown, not listed as a difference
};

struct PageInfo {
  std::string title;   // the scenario's name
  std::string source;  // the file it came from, or "<built-in default>"
  std::vector<std::pair<std::string, std::string>> facts;
  std::vector<InputRow> inputs;
};

}  // namespace anatomy::report
