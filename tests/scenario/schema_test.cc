// The schema as data (scenario_fields(), input_rows()): both come from the
// field tables the parser reads, so every key is in the docs and in a
// report's inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "net/packet/packet_options.h"
#include "scenario/scenario.h"
#include "scenario/scenario_fields.h"

namespace anatomy::scenario {
namespace {

std::set<std::string> documented() {
  std::set<std::string> paths;
  for (const FieldDoc& d : scenario_fields()) paths.insert(d.path);
  return paths;
}

TEST(Schema, DocumentsEverySectionIncludingJobAndPlacement) {
  const std::set<std::string> paths = documented();
  for (const char* p : {"job.checkpoint.interval", "job.startup.image_size", "job.failures.classes[].per",
                        "job.congestion.duration", "placement.policy", "placement.cluster_gpus", "cluster.fabric.mtu",
                        "network.model", "compute.memory_check", "collective.bytes", "expected.metric"})
    EXPECT_TRUE(paths.count(p)) << p;
}

TEST(Schema, DocumentsEveryPacketOptionAsANetworkKey) {
  const std::set<std::string> paths = documented();
  for (const auto& o : net::packet::packet_options()) {
    EXPECT_TRUE(paths.count("network." + std::string(o.key))) << o.key;
  }
}

TEST(Schema, GivesUnitsByKind) {
  for (const FieldDoc& d : scenario_fields()) {
    if (d.path == "cluster.fabric.nic_speed") {
      EXPECT_EQ(d.unit, "bit/s");
    }
    if (d.path == "job.checkpoint.interval") {
      EXPECT_EQ(d.unit, "s");
    }
    if (d.path == "parallelism.bucket_size") {
      EXPECT_EQ(d.unit, "B");
    }
    if (d.path == "parallelism.tp") {
      EXPECT_EQ(d.unit, "");
    }
  }
}

// ---- input_rows: a report's inputs, walked from the same tables. ----

const char* const kJob = R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster:
  system: dgx-h100
  gpus: 16
  fabric: {nic_speed: 800Gbps}
parallelism: {tp: 8}
network: {model: packet, transport: roce, ecn_kmin: 50KB}
job:
  duration: 2h
  checkpoint: {interval: 30min}
  failures:
    classes:
      - {name: Faulty GPU, category: GPU, per: gpu, rate_per_day: 0.001}
placement: {cluster_gpus: 64, policy: spread}
)";

const InputValue* find(const std::vector<InputValue>& rows, const std::string& section, const std::string& field) {
  const auto it = std::find_if(rows.begin(), rows.end(),
                               [&](const InputValue& r) { return r.section == section && r.field == field; });
  return it == rows.end() ? nullptr : &*it;
}

std::string value_of(const std::vector<InputValue>& rows, const std::string& section, const std::string& field) {
  const InputValue* r = find(rows, section, field);
  return r ? r->value : "<no row>";
}

TEST(InputRows, ShowEveryValueAsWritten) {
  const std::vector<InputValue> rows = input_rows(parse_scenario(kJob, "s.yaml"));
  EXPECT_EQ(value_of(rows, "parallelism", "tp"), "8");
  EXPECT_EQ(value_of(rows, "parallelism", "dp"), "2");  // derived from the GPU count, then a value like any other
  EXPECT_EQ(value_of(rows, "parallelism", "bucket_size"), "0");  // the framework's rule, as the schema writes it
  EXPECT_EQ(value_of(rows, "cluster", "system"), "dgx-h100");
  EXPECT_EQ(value_of(rows, "cluster", "fabric.nic_speed"), "800Gbps");
  EXPECT_EQ(value_of(rows, "cluster", "fabric.mtu"), "4096");
  EXPECT_EQ(value_of(rows, "network", "model"), "packet");
  EXPECT_EQ(value_of(rows, "network", "transport"), "roce");
  EXPECT_EQ(value_of(rows, "network", "ecn_kmin"), "50KB");
  EXPECT_EQ(value_of(rows, "job", "checkpoint.interval"), "30min");
  EXPECT_EQ(value_of(rows, "job", "failures.classes[0]"),
            "name: Faulty GPU, category: GPU, per: gpu, rate_per_day: 0.001, hangs: false, needs_replacement: true");
  EXPECT_EQ(value_of(rows, "placement", "policy"), "spread");
  EXPECT_EQ(value_of(rows, "placement", "cluster_gpus"), "64");
  EXPECT_EQ(value_of(rows, "training", "recompute"), "none");
}

TEST(InputRows, FieldsLeftToBeDerivedSayHowAndAreMarked) {
  const std::vector<InputValue> rows = input_rows(parse_scenario(kJob, "s.yaml"));
  const InputValue* link = find(rows, "cluster", "fabric.link_speed");
  ASSERT_NE(link, nullptr);
  EXPECT_TRUE(link->derived);
  EXPECT_EQ(link->value, "the NIC port speed");
  EXPECT_FALSE(find(rows, "cluster", "fabric.nic_speed")->derived);
}

TEST(InputRows, SectionsTheScenarioLeavesOutHaveNoRows) {
  const std::vector<InputValue> rows =
      input_rows(parse_scenario("model: {layers: 2, hidden: 64, heads: 8, vocab: 100}\n"
                                "cluster: {system: dgx-h100, gpus: 16}\n",
                                "s.yaml"));
  for (const InputValue& r : rows) {
    EXPECT_NE(r.section, "job") << r.field;
    EXPECT_NE(r.section, "placement") << r.field;
    EXPECT_NE(r.section, "expected") << r.field;
  }
  // A flow run lists its network model and none of the packet options.
  EXPECT_EQ(value_of(rows, "network", "model"), "flow");
  EXPECT_EQ(find(rows, "network", "transport"), nullptr);
}

// Every field a section's table declares with a show has a row: the rows
// are generated, so a key added to a table appears without anyone editing
// the report.
TEST(InputRows, EveryShownFieldOfATableHasARow) {
  const std::vector<InputValue> rows = input_rows(parse_scenario(kJob, "s.yaml"));
  for (const auto& f : detail::parallelism_fields())
    if (f.show) {
      EXPECT_NE(find(rows, "parallelism", std::string(f.key)), nullptr) << f.key;
    }
  for (const auto& f : detail::fabric_fields())
    if (f.show) {
      EXPECT_NE(find(rows, "cluster", "fabric." + std::string(f.key)), nullptr) << f.key;
    }
  for (const auto& o : net::packet::packet_options())
    EXPECT_NE(find(rows, "network", std::string(o.key)), nullptr) << o.key;
}

// The walker itself: a table it has never seen gives a row per shown field.
struct Toy {
  int ways = 3;
  bool fast = true;
};

TEST(InputRows, AFieldAddedToATableAppearsInTheRows) {
  using detail::Field;
  using detail::Kind;
  const std::vector<Field<Toy>> table = {
      {"ways", Kind::kInt, detail::by_default("1"), {}, "ways", {}, detail::shows(&Toy::ways)},
      {"fast", Kind::kBool, detail::by_default("true"), {}, "fast", {}, detail::shows(&Toy::fast)},
      {"derived", Kind::kInt, detail::derived("from ways"), {}, "d", {}, [](const Toy&) { return std::string(); }},
      {"hidden", Kind::kSection, detail::derived("none"), {}, "a section: no row", {}},
  };
  std::vector<InputValue> rows;
  detail::add_rows(rows, "toy.inner", table, Toy{});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].section, "toy");
  EXPECT_EQ(rows[0].field, "inner.ways");
  EXPECT_EQ(rows[0].value, "3");
  EXPECT_EQ(rows[1].value, "true");
  EXPECT_TRUE(rows[2].derived);
  EXPECT_EQ(rows[2].value, "from ways");
}

}  // namespace
}  // namespace anatomy::scenario
