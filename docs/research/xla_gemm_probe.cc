// The GEMM rate anatomy's compute model gives a system preset, shape by
// shape, as a scenario on that system gets it (shipped calibration table and
// what it borrows): the numbers behind docs/research/xla-gemm-cross-check.md.
// Not part of the build. From the repository root, after `make build`:
//
//   L=build; g++ -std=c++20 -O1 -Isrc -Ibuild -o /tmp/gemm_probe docs/research/xla_gemm_probe.cc \
//     $L/libanatomy_app.a $L/libanatomy_workload.a $L/libanatomy_job.a $L/libanatomy_fleet.a \
//     $L/libanatomy_sweep.a $L/libanatomy_report.a $L/libanatomy_coll.a $L/libanatomy_net.a \
//     $L/libanatomy_topo.a $L/libanatomy_scenario.a $L/libanatomy_hw.a $L/libanatomy_engine.a \
//     $L/libanatomy_core.a $L/libanatomy_chakra_proto.a -lyaml-cpp -lfmt -lsqlite3 -lprotobuf -lpthread
//   echo "1 4096 4096 4096 bf16" | ANATOMY_DATA_DIR=$PWD/data /tmp/gemm_probe dgx-b200
//
// stdin: lines "batch m n k bf16|fp8" (a batch of b GEMMs priced as one of
// b*m rows); stdout: the same with TFLOP/s appended; stderr: the model's
// description (which table it read, what it borrowed).

#include <cstdio>
#include <string>

#include "app/setup.h"
#include "hw/compute_model.h"
#include "scenario/scenario.h"

int main(int argc, char** argv) {
  using namespace anatomy;
  if (argc != 2) {
    std::fprintf(stderr, "usage: gemm_probe SYSTEM_PRESET < shapes\n");
    return 2;
  }
  const std::string yaml = std::string("model: llama3-8b\ncluster: {system: ") + argv[1] + ", gpus: 8}\n";
  const scenario::Scenario s = scenario::parse_scenario(yaml, "probe.yaml");
  const auto table = app::calibration_of(s);
  const hw::ComputeModel cm = hw::make_compute_model(s.cluster.system.gpu, table ? &*table : nullptr);
  std::fprintf(stderr, "%s\n", cm.describe().c_str());
  long b, m, n, k;
  char dt[32];
  while (std::scanf("%ld %ld %ld %ld %31s", &b, &m, &n, &k, dt) == 5) {
    const hw::Precision p = std::string(dt) == "fp8" ? hw::Precision::kFp8 : hw::Precision::kBf16;
    const double seconds = cm.gemm(b * m, n, k, p).seconds();
    std::printf("%ld %ld %ld %ld %s %.6g\n", b, m, n, k, dt, 2.0 * b * m * n * k / seconds / 1e12);
  }
}
