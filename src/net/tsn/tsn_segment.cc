#include "net/tsn/tsn_segment.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>

#include "core/error.h"
#include "core/rng.h"
#include "engine/simulator.h"

namespace anatomy::net::tsn {
namespace {

struct Frame {
  uint32_t stream = 0;
  uint32_t message = 0;
  int64_t payload = 0;
  uint16_t hop = 0;
};

struct Message {
  SimTime released;
  int32_t frames_left = 0;
  bool lost = false;
};

struct Port {
  const TsnPortConfig* config = nullptr;
  GateSchedule gates;
  std::array<std::deque<uint32_t>, kClasses> queue;  // frame indices
  std::array<double, kClasses> credit{};             // bits
  SimTime credit_at;
  bool busy = false;
  int sending = -1;
  bool has_cbs = false;
  engine::EventHandle wake;
  SimTime busy_total;
  std::vector<std::pair<SimTime, SimTime>> down;  // outages, by start
};

class Segment {
 public:
  Segment(const SegmentSpec& spec, SimTime window)
      : spec_(spec), window_(window), rng_(core::RngStreams(spec.seed).stream("tsn.frame_loss")) {
    ports_.resize(spec.ports.size());
    for (size_t p = 0; p < ports_.size(); ++p) {
      ports_[p].config = &spec.ports[p];
      ports_[p].gates = GateSchedule(spec.ports[p].gates);
      for (const ClassConfig& c : spec.ports[p].classes) ports_[p].has_cbs |= c.cbs_idle_slope.bps() > 0;
    }
    for (const Outage& o : spec.outages) ports_.at(o.port).down.push_back({o.from, o.to});
    for (Port& p : ports_) std::sort(p.down.begin(), p.down.end());
    messages_.resize(spec.streams.size());
    result_.streams.resize(spec.streams.size());
    for (size_t s = 0; s < spec.streams.size(); ++s) {
      const StreamSpec& st = spec.streams[s];
      ANATOMY_CHECK(!st.hops.empty() && st.period > SimTime::zero() && st.mtu > 0, "stream needs hops, a period and an mtu");
      if (st.offset < window_) sim_.schedule_at(st.offset, [this, s] { release(static_cast<uint32_t>(s)); });
    }
  }

  SegmentResult run() {
    sim_.run();
    for (size_t p = 0; p < ports_.size(); ++p)
      result_.port_utilization.push_back(window_ > SimTime::zero() ? ports_[p].busy_total.seconds() / window_.seconds() : 0);
    for (StreamStats& s : result_.streams) std::sort(s.latency_ps.begin(), s.latency_ps.end());
    result_.events = sim_.events_processed();
    return std::move(result_);
  }

 private:
  void release(uint32_t s) {
    const StreamSpec& st = spec_.streams[s];
    const SimTime now = sim_.now();
    const int64_t frames = (st.message_bytes + st.mtu - 1) / st.mtu;
    const uint32_t m = static_cast<uint32_t>(messages_[s].size());
    messages_[s].push_back({now, static_cast<int32_t>(frames), false});
    ++result_.streams[s].released;
    for (int64_t f = 0; f < frames; ++f) {
      const int64_t payload = std::min(st.mtu, st.message_bytes - f * st.mtu);
      arrive(st.hops[0], new_frame({s, m, payload, 0}));
    }
    if (now + st.period < window_) sim_.schedule_in(st.period, [this, s] { release(s); });
  }

  uint32_t new_frame(const Frame& f) {
    if (free_.empty()) {
      frames_.push_back(f);
      return static_cast<uint32_t>(frames_.size() - 1);
    }
    const uint32_t i = free_.back();
    free_.pop_back();
    frames_[i] = f;
    return i;
  }

  bool is_down(const Port& p, SimTime t, SimTime* until) const {
    for (const auto& [from, to] : p.down)
      if (t >= from && t < to) {
        *until = to;
        return true;
      }
    return false;
  }

  void arrive(int port, uint32_t fi) {
    Port& p = ports_[port];
    const Frame& f = frames_[fi];
    const StreamSpec& st = spec_.streams[f.stream];
    SimTime until;
    if (!st.retransmit && is_down(p, sim_.now(), &until)) return lose(fi);
    update_credits(p);
    p.queue[st.priority].push_back(fi);
    try_send(port);
  }

  void lose(uint32_t fi) {
    const Frame f = frames_[fi];
    free_.push_back(fi);
    Message& m = messages_[f.stream][f.message];
    if (!m.lost) {
      m.lost = true;
      ++result_.streams[f.stream].lost;
      if (spec_.streams[f.stream].deadline > SimTime::zero()) ++result_.streams[f.stream].deadline_misses;
    }
  }

