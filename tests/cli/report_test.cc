// End-to-end checks of what a run leaves behind: the HTML report (opened
// in headless Chromium: it renders, every chart has content, no label
// overlaps another, no console errors, the screenshot is not blank), the
// Perfetto trace, the CSVs, `anatomy compare`, and that all of them are the
// same bytes for the same inputs.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "png_pixels.h"
#include "shell.h"

namespace {

namespace fs = std::filesystem;

using Output = anatomy::testing::ShellResult;

// Runs a shell command line, capturing stdout and stderr.
Output shell(const std::string& cmd) { return anatomy::testing::run_shell(cmd); }

Output anatomy(const std::string& args) { return shell(std::string(ANATOMY_BINARY) + " " + args); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// A fresh folder for one test.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("anatomy_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

using anatomy::testing::lines;

// ---------------------------------------------------------------------------
// Headless Chromium

// Debian's `chromium` (make deps installs it); ANATOMY_CHROMIUM overrides.
std::string find_chromium() {
  if (const char* env = std::getenv("ANATOMY_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      const fs::path p = fs::path(dir) / name;
      if (access(p.c_str(), X_OK) == 0) return p.string();
    }
  return "";
}

#define REQUIRE_CHROMIUM(var)                                                                                   \
  const std::string var = find_chromium();                                                                      \
  ASSERT_FALSE(var.empty()) << "chromium is not installed, so the HTML report cannot be checked in a browser: " \
                               "run `make deps` as root (it installs Debian's chromium), or set ANATOMY_CHROMIUM"

Output chromium(const std::string& binary, const fs::path& dir, const std::string& what, const fs::path& page) {
  const std::string cmd = "timeout 120 " + binary +
                          " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-quic"
                          " --no-first-run --disable-background-networking --disable-component-update --disable-sync"
                          " --hide-scrollbars --enable-logging=stderr --log-level=0 --user-data-dir=" +
                          (dir / "chromium-profile").string() + " --window-size=1280,2400 " + what + " file://" +
                          fs::absolute(page).string();
  return shell(cmd);
}

// Scripts added to a copy of the page: the first records errors (failed
// loads, exceptions, console.error); the last measures every chart in the
// laid-out page — non-empty, with shapes and labels, no label outside its
// chart or over another — and whether the page is wider than the window.
constexpr const char* kErrorProbe = R"(<script>
window.__errors = [];
window.addEventListener('error', function (e) {
  var t = e.target;
  window.__errors.push(t && t !== window && (t.src || t.href) ? 'failed to load ' + (t.src || t.href) : String(e.message));
}, true);
(function () {
  var orig = console.error;
  console.error = function () { window.__errors.push(Array.prototype.join.call(arguments, ' ')); orig.apply(console, arguments); };
})();
</script>)";

constexpr const char* kLayoutProbe = R"(<script>
(function () {
  var problems = [];
  var svgs = document.querySelectorAll('svg.chart');
  svgs.forEach(function (svg, n) {
    var box = svg.getBoundingClientRect();
    var name = svg.getAttribute('aria-label') || ('chart ' + n);
    if (box.width < 10 || box.height < 10) problems.push(name + ': empty (' + box.width + ' x ' + box.height + ')');
    if (svg.querySelectorAll('rect, line, polyline, circle').length === 0) problems.push(name + ': no shapes');
    var texts = Array.prototype.map.call(svg.querySelectorAll('text'), function (t) {
      return [t.textContent, t.getBoundingClientRect()];
    });
    if (texts.length === 0) problems.push(name + ': no labels');
    texts.forEach(function (t) {
      var b = t[1];
      if (b.left < box.left - 0.5 || b.right > box.right + 0.5 || b.top < box.top - 0.5 || b.bottom > box.bottom + 0.5)
        problems.push(name + ': "' + t[0] + '" sticks out of the chart');
    });
    for (var i = 0; i < texts.length; ++i)
      for (var j = i + 1; j < texts.length; ++j) {
        var a = texts[i][1], b = texts[j][1];
        var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0.5 && h > 0.5) problems.push(name + ': "' + texts[i][0] + '" overlaps "' + texts[j][0] + '"');
      }
  });
  if (document.documentElement.scrollWidth > window.innerWidth)
    problems.push('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + window.innerWidth + ' px window');
  var out = document.createElement('pre');
  out.textContent = 'CHARTS:' + svgs.length + ':END\nLAYOUT:' + (problems.length ? problems.join('\n') : 'ok') +
                    ':END\nERRORS:' + (window.__errors.length ? window.__errors.join('\n') : 'none') + ':END';
  document.body.appendChild(out);
})();
</script>)";

std::string between(const std::string& s, const std::string& open, const std::string& close) {
  const size_t a = s.find(open);
  if (a == std::string::npos) return "(missing " + open + ")";
  const size_t b = s.find(close, a + open.size());
  return s.substr(a + open.size(), b == std::string::npos ? std::string::npos : b - a - open.size());
}

// The page carries everything it needs: nothing is fetched to view it.
void expect_self_contained(const std::string& html) {
  for (const char* outside : {"http:", "https:", "<script", "<link", "src=", "url(", "@import", "<img", "<iframe"})
    EXPECT_EQ(html.find(outside), std::string::npos) << "the report refers to something outside it: " << outside;
}

// Opens a copy of `page` with the probes in Chromium and checks what they found.
void expect_renders_cleanly(const std::string& browser, const fs::path& dir, const fs::path& page, int min_charts) {
  std::string html = slurp(page);
  expect_self_contained(html);
  const size_t head = html.find("<head>");
  const size_t body_end = html.rfind("</body>");
  ASSERT_NE(head, std::string::npos);
  ASSERT_NE(body_end, std::string::npos);
  html.insert(body_end, kLayoutProbe);
  html.insert(head + 6, kErrorProbe);
  const fs::path probe = dir / ("probe_" + page.filename().string());
  spit(probe, html);
  const Output r = chromium(browser, dir, "--dump-dom", probe);
  ASSERT_EQ(r.code, 0) << "chromium failed on " << page << ":\n" << r.err;
  // What the layout probe appended (the dumped DOM holds the probe's own text before it).
  const size_t pre = r.out.rfind("<pre>");
  ASSERT_NE(pre, std::string::npos) << "the probe did not run:\n" << r.err;
  const std::string found = r.out.substr(pre);
  EXPECT_GE(std::stoi("0" + between(found, "CHARTS:", ":END")), min_charts) << page;
  EXPECT_EQ(between(found, "LAYOUT:", ":END"), "ok") << page;
  EXPECT_EQ(between(found, "ERRORS:", ":END"), "none") << page;
  // Console messages (errors included) are logged as "...:CONSOLE:..." lines.
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);)
    EXPECT_EQ(line.find(":CONSOLE"), std::string::npos) << page << ": " << line;
}

