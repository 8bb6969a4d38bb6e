#include "cli/replay_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/calibrate.h"
#include "app/replay.h"
#include "cli/outputs.h"
#include "cli/scenario_options.h"
#include "core/error.h"
#include "report/replay_report.h"
#include "report/run_report.h"
#include "report/trace.h"
#include "workload/trace/chakra.h"

namespace anatomy::cli {
namespace {

struct ReplayArgs {
  app::ReplayRequest request;
  std::string format = "table";
  std::string comm = "model";
  std::string export_chakra;
  OutputOptions outputs;
  ScenarioOptions scenario;
};

void replay(ReplayArgs& a) {
  check_format(a.format);
  check_writable(a.outputs.report, "--report");
  check_writable(a.outputs.trace, "--trace");
  if (a.comm != "model" && a.comm != "recorded")
    throw core::InputError({"", 0, "--comm"}, fmt::format("unknown '{}' (known: model, recorded)", a.comm));
  if (!a.export_chakra.empty() && !std::filesystem::is_directory(a.export_chakra))
    throw core::InputError({"", 0, "--export-chakra"}, fmt::format("no folder '{}'", a.export_chakra));
  a.request.recorded_comm = a.comm == "recorded";
  a.request.overrides = a.scenario.overrides();
  const app::ReplayRun run = app::run_replay(a.request);
  const report::ReplayView view{&run.trace, &run.replay, &run.target, run.target_label, run.source_machine,
                                run.topology, run.ranks, run.assumptions};
  if (!a.export_chakra.empty()) workload::trace::write_chakra(run.trace, a.export_chakra, "trace");
  const workload::IterationResult& r = run.replay.result;
  if (!a.outputs.trace.empty()) {
    report::TraceOptions t;
    t.name = "replay";
    t.links = 0;
    write_output_file(a.outputs.trace, report::chrome_trace(r, r.stage_gpus, t), "--trace");
  }
  if (!a.outputs.report.empty())
    write_output_file(a.outputs.report,
                      report::run_report_html(r, report::replay_page_info(view), r.stage_gpus,
                                              run.target.cluster.system.gpu.hbm_capacity),
                      "--report");
  if (a.format == "json") print_json(report::replay_json(view));
  else std::fputs(report::replay_text(view).c_str(), stdout);
}

}  // namespace

void add_replay_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* sub = app.add_subcommand("replay", "replay a recorded job's traces on a model of its machine, or of another");
  sub->footer(
      "TRACE_DIR holds one of two kinds of trace, one file (or pair) per rank:\n"
      "  Chakra ET (protobuf, Chakra 1.0): <name>.<rank>.et, as Chakra's converters and ASTRA-sim use them;\n"
      "  PyTorch: the profiler's Chrome trace (export_chrome_trace) and the execution trace\n"
      "    (ExecutionTraceObserver, or torch 1.13's ExecutionGraphObserver) of each rank, the rank in\n"
      "    the names (kineto_rank0.json, et_rank0.json); tools/trace_capture.py records a set.\n"
      "Without --on the job replays on the machine it was recorded on (TRACE_DIR/machine.yaml, or --from).\n"
      "--on FILE: that scenario's cluster, network and compute model (its model and plan are not used);\n"
      "compute is rescaled per operator shape by the two compute models; collectives re-timed on its fabric.");
  sub->add_option("trace_dir", args->request.trace_dir, "folder of traces (Chakra .et or PyTorch .json)")->required();
  sub->add_option("--on", args->request.on, "scenario YAML of the machine to replay on (default: the recorded one)");
  sub->add_option("--from", args->request.from, "scenario YAML of the machine the trace was recorded on (default: TRACE_DIR/machine.yaml)");
  sub->add_option("--ranks", args->request.ranks, "ranks to replay on (a multiple of the trace's; default: the target's GPUs)");
  sub->add_option("--comm", args->comm, "collectives: model (re-timed by coll) or recorded (their traced durations)")->capture_default_str();
  sub->add_option("--export-chakra", args->export_chakra, "also write the trace read as Chakra ET (trace.<rank>.et) into this folder");
  sub->add_option("--format", args->format, "table or json")->capture_default_str();
  args->outputs.add_to(*sub, OutputOptions::kReport);
  sub->add_option("--trace", args->outputs.trace, "write the replayed step as a Chrome/Perfetto trace (JSON) here");
  args->scenario.add_to(*sub);
  sub->callback([args, &exit_code] {
    replay(*args);
    exit_code = 0;
  });
}

}  // namespace anatomy::cli

namespace anatomy::cli {

void add_calibrate_command(CLI::App& app, int& exit_code) {
  auto q = std::make_shared<app::CalibrateRequest>();
  CLI::App* sub = app.add_subcommand("calibrate", "measure this machine's GPU (or CPU) into a calibration table");
  sub->footer(
      "Runs tools/calibrate_probe.py (Python + PyTorch): GEMM rates over a grid of shapes, attention fwd/bwd,\n"
      "element-wise ops, the optimizer step, memory bandwidth, host<->device copies and disk writes, written\n"
      "in the format of data/calibration/h200.json; a scenario's compute: {calibration: FILE} reads it.\n"
      "Without a GPU it measures the CPU (fp32 GEMMs filed under the bf16 key; the table's about says so).");
  sub->add_option("--out", q->out, "the table to write (JSON)")->required();
  sub->add_option("--device", q->device, "cuda or cpu (default: a GPU when PyTorch sees one)");
  sub->add_flag("--quick", q->quick, "a small grid of shapes (seconds)");
  sub->add_option("--threads", q->threads, "CPU threads the probe uses")->capture_default_str();
  sub->add_option("--python", q->python, "the Python with PyTorch (default: $ANATOMY_PYTHON, else /usr/bin/python3)");
  sub->callback([q, &exit_code] {
    const app::CalibrateRun r = app::run_calibrate(*q);
    std::printf("%s\n", r.summary.c_str());
    std::printf("wrote %s: %s, %zu GEMM rows, %zu attention rows, memory %.3g GB/s, AdamW %.3g ns/param; "
                "compute: {calibration: %s} loads it\n",
                q->out.c_str(), r.table.gpu_name.c_str(), r.table.gemms.size(), r.table.attention.size(),
                r.table.memory_GBps_rw, r.table.optimizer_ns_per_param, q->out.c_str());
    exit_code = 0;
  });
}

}  // namespace anatomy::cli