  // Credits change linearly between events; integrate them piece by piece
  // over the gate changes since the last update (a closed gate freezes them).
  void update_credits(Port& p) {
    const SimTime now = sim_.now();
    if (!p.has_cbs) {
      p.credit_at = now;
      return;
    }
    SimTime t = p.credit_at;
    while (t < now) {
      const SimTime end = std::min(now, p.gates.next_change(t));
      const double dt = (end - t).seconds();
      for (int c = 0; c < kClasses; ++c) {
        const double idle = p.config->classes[c].cbs_idle_slope.bps();
        if (idle <= 0) continue;
        double& credit = p.credit[c];
        if (p.busy && p.sending == c) credit += (idle - p.config->rate.bps()) * dt;
        else if (!p.gates.open(c, t)) continue;
        else if (!p.queue[c].empty()) credit += idle * dt;
        else credit = credit < 0 ? std::min(0.0, credit + idle * dt) : 0.0;
      }
      t = end;
    }
    p.credit_at = now;
  }

  void try_send(int port) {
    Port& p = ports_[port];
    if (p.busy) return;
    const SimTime now = sim_.now();
    SimTime up_at;
    if (is_down(p, now, &up_at)) return schedule_wake(port, up_at);
    SimTime wake = SimTime::max();
    for (int c = kClasses - 1; c >= 0; --c) {
      if (p.queue[c].empty()) continue;
      const Frame& f = frames_[p.queue[c].front()];
      const SimTime ft = frame_time(f.payload, p.config->rate);
      const double idle = p.config->classes[c].cbs_idle_slope.bps();
      const SimTime open = p.gates.open_for(c, now);
      if (open < ft) {  // closed, or too little of the window left: wait for the next change
        wake = std::min(wake, p.gates.next_change(now));
        continue;
      }
      if (idle > 0 && p.credit[c] < -1e-6) {
        wake = std::min(wake, now + SimTime::ps(static_cast<int64_t>(std::ceil(-p.credit[c] / idle * 1e12))));
        continue;
      }
      start(port, c, ft);
      return;
    }
    if (wake != SimTime::max()) schedule_wake(port, wake);
  }

  void schedule_wake(int port, SimTime at) {
    Port& p = ports_[port];
    if (p.wake.valid() && sim_.is_pending(p.wake)) sim_.cancel(p.wake);
    p.wake = sim_.schedule_cancellable_at(at, [this, port] {
      update_credits(ports_[port]);
      try_send(port);
    });
  }

  void start(int port, int c, SimTime ft) {
    Port& p = ports_[port];
    const uint32_t fi = p.queue[c].front();
    p.queue[c].pop_front();
    p.busy = true;
    p.sending = c;
    p.busy_total += ft;
    sim_.schedule_in(ft, [this, port, fi] { sent(port, fi); });
  }

  void sent(int port, uint32_t fi) {
    Port& p = ports_[port];
    update_credits(p);
    p.busy = false;
    p.sending = -1;
    forward(port, fi);
    update_credits(p);
    try_send(port);
  }

  void forward(int port, uint32_t fi) {
    Frame& f = frames_[fi];
    const StreamSpec& st = spec_.streams[f.stream];
    if (spec_.frame_loss > 0 && rng_.bernoulli(spec_.frame_loss)) {
      if (!st.retransmit) return lose(fi);
      ++result_.streams[f.stream].retransmissions;
      f.hop = 0;
      sim_.schedule_in(st.retransmit_after, [this, fi] { arrive(spec_.streams[frames_[fi].stream].hops[0], fi); });
      return;
    }
    const SimTime latency = ports_[port].config->latency;
    if (static_cast<size_t>(f.hop) + 1 < st.hops.size()) {
      ++f.hop;
      const int next = st.hops[f.hop];
      sim_.schedule_in(latency, [this, next, fi] { arrive(next, fi); });
      return;
    }
    sim_.schedule_in(latency, [this, fi] { deliver(fi); });
  }

  void deliver(uint32_t fi) {
    const Frame f = frames_[fi];
    free_.push_back(fi);
    Message& m = messages_[f.stream][f.message];
    if (--m.frames_left > 0 || m.lost) return;
    const StreamSpec& st = spec_.streams[f.stream];
    StreamStats& s = result_.streams[f.stream];
    const SimTime latency = sim_.now() - m.released;
    ++s.delivered;
    if (st.measured) {
      s.latency_ps.push_back(latency.count_ps());
      s.deliveries.push_back({m.released.count_ps(), latency.count_ps()});
    }
    if (st.deadline > SimTime::zero() && latency > st.deadline) ++s.deadline_misses;
  }

  const SegmentSpec& spec_;
  SimTime window_;
  core::Rng rng_;
  engine::Simulator sim_;
  std::vector<Port> ports_;
  std::vector<Frame> frames_;
  std::vector<uint32_t> free_;
  std::vector<std::vector<Message>> messages_;
  SegmentResult result_;
};

}  // namespace

SegmentResult simulate_segment(const SegmentSpec& spec, SimTime window) { return Segment(spec, window).run(); }

int64_t quantile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(q * static_cast<double>(sorted.size()));
  const size_t i = rank < 1 ? 0 : std::min(sorted.size() - 1, static_cast<size_t>(rank) - 1);
  return sorted[i];
}

}  // namespace anatomy::net::tsn
