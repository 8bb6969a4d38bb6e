#include "report/catalog_text.h"

#include <fmt/format.h>

#include <iterator>

#include "coll/algorithm.h"
#include "core/units.h"
#include "hw/catalog.h"
#include "workload/model.h"

namespace anatomy::report {

std::string catalog_text() {
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "systems:\n");
  for (const auto& s : hw::systems()) fmt::format_to(to, "  {:<12} {}\n", s.name, s.description);
  fmt::format_to(to, "\naccelerators (dense TFLOP/s BF16 / FP8, HBM, scale-up per direction, TDP):\n");
  for (const auto& a : hw::accelerators())
    fmt::format_to(to, "  {:<8} {:>6.0f} / {:>6.0f}  {:>6} at {:>9}  {:>8}  {:>5.0f} W  ({})\n", a.name, a.bf16_tflops,
                   a.fp8_tflops, core::format_bytes(a.hbm_capacity), core::format_bytes_rate(a.hbm_bandwidth),
                   core::format_bytes_rate(a.scaleup_bandwidth), a.tdp_watts, a.source);
  fmt::format_to(to, "\nmodel presets (parameters, layers x hidden, attention heads / key-value heads):\n");
  for (const auto& m : workload::model_presets())
    fmt::format_to(to, "  {:<15} {:>7}  {:>3} x {:<6} {:>3} / {:<3}  {}\n", m.name, core::format_count(m.params()),
                   m.layers, m.hidden, m.heads, m.kv_heads, m.description);
  coll::AlgorithmRegistry reg;
  coll::register_builtin_algorithms(reg);
  fmt::format_to(to, "\ncollective algorithms:\n");
  for (const auto& a : reg.all()) {
    std::string ops;
    for (auto op : a.ops) ops += (ops.empty() ? "" : ", ") + std::string(coll::to_string(op));
    fmt::format_to(to, "  {:<13} {}\n  {:<13} ops: {}{}\n", a.name, a.description, "", ops,
                   a.in_auto ? "" : " (not chosen by auto: not an NCCL algorithm)");
  }
  return out;
}

}  // namespace anatomy::report