TEST(CliHtmlReport, DefaultScenarioRendersInHeadlessChromium) {
  REQUIRE_CHROMIUM(browser);
  const fs::path dir = scratch("html_report");
  const fs::path page = dir / "report.html";
  const Output run = anatomy("run --report " + page.string());
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(run.err.empty()) << "progress or warnings on a stderr that is not a terminal: " << run.err;
  // Breakdown, timeline, links and memory.
  expect_renders_cleanly(browser, dir, page, 4);

  // The screenshot is a picture, not a blank page: many colors, and a good
  // share of pixels that are not the background.
  const fs::path png = dir / "report.png";
  const Output shot = chromium(browser, dir, "--screenshot=" + png.string(), page);
  ASSERT_EQ(shot.code, 0) << shot.err;
  ASSERT_TRUE(fs::exists(png)) << shot.err;
  const auto img = anatomy::testing::decode_png(slurp(png));
  ASSERT_TRUE(img.error.empty()) << img.error;
  EXPECT_EQ(img.width, 1280u);
  std::map<uint32_t, size_t> colors;
  for (uint32_t p : img.pixels) ++colors[p];
  size_t background = 0;
  for (auto [c, n] : colors) background = std::max(background, n);
  EXPECT_GE(colors.size(), 16u) << "the screenshot has almost no colors";
  EXPECT_GT(1.0 - static_cast<double>(background) / img.pixels.size(), 0.05) << "the screenshot is mostly background";
}

