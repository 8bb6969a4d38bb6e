#pragma once
// BufferPolicy: whether a switch has room for one more packet at an egress
// port. The policy is injected into the packet network (a small strategy,
// not a switch in the port code); the network keeps the counts.
//
// Shared buffer with dynamic thresholds (Choudhury & Hahne, 1998): all
// ports of a switch draw on one pool of B bytes; a port may hold at most
// alpha x (B - used) bytes, so one congested port can take B alpha/(1+alpha)
// of the pool, and N congested ports share it as B alpha/(1 + N alpha) each.
// Static: every port owns a fixed share and nothing is borrowed.
//
//   SharedBufferPolicy p(Bytes::MiB(32), 0.125);
//   bool ok = p.admit(/*port_bytes=*/1 << 20, /*switch_used=*/4 << 20, /*bytes=*/4178);

#include <cstdint>
#include <memory>

#include "net/packet/config.h"

namespace anatomy::net::packet {

class BufferPolicy {
 public:
  virtual ~BufferPolicy() = default;
  // May `bytes` more join a port that holds `port_bytes`, in a switch whose
  // ports hold `switch_used` in all?
  virtual bool admit(int64_t port_bytes, int64_t switch_used, int64_t bytes) const = 0;
  virtual const char* name() const = 0;
};

class SharedBufferPolicy final : public BufferPolicy {
 public:
  SharedBufferPolicy(Bytes pool, double alpha) : pool_(pool.count()), alpha_(alpha) {}
  bool admit(int64_t port_bytes, int64_t switch_used, int64_t bytes) const override {
    const int64_t after = switch_used + bytes;
    if (after > pool_) return false;
    return static_cast<double>(port_bytes + bytes) <= alpha_ * static_cast<double>(pool_ - switch_used);
  }
  const char* name() const override { return "shared"; }

 private:
  int64_t pool_;
  double alpha_;
};

class StaticBufferPolicy final : public BufferPolicy {
 public:
  explicit StaticBufferPolicy(Bytes per_port) : per_port_(per_port.count()) {}
  bool admit(int64_t port_bytes, int64_t, int64_t bytes) const override { return port_bytes + bytes <= per_port_; }
  const char* name() const override { return "static"; }

 private:
  int64_t per_port_;
};

// The policy a config asks for.
std::unique_ptr<BufferPolicy> make_buffer_policy(const PacketConfig& c);

}  // namespace anatomy::net::packet
