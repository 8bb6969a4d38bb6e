#include "sweep/space.h"

#include <gtest/gtest.h>

#include <set>

#include "sweep/report.h"
#include "sweep/table.h"

namespace anatomy::sweep {
namespace {

// A small base scenario all these spaces sweep around.
const std::string kBase =
    "scenario:\n"
    "  model: {preset: llama3-8b, layers: 4}\n"
    "  cluster: {system: dgx-h100, gpus: 16}\n"
    "  training: {seq_len: 2048, global_batch: 32}\n";

std::vector<std::string> values_of(const Expansion& e, const std::string& path) {
  std::vector<std::string> out;
  for (const Point& p : e.points)
    for (const auto& o : p.overrides)
      if (o.path == path) out.push_back(o.value);
  return out;
}

TEST(SweepSpace, GridIsTheProductWithTheLastAxisFastest) {
  const Space s = parse_space(kBase + "axes:\n  parallelism.tp: [1, 2]\n  cluster.fabric.nic_speed: [200Gbps, 400Gbps, 800Gbps]\n",
                              "s.yaml");
  const Expansion e = expand(s);
  // 2 x 3 = 6 points; index 1 is tp 1 at 400Gbps.
  ASSERT_EQ(e.points.size(), 6u);
  EXPECT_EQ(e.considered, 6);
  EXPECT_EQ(e.points[1].key, R"({"parallelism.tp":"1","cluster.fabric.nic_speed":"400Gbps"})");
  EXPECT_EQ(values_of(e, "parallelism.tp"), (std::vector<std::string>{"1", "1", "1", "2", "2", "2"}));
}

TEST(SweepSpace, RangesByStepFactorAndCount) {
  const Space s = parse_space(kBase +
                                  "axes:\n"
                                  "  training.global_batch: {from: 16, to: 64, step: 16}\n"  // 16 32 48 64
                                  "  parallelism.tp: {from: 1, to: 8, factor: 2}\n"          // 1 2 4 8
                                  "  cluster.fabric.nic_speed: {from: 100, to: 400, count: 4, unit: Gbps}\n",  // 100 200 300 400
                              "s.yaml");
  EXPECT_EQ(s.axes[0].values, (std::vector<std::string>{"16", "32", "48", "64"}));
  EXPECT_EQ(s.axes[1].values, (std::vector<std::string>{"1", "2", "4", "8"}));
  EXPECT_EQ(s.axes[2].values, (std::vector<std::string>{"100Gbps", "200Gbps", "300Gbps", "400Gbps"}));
  EXPECT_EQ(expand(s).points.size(), 64u);
}

TEST(SweepSpace, ConstraintsDropPointsAndCountTheReasonDerivedFieldsAreSet) {
  const Space s = parse_space(kBase +
                                  "axes:\n  parallelism.tp: [1, 2, 4, 8]\n  parallelism.pp: [1, 2, 4]\n"
                                  "derived:\n  parallelism.dp: cluster.gpus / (parallelism.tp * parallelism.pp)\n"
                                  "constraints:\n  - require: parallelism.tp * parallelism.pp <= 8\n"
                                  "    reason: model parallel group larger than a host\n",
                              "s.yaml");
  const Expansion e = expand(s);
  // Of 12 (tp, pp) pairs, tp x pp > 8 for (4,4), (8,2), (8,4): 9 kept, 3 dropped.
  EXPECT_EQ(e.considered, 12);
  EXPECT_EQ(e.points.size(), 9u);
  EXPECT_EQ(e.dropped.at("model parallel group larger than a host"), 3);
  // tp 2, pp 4: dp = 16 / 8 = 2; index 5 in the full grid (tp 2 is the second row of 3).
  bool found = false;
  for (const Point& p : e.points)
    if (p.index == 5) {
      found = true;
      EXPECT_EQ(p.key, R"({"parallelism.tp":"2","parallelism.pp":"4","parallelism.dp":"2"})");
    }
  EXPECT_TRUE(found);
}

TEST(SweepSpace, LatinHypercubeHasOnePointPerStratumOfEveryAxisAndIsSeeded) {
  const std::string text = kBase +
                           "axes:\n  job.cost.dollars_per_gpu_hour: {from: 0, to: 10}\n"
                           "  training.global_batch: {from: 16, to: 1024, integer: true}\n"
                           "sample: {method: latin_hypercube, points: 10, seed: 7}\n";
  const Expansion a = expand(parse_space(text, "s.yaml")), b = expand(parse_space(text, "s.yaml"));
  ASSERT_EQ(a.points.size(), 10u);
  // Ten strata of [0, 10): each holds exactly one dollar value.
  std::set<int> strata;
  for (const std::string& v : values_of(a, "job.cost.dollars_per_gpu_hour")) strata.insert(static_cast<int>(std::stod(v)));
  EXPECT_EQ(strata.size(), 10u);
  for (size_t i = 0; i < a.points.size(); ++i) EXPECT_EQ(a.points[i].key, b.points[i].key);
  const Expansion c = expand(parse_space(text.substr(0, text.size() - 3) + "8}\n", "s.yaml"));  // seed 8
  EXPECT_NE(a.points[0].key, c.points[0].key);
}

void expect_error(const std::string& text, int line, const std::string& field, const std::string& says) {
  try {
    expand(parse_space(text, "bad.yaml"));
    FAIL() << "no error for:\n" << text;
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "bad.yaml");
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().field, field) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(SweepSpace, ErrorsNameTheSweepFilesLineAndField) {
  expect_error(kBase + "axes:\n  cluster.fabric.nic_sped: [400Gbps]\n", 6, "axes.cluster.fabric.nic_sped",
               "did you mean cluster.fabric.nic_speed?");
  expect_error(kBase + "axes:\n  parallelism.tp: [1, 2]\nconstraints:\n  - require: parallelism.tp <\n", 8,
               "constraints[0].require", "expression ends early");
  expect_error(kBase + "axes:\n  parallelism.tp: {from: 1, to: 8}\n", 6, "axes.parallelism.tp", "continuous");
  expect_error(kBase + "axes:\n  parallelism.tp: [1]\nsample: {method: sobol, points: 3}\n", 7, "sample.method",
               "unknown method");
  expect_error(kBase + "axis:\n  parallelism.tp: [1]\n", 5, "axis", "unknown key");
  expect_error(kBase + "axes:\n  parallelism.tp: [1]\nderived:\n  parallelism.dp: cluster.gpus / nothing\n", 8,
               "derived.parallelism.dp", "'nothing' has no value");
}

TEST(SweepSpace, InlineBaseErrorsPointAtTheSweepFilesLine) {
  // The base's bad key is on line 3 of the sweep file (line 2 of the inline block).
  const Space s = parse_space("scenario:\n  model: {preset: llama3-8b, layers: 4}\n  cluster: {system: dgx-h100, gpus: 16, gpux: 3}\n"
                              "axes:\n  parallelism.tp: [1]\n",
                              "inline.yaml");
  try {
    point_scenario(s, expand(s).points.at(0));
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "inline.yaml");
    EXPECT_EQ(e.where().line, 3) << e.what();
  }
}

TEST(SweepPareto, FrontKeepsThePointsNoOtherBeatsOnBoth) {
  // (cost, time): (1, 9) (2, 5) (3, 6) (4, 2) (5, 2): (3, 6) loses to (2, 5),
  // (5, 2) to (4, 2); the front is (1, 9) (2, 5) (4, 2).
  Table t;
  t.info.pareto = {"cost", "iteration_s", false, false};
  for (auto [x, y] : std::vector<std::pair<double, double>>{{3, 6}, {1, 9}, {5, 2}, {2, 5}, {4, 2}}) {
    t.rows.push_back({{"cost", x}, {"iteration_s", y}});
    t.keys.push_back("{}");
  }
  EXPECT_EQ(pareto_front(t, t.info.pareto), (std::vector<size_t>{1, 3, 4}));
}

}  // namespace
}  // namespace anatomy::sweep
