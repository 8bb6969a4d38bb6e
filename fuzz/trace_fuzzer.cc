// libFuzzer target: the training-trace readers (Chakra ET protobuf, PyTorch
// profiler + execution-trace JSON), the trace checks and the replay, as
// `anatomy replay DIR` runs them. The first byte picks the kind ('c':
// Chakra, one file per rank; anything else: PyTorch, profiler and
// execution trace per rank, alternating, an empty body for a missing file);
// the rest is the files (fuzz/fuzz_files.h). Every input must replay or
// give one core::InputError that names a file in the folder (or the
// folder); anything else is a finding.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/replay.h"
#include "core/error.h"
#include "fuzz_files.h"

namespace {
constexpr size_t kMaxFiles = 8;  // 8 Chakra ranks, or 4 PyTorch ranks
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  using namespace anatomy;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const bool chakra = input[0] == 'c';
  const std::vector<std::string> files = fuzz::split_files(input.substr(1), kMaxFiles);
  const std::string dir = fuzz::fresh_dir("anatomy-trace-fuzz");
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].empty()) continue;
    const std::string name = chakra ? "trace." + std::to_string(i) + ".et"
                                    : (i % 2 == 0 ? "kineto_rank" : "et_rank") + std::to_string(i / 2) + ".json";
    fuzz::write_file(dir + "/" + name, files[i]);
  }
  // The recorded machine: one 8-GPU host, so that 1, 2, 4 or 8 ranks
  // replicate to 8 and any other count replays as it is.
  fuzz::write_file(dir + "/machine.yaml", "name: fuzz host\nmodel: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\n");
  try {
    app::ReplayRequest q;
    q.trace_dir = dir;
    app::run_replay(q);
  } catch (const core::InputError& e) {
    if (!fuzz::names_a_file_in(e.where().file, dir)) {
      std::fprintf(stderr, "error without a trace file: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
