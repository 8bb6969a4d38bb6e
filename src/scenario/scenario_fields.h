#pragma once
// Internal to scenario/: the schema's field tables, and the list of its
// sections that the docs (scenario_fields()) and a report's inputs
// (input_rows()) both walk, so a key declared in a table appears in both
// with nobody editing either.
//
// A section binds a dotted path ("cluster.fabric") to its table and to
// where its values live in a Scenario (none when the scenario leaves the
// section out: no job:, no rows for it).

#include <functional>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "scenario/yaml_fields.h"

namespace anatomy::scenario::detail {

const std::vector<Field<Scenario>>& top_fields();
const std::vector<Field<workload::ModelSpec>>& model_fields();
const std::vector<Field<topo::ClusterSpec>>& cluster_fields();
const std::vector<Field<topo::FabricSpec>>& fabric_fields();
const std::vector<Field<topo::StorageSpec>>& storage_fields();
const std::vector<Field<workload::ParallelPlan>>& parallelism_fields();
// parallelism.nccl_min_ctas and nccl_max_ctas: one key a communicator.
const std::vector<Field<workload::CommunicatorCtas>>& communicator_ctas_fields();
const std::vector<Field<workload::TrainingSpec>>& training_fields();
const std::vector<Field<Scenario>>& compute_fields();
const std::vector<Field<Expected>>& expected_fields();
const std::vector<Field<CollectiveCase>>& collective_fields();
const std::vector<Field<KernelCase>>& kernel_fields();

// What a kind's values are measured in, for the docs ("" for plain numbers).
const char* unit_of(Kind k);

template <typename T>
void add_docs(std::vector<FieldDoc>& out, const std::string& path, const std::vector<Field<T>>& fields) {
  for (const auto& f : fields) {
    FieldDoc d;
    d.path = join(path, f.key);
    d.kind = to_string(f.kind);
    for (auto c : f.choices) {
      d.kind += d.kind == "one of" ? ' ' : '|';
      d.kind += c;
    }
    d.unit = unit_of(f.kind);
    d.default_value = f.def.how == Default::kRequired ? "required" : std::string(f.def.text);
    d.help = std::string(f.help);
    out.push_back(std::move(d));
  }
}

// A report's row for each shown field of `value`: section = the path's
// first part ("scenario" at the top level), field = the rest and the key.
template <typename T>
void add_rows(std::vector<InputValue>& out, const std::string& path, const std::vector<Field<T>>& fields,
              const T& value) {
  const size_t dot = path.find('.');
  const std::string section = path.empty() ? "scenario" : path.substr(0, dot);
  const std::string prefix = dot == std::string::npos ? "" : path.substr(dot + 1);
  for (const auto& f : fields) {
    if (!f.show) continue;
    InputValue row{section, join(prefix, f.key), f.show(value), false};
    if (row.value.empty()) row.value = std::string(f.def.text), row.derived = true;
    out.push_back(std::move(row));
  }
}

struct Section {
  std::string path;
  std::function<void(std::vector<FieldDoc>&)> docs;
  std::function<void(const Scenario&, std::vector<InputValue>&)> rows;
};

// `get` finds the section's values in a scenario, or nullptr when it has none.
template <typename T>
Section section(std::string path, const std::vector<Field<T>>& fields, std::function<const T*(const Scenario&)> get) {
  Section s;
  s.path = path;
  s.docs = [path, &fields](std::vector<FieldDoc>& out) { add_docs(out, path, fields); };
  s.rows = [path, &fields, get](const Scenario& sc, std::vector<InputValue>& out) {
    if (const T* v = get(sc)) add_rows(out, path, fields, *v);
  };
  return s;
}

// Every section, in the order the parser reads them.
const std::vector<Section>& sections();

}  // namespace anatomy::scenario::detail
