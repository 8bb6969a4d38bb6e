#include "net/packet/buffer_policy.h"

namespace anatomy::net::packet {

const char* to_string(LoadBalancing lb) {
  switch (lb) {
    case LoadBalancing::kAuto: return "auto";
    case LoadBalancing::kEcmp: return "ecmp";
    case LoadBalancing::kSpray: return "spray";
    case LoadBalancing::kAdaptive: return "adaptive";
  }
  return "?";
}

const char* to_string(BufferKind b) { return b == BufferKind::kShared ? "shared" : "static"; }

const char* to_string(FabricKind f) { return f == FabricKind::kEndpoint ? "endpoint" : "switch-scheduled"; }

std::unique_ptr<BufferPolicy> make_buffer_policy(const PacketConfig& c) {
  if (c.buffer == BufferKind::kStatic) return std::make_unique<StaticBufferPolicy>(c.port_buffer);
  return std::make_unique<SharedBufferPolicy>(c.switch_buffer, c.dt_alpha);
}

}  // namespace anatomy::net::packet
