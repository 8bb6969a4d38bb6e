#include "report/kernel_text.h"

#include <fmt/format.h>

#include "report/schema.h"

namespace anatomy::report {

double kernel_tflops(const KernelTiming& k) { return k.time.seconds() > 0 ? k.flops / k.time.seconds() / 1e12 : 0; }
double kernel_GBps(const KernelTiming& k) { return k.time.seconds() > 0 ? k.bytes / k.time.seconds() / 1e9 : 0; }

std::string kernel_case_text(const scenario::Scenario& s, const KernelTiming& k) {
  std::string out = fmt::format("# anatomy run: {}{}\n", s.name, s.file.empty() ? "" : fmt::format(" ({})", s.file));
  out += fmt::format("# kernel: {}, alone on one {} of {}\n", k.what, s.cluster.system.gpu.name, s.cluster.system.name);
  out += fmt::format("# compute: {}\n\n", k.compute);
  out += fmt::format("time              {:.3f} us\n", k.time.micros());
  if (k.bytes > 0)
    out += fmt::format("GB/s              {:.1f} ({:.4g} B read plus written)\n", kernel_GBps(k), k.bytes);
  else
    out += fmt::format("TFLOP/s           {:.1f} ({:.4g} FLOPs)\n", kernel_tflops(k), k.flops);
  return out;
}

nlohmann::ordered_json kernel_case_json(const scenario::Scenario& s, const KernelTiming& k) {
  nlohmann::ordered_json j = schema_header("run.kernel");
  j["scenario"] = s.name;
  j["kernel"] = k.what;
  j["gpu"] = s.cluster.system.gpu.name;
  j["time_us"] = k.time.micros();
  // A stream kernel moves bytes and does no arithmetic worth a rate: each kind
  // reports the figure it is validated in, as the text does.
  if (k.bytes > 0) {
    j["bytes"] = k.bytes;
    j["GBps"] = kernel_GBps(k);
  } else {
    j["flops"] = k.flops;
    j["tflops"] = kernel_tflops(k);
  }
  j["compute"] = k.compute;
  return j;
}

}  // namespace anatomy::report
