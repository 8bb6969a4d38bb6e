#include <fmt/format.h>

#include "core/error.h"
#include "topo/builders.h"

namespace anatomy::topo {

Topology build_torus(const std::vector<uint32_t>& dims, Bandwidth link_bandwidth, SimTime hop_latency) {
  using core::InputError;
  if (dims.empty()) throw InputError({"", 0, "torus.dims"}, "needs at least one dimension");
  uint64_t n = 1;
  for (uint32_t d : dims) {
    if (d < 1) throw InputError({"", 0, "torus.dims"}, "every dimension must be at least 1");
    n *= d;
  }
  if (n < 1 || n > 1'048'576) throw InputError({"", 0, "torus.dims"}, "must hold 1 to 1,048,576 devices");
  if (link_bandwidth.bps() <= 0) throw InputError({"", 0, "torus.bandwidth"}, "must be greater than zero");

  Topology t;
  t.pxn = false;
  Domain dom;
  dom.kind = DomainKind::kTorus;
  dom.first_gpu = 0;
  dom.num_gpus = static_cast<uint32_t>(n);
  dom.dims = dims;
  const uint32_t d = t.add_domain(dom);
  std::vector<NodeId> node(n);
  for (uint32_t i = 0; i < n; ++i) {
    node[i] = t.add_node(NodeKind::kGpu);
    t.add_gpu(node[i], d, i);
  }
  uint32_t stride = 1;
  for (uint32_t size : dims) {
    if (size > 1) {
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t coord = (i / stride) % size;
        // One cable to the +1 neighbour; with size 2 the -1 neighbour is the same device.
        if (size == 2 && coord == 1) continue;
        const uint32_t next = i - coord * stride + ((coord + 1) % size) * stride;
        t.add_cable(node[i], node[next], link_bandwidth, hop_latency, LinkKind::kScaleUp);
      }
    }
    stride *= size;
  }
  t.finalize();
  t.name = dims.size() == 1 ? fmt::format("ring x{}", n) : fmt::format("torus x{}", n);
  std::string shape;
  for (uint32_t s : dims) shape += fmt::format("{}{}", shape.empty() ? "" : "x", s);
  t.description = fmt::format("{} devices in a {} {} at {} per link per direction, {} per hop", n, shape,
                              dims.size() == 1 ? "ring" : "torus", core::format_bytes_rate(link_bandwidth),
                              core::format_time(hop_latency));
  return t;
}

}  // namespace anatomy::topo