TEST(CliHtmlReport, CollectiveAndCompareReportsRenderInHeadlessChromium) {
  REQUIRE_CHROMIUM(browser);
  const fs::path dir = scratch("html_reports");
  const Output c = anatomy("collective --gpus 16 -b 1K -e 1G -f 4 --report " + (dir / "collective.html").string());
  ASSERT_EQ(c.code, 0) << c.err;
  expect_renders_cleanly(browser, dir, dir / "collective.html", 2);
  const fs::path a = dir / "a.yaml", b = dir / "b.yaml";
  spit(a,
       "name: a\nmodel: llama3-8b\ncluster: {system: dgx-h100, gpus: 16}\nparallelism: {tp: 8}\n"
       "training: {seq_len: 2048, global_batch: 16}\n");
  spit(b,
       "name: b, the same on a much slower fabric, with a name long enough to be cut short in the chart\n"
       "model: llama3-8b\ncluster: {system: dgx-h100, gpus: 16, fabric: {nic_speed: 50Gbps}}\n"
       "parallelism: {tp: 8}\ntraining: {seq_len: 2048, global_batch: 16}\n");
  const Output cmp =
      anatomy("compare " + a.string() + " " + b.string() + " --report " + (dir / "compare.html").string());
  ASSERT_EQ(cmp.code, 0) << cmp.err;
  expect_renders_cleanly(browser, dir, dir / "compare.html", 1);
}

// ---------------------------------------------------------------------------
// Perfetto trace

// The default scenario's shape, from its JSON: every pipeline stage has
// gpus / stages GPUs, and stage s is represented by GPU s x gpus / stages.
struct DefaultPlan {
  int gpus = 0, stages = 0;
  int gpu_of(int stage) const { return stage * (gpus / stages); }
};

DefaultPlan default_plan(const std::string& json) {
  const auto j = nlohmann::json::parse(json);
  return {j["gpus"].get<int>(), static_cast<int>(j["stages_breakdown_s"].size())};
}

TEST(CliTrace, ParsesAndEachGpuTrackAddsUpToTheIteration) {
  const fs::path dir = scratch("trace");
  const Output r = anatomy("run --format json --trace " + (dir / "trace.json").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const double iteration_s = nlohmann::json::parse(r.out)["iteration_s"];
  const DefaultPlan plan = default_plan(r.out);
  const auto j = nlohmann::json::parse(slurp(dir / "trace.json"));
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::map<int, int64_t> gpu_ps;
  std::set<std::string> phases;
  for (const auto& e : j["traceEvents"]) {
    for (const char* k : {"name", "ph", "ts", "pid", "tid"}) ASSERT_TRUE(e.contains(k)) << k << ": " << e.dump();
    phases.insert(e["ph"]);
    if (e["ph"] == "X") {
      ASSERT_TRUE(e.contains("dur")) << e.dump();
      if (e["pid"] == 1) gpu_ps[e["tid"].get<int>()] += std::llround(e["dur"].get<double>() * 1e6);
    }
  }
  EXPECT_EQ(phases, (std::set<std::string>{"M", "X", "C"}));
  // One track per pipeline stage, named by its representative GPU; each
  // adds up to the iteration (to the picosecond of the JSON's seconds).
  ASSERT_EQ(gpu_ps.size(), static_cast<size_t>(plan.stages));
  for (int s = 0; s < plan.stages; ++s) {
    ASSERT_TRUE(gpu_ps.count(plan.gpu_of(s))) << "no track for GPU " << plan.gpu_of(s);
    EXPECT_NEAR(gpu_ps[plan.gpu_of(s)] * 1e-12, iteration_s, 1e-12) << "stage " << s;
  }
}

TEST(CliTrace, RanksFilterKeepsThoseStagesAndLinksAreSampled) {
  const fs::path dir = scratch("trace_ranks");
  const Output r =
      anatomy("run --format json --trace " + (dir / "t.json").string() + " --trace-ranks 0,3 --trace-links 2");
  ASSERT_EQ(r.code, 0) << r.err;
  const DefaultPlan plan = default_plan(r.out);
  const auto j = nlohmann::json::parse(slurp(dir / "t.json"));
  std::set<int> tids;
  std::set<std::string> counters;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == 1) tids.insert(e["tid"].get<int>());
    if (e["ph"] == "C") counters.insert(e["name"]);
  }
  EXPECT_EQ(tids, (std::set<int>{0, plan.gpu_of(3)}));
  EXPECT_EQ(counters.size(), 2u);
}

TEST(CliTrace, StageThatDoesNotExistIsOneLineNamingTheFlag) {
  const fs::path dir = scratch("trace_bad_rank");
  const Output r = anatomy("run --trace " + (dir / "t.json").string() + " --trace-ranks 999");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--trace-ranks"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "t.json")) << "nothing is written when the flags are wrong";
}

// ---------------------------------------------------------------------------
// CSV

TEST(CliCsv, WritesBreakdownPerRankAndTimeline) {
  const fs::path dir = scratch("csv");
  const Output r = anatomy("run --format json --csv " + (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const DefaultPlan plan = default_plan(r.out);
  const std::string breakdown = slurp(dir / "out" / "breakdown.csv");
  const std::string per_rank = slurp(dir / "out" / "per_rank.csv");
  const std::string timeline = slurp(dir / "out" / "timeline.csv");
  EXPECT_EQ(breakdown.rfind("stage,gpu,bucket,seconds,percent\nmean,,forward compute,", 0), 0u) << breakdown;
  EXPECT_EQ(lines(per_rank), 1 + plan.stages);  // header + one row per pipeline stage
  EXPECT_EQ(timeline.rfind("stage,gpu,kind,start_s,end_s,duration_s,micro_batch,chunk\n", 0), 0u);
  EXPECT_GT(lines(timeline), 100);
}

// ---------------------------------------------------------------------------
// anatomy compare

// Two scenarios that differ only in the NIC speed, on 4 DGX H100 hosts with
// TP 8 inside each host and data parallelism (4) across them, gradient
// reduction not overlapped: the gradient all-reduce crosses the fabric.
std::string fabric_scenario(const std::string& speed) {
  return "name: llama3-8b DP across 4 hosts at " + speed +
         "\n"
         "model: llama3-8b\n"
         "cluster:\n  system: dgx-h100\n  gpus: 32\n  fabric: {nic_speed: " +
         speed +
         "}\n"
         "parallelism: {tp: 8, pp: 1, overlap_grad_reduce: false}\n"
         "training: {seq_len: 2048, global_batch: 16, micro_batch: 1}\n";
}

TEST(CliCompare, LinkSpeedChangesCommunicationNotCompute) {
  const fs::path dir = scratch("compare");
  spit(dir / "fast.yaml", fabric_scenario("400Gbps"));
  spit(dir / "slow.yaml", fabric_scenario("100Gbps"));
  const Output r =
      anatomy("compare " + (dir / "fast.yaml").string() + " " + (dir / "slow.yaml").string() + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> m;
  for (const auto& x : j["metrics"]) m[x["metric"]] = x;
  for (const char* compute : {"forward_compute_s", "backward_compute_s", "optimizer_s", "recompute_s"}) {
    ASSERT_TRUE(m.count(compute)) << compute;
    EXPECT_EQ(m[compute]["values"][0], m[compute]["values"][1]) << compute;
    EXPECT_EQ(m[compute]["diff"][1], 0.0) << compute;
  }
  // A quarter of the fabric bandwidth: the exposed gradient all-reduce grows.
  EXPECT_GT(m["exposed_DP_comm_s"]["diff"][1].get<double>(), 0);
  double comm_a = 0, comm_b = 0;
  for (const char* comm : {"exposed_TP_comm_s", "exposed_DP_comm_s", "exposed_PP_comm_s"}) {
    comm_a += m[comm]["values"][0].get<double>();
    comm_b += m[comm]["values"][1].get<double>();
  }
  EXPECT_GT(comm_b, comm_a);
  EXPECT_GT(m["iteration_s"]["diff"][1].get<double>(), 0);
  EXPECT_LT(m["mfu"]["diff"][1].get<double>(), 0);
  ASSERT_EQ(j["inputs_that_differ"].size(), 1u) << j["inputs_that_differ"].dump();
  EXPECT_EQ(j["inputs_that_differ"][0]["input"], "cluster.fabric.nic_speed");
}

TEST(CliCompare, TableHasEveryBucketWithDifferences) {
  const fs::path dir = scratch("compare_table");
  spit(dir / "fast.yaml", fabric_scenario("400Gbps"));
  spit(dir / "slow.yaml", fabric_scenario("100Gbps"));
  const Output r = anatomy("compare " + (dir / "fast.yaml").string() + " " + (dir / "slow.yaml").string());
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* row : {"iteration time (ms)", "forward compute (ms)", "backward compute (ms)", "optimizer (ms)",
                          "exposed TP comm (ms)", "exposed CP comm (ms)", "exposed EP comm (ms)", "exposed DP comm (ms)", "exposed PP comm (ms)",
                          "pipeline bubble (ms)", "waiting on others (ms)", "tokens/s", "TFLOP/s per GPU", "MFU (%)",
                          "memory per GPU (GB)", "B-A %", "# differs: cluster.fabric.nic_speed: A 400Gbps, B 100Gbps"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
}

TEST(CliCompare, NeedsTwoScenarios) {
  const fs::path dir = scratch("compare_one");
  spit(dir / "a.yaml", fabric_scenario("400Gbps"));
  const Output r = anatomy("compare " + (dir / "a.yaml").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("at least two"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------------------
// Determinism

TEST(CliOutputs, SameScenarioSameBytes) {
  const fs::path a = scratch("same_a"), b = scratch("same_b");
  for (const fs::path& d : {a, b}) {
    const Output r = anatomy("run --report " + (d / "r.html").string() + " --trace " + (d / "t.json").string() +
                             " --csv " + (d / "csv").string());
    ASSERT_EQ(r.code, 0) << r.err;
    const Output c = anatomy("collective --gpus 16 -b 1M -e 64M -f 8 --report " + (d / "c.html").string() + " --csv " +
                             (d / "ccsv").string());
    ASSERT_EQ(c.code, 0) << c.err;
  }
  for (const char* f : {"r.html", "t.json", "csv/breakdown.csv", "csv/per_rank.csv", "csv/timeline.csv", "c.html",
                        "ccsv/collective.csv"}) {
    const std::string x = slurp(a / f), y = slurp(b / f);
    EXPECT_FALSE(x.empty()) << f;
    EXPECT_TRUE(x == y) << f << " differs between two runs of the same scenario";
  }
}

TEST(CliOutputs, SameComparisonSameBytes) {
  const fs::path dir = scratch("same_compare");
  spit(dir / "fast.yaml", fabric_scenario("400Gbps"));
  spit(dir / "slow.yaml", fabric_scenario("100Gbps"));
  const std::string args = "compare " + (dir / "fast.yaml").string() + " " + (dir / "slow.yaml").string();
  const Output x = anatomy(args + " --report " + (dir / "x.html").string());
  const Output y = anatomy(args + " --report " + (dir / "y.html").string());
  ASSERT_EQ(x.code, 0) << x.err;
  EXPECT_EQ(x.out, y.out);
  EXPECT_TRUE(slurp(dir / "x.html") == slurp(dir / "y.html"));
}

TEST(CliOutputs, UnwritableReportIsOneLineNamingTheFlag) {
  const Output r = anatomy("run --report /proc/anatomy/report.html");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--report"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// ---------------------------------------------------------------------------
// Progress

// Runs `args` with stderr (and stdout) on a pseudo-terminal, as a person
// would, through util-linux's `script`. ANATOMY_PROGRESS_DELAY_MS=0 draws
// the line at once instead of after a second, so a short run shows it.
Output on_a_terminal(const std::string& args) {
  return shell("ANATOMY_PROGRESS_DELAY_MS=0 script -qefc '" + std::string(ANATOMY_BINARY) + " " + args + "' /dev/null");
}

// The JSON form: the table writes each row as it finishes instead of a bar.
constexpr const char* kSweep = "collective --gpus 16 -b 1M -e 1G -f 8 --format json";

TEST(CliProgress, DrawnOnATerminal) {
  const Output r = on_a_terminal(kSweep);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(" sizes  simulated "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ETA"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\r\033[K"), std::string::npos) << "the line is erased at the end";
}

TEST(CliProgress, QuietSilencesIt) {
  const Output r = on_a_terminal(std::string(kSweep) + " --quiet");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("ETA"), std::string::npos) << r.out;
}

TEST(CliProgress, NotDrawnWhenStderrIsNotATerminal) {
  const Output r = shell(std::string("ANATOMY_PROGRESS_DELAY_MS=0 ") + ANATOMY_BINARY + " " + kSweep);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

// ---------------------------------------------------------------------------
// anatomy sweep report

TEST(CliSweepReport, RendersInHeadlessChromiumWithItsParetoChart) {
  REQUIRE_CHROMIUM(browser);
  const fs::path dir = scratch("sweep_report");
  // 3 NIC speeds x 3 TP sizes of a small Llama 3 8B; TP 3 does not divide
  // the 16 GPUs, so 3 points fail and the page lists them.
  spit(dir / "space.yaml",
       "name: nic x tp\n"
       "scenario:\n"
       "  model: {preset: llama3-8b, layers: 4}\n"
       "  cluster: {system: dgx-h100, gpus: 16}\n"
       "  training: {seq_len: 2048, global_batch: 32}\n"
       "axes:\n"
       "  cluster.fabric.nic_speed: [100Gbps, 400Gbps, 800Gbps]\n"
       "  parallelism.tp: [1, 2, 3]\n"
       "metrics:\n"
       "  dollars: 'result.gpus * result.iteration_s / 3600 * (cluster.fabric.nic_speed >= 400Gbps ? 3 : 2)'\n");
  const fs::path store = dir / "s.sqlite", page = dir / "sweep.html";
  const Output run = anatomy("sweep " + (dir / "space.yaml").string() + " --store " + store.string() + " --threads 2");
  ASSERT_EQ(run.code, 0) << run.err;
  const Output rep = anatomy("sweep report " + store.string() + " --out " + page.string());
  ASSERT_EQ(rep.code, 0) << rep.err;
  const std::string html = slurp(page);
  // The Pareto chart (all points and the front), one chart per axis, the failures and the table.
  EXPECT_NE(html.find("aria-label=\"Pareto front: iteration_s against dollars\""), std::string::npos);
  EXPECT_NE(html.find("id=\"failed\""), std::string::npos);
  EXPECT_NE(html.find("id=\"sort-0-a\""), std::string::npos);
  // Pareto, two axes.
  expect_renders_cleanly(browser, dir, page, 3);
  const fs::path png = dir / "sweep.png";
  const Output shot = chromium(browser, dir, "--screenshot=" + png.string(), page);
  ASSERT_EQ(shot.code, 0) << shot.err;
  const auto img = anatomy::testing::decode_png(slurp(png));
  ASSERT_TRUE(img.error.empty()) << img.error;
  // The front's red (#e15759, pixels are RGBA) is on the screen below its
  // legend swatch, the first red from the top: the chart was drawn, not
  // just written. (Measured: 26 such pixels in the 420 px chart.)
  std::vector<uint32_t> red_rows;
  for (size_t i = 0; i < img.pixels.size(); ++i)
    if ((img.pixels[i] >> 8) == 0xe15759u) red_rows.push_back(static_cast<uint32_t>(i / img.width));
  ASSERT_FALSE(red_rows.empty()) << "no red at all: no Pareto legend";
  size_t front = 0;
  for (uint32_t y : red_rows) front += y > red_rows.front() + 20 && y < red_rows.front() + 420;
  EXPECT_GT(front, 10u) << "no Pareto front under its legend on the screenshot";
  // Same store, same page.
  const Output again = anatomy("sweep report " + store.string() + " --out " + (dir / "again.html").string());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(slurp(dir / "again.html"), html);
}

}  // namespace
