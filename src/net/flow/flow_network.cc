#include "net/flow/flow_network.h"

#include <cmath>

#include "core/error.h"
#include "core/rng.h"

namespace anatomy::net {

FlowNetwork::FlowNetwork(engine::Simulator& sim, const topo::Topology& topo, Options options)
    : sim_(sim),
      topo_(topo),
      options_(options),
      link_flows_(topo.num_links()),
      link_bits_(topo.num_links(), 0.0),
      link_dirty_(topo.num_links(), 0),
      link_local_(topo.num_links(), UINT32_MAX) {}

uint32_t FlowNetwork::new_flow() {
  if (!free_flows_.empty()) {
    const uint32_t fi = free_flows_.back();
    free_flows_.pop_back();
    return fi;
  }
  flows_.emplace_back();
  flow_seen_.push_back(0);
  return static_cast<uint32_t>(flows_.size() - 1);
}

TransferId FlowNetwork::transfer(NodeId src, NodeId dst, Bytes bytes, Callback on_done,
                                 const TransferOptions& options) {
  ANATOMY_CHECK(bytes.count() >= 0, "a transfer cannot move negative bytes");
  const TransferId id = next_id_++;
  ++counters_.transfers_started;
  ++in_flight_;
  const uint32_t fi = new_flow();
  Flow& f = flows_[fi];
  f.id = id;
  f.path.clear();
  f.pos.clear();
  const uint64_t hash = options.flow_hash != 0          ? options.flow_hash
                        : options_.route_by_connection ? connection_hash(src, dst)
                                                       : core::mix64(id ^ (uint64_t{src} << 32) ^ dst);
  topo_.route(src, dst, hash, f.path);
  f.latency = SimTime::zero();
  for (LinkId l : f.path) f.latency += topo_.link(l).latency;
  f.remaining_bits = static_cast<double>(bytes.count()) * 8.0;
  f.rate = 0;
  f.last_update = sim_.now();
  f.on_done = std::move(on_done);
  f.bytes = bytes;
  f.complete_on_send = options.complete_on_send;
  if (options.complete_on_ack && !f.complete_on_send) f.latency += path_latency(dst, src, options.flow_hash);
  if (f.path.empty() || bytes.count() == 0) {
    // Nothing to drain: the data (or the empty message) only travels.
    f.draining = false;
    sim_.schedule_in(f.complete_on_send ? SimTime::zero() : f.latency, [this, fi] { deliver(fi); });
    return id;
  }
  f.draining = true;
  f.pos.resize(f.path.size());
  for (size_t h = 0; h < f.path.size(); ++h) {
    const LinkId l = f.path[h];
    f.pos[h] = static_cast<uint32_t>(link_flows_[l].size());
    link_flows_[l].push_back(fi);
    if (!link_dirty_[l]) {
      link_dirty_[l] = 1;
      dirty_.push_back(l);
    }
  }
  request_solve();
  return id;
}

void FlowNetwork::request_solve(SimTime delay) {
  // One solve runs after every event already queued for its instant, so
  // flows that start or end together are solved once; a sooner request
  // (a flow starting while a batched solve waits) gets its own solve, and
  // the later one then finds less or nothing to do.
  const SimTime at = sim_.now() + delay;
  if (solve_pending_ && next_solve_ <= at) return;
  solve_pending_ = true;
  next_solve_ = at;
  sim_.schedule_at(at, [this, at] {
    if (next_solve_ == at) solve_pending_ = false;
    if (!dirty_.empty()) solve();
  });
}

void FlowNetwork::settle(Flow& f, SimTime now) {
  if (now > f.last_update && f.rate > 0) {
    const double moved = std::min(f.remaining_bits, f.rate * (now - f.last_update).seconds());
    f.remaining_bits -= moved;
    for (LinkId l : f.path) link_bits_[l] += moved;
  }
  f.last_update = now;
}

void FlowNetwork::unlink(uint32_t fi) {
  Flow& f = flows_[fi];
  for (size_t h = 0; h < f.path.size(); ++h) {
    const LinkId l = f.path[h];
    auto& list = link_flows_[l];
    const uint32_t at = f.pos[h];
    const uint32_t moved = list.back();
    list[at] = moved;
    list.pop_back();
    if (moved != fi) {
      Flow& m = flows_[moved];
      for (size_t k = 0; k < m.path.size(); ++k)
        if (m.path[k] == l && m.pos[k] == list.size()) {
          m.pos[k] = at;
          break;
        }
    } else {
      // The flow crosses l again later on its path: that entry may have moved.
      for (size_t k = h + 1; k < f.path.size(); ++k)
        if (f.path[k] == l && f.pos[k] == list.size()) f.pos[k] = at;
    }
    if (!link_dirty_[l]) {
      link_dirty_[l] = 1;
      dirty_.push_back(l);
    }
  }
}

void FlowNetwork::solve() {
  const SimTime now = sim_.now();
  // The component of the flow-link graph reachable from the changed links.
  comp_links_.clear();
  comp_flows_.clear();
  for (LinkId l : dirty_) {
    link_dirty_[l] = 0;
    if (link_local_[l] == UINT32_MAX) {
      link_local_[l] = static_cast<uint32_t>(comp_links_.size());
      comp_links_.push_back(l);
    }
  }
  dirty_.clear();
  for (size_t i = 0; i < comp_links_.size(); ++i) {
    for (uint32_t fi : link_flows_[comp_links_[i]]) {
      if (flow_seen_[fi]) continue;
      flow_seen_[fi] = 1;
      comp_flows_.push_back(fi);
      for (LinkId l : flows_[fi].path) {
        if (link_local_[l] == UINT32_MAX) {
          link_local_[l] = static_cast<uint32_t>(comp_links_.size());
          comp_links_.push_back(l);
        }
      }
    }
  }
  ++counters_.rate_solves;
  counters_.solved_flows += comp_flows_.size();

  problem_.clear();
  problem_.capacity.reserve(comp_links_.size());
  for (LinkId l : comp_links_) problem_.capacity.push_back(topo_.link(l).bandwidth.bps());
  for (uint32_t fi : comp_flows_) {
    Flow& f = flows_[fi];
    settle(f, now);
    for (LinkId l : f.path) problem_.flow_links.push_back(link_local_[l]);
    problem_.flow_begin.push_back(static_cast<uint32_t>(problem_.flow_links.size()));
  }
  const std::vector<double>& rates = solver_.solve(problem_);

  for (size_t i = 0; i < comp_flows_.size(); ++i) {
    const uint32_t fi = comp_flows_[i];
    Flow& f = flows_[fi];
    flow_seen_[fi] = 0;
    const double r = rates[i];
    if (f.drain_event.valid() && sim_.is_pending(f.drain_event) && r == f.rate) continue;
    f.rate = r;
    sim_.cancel(f.drain_event);
    ANATOMY_CHECK(r > 0, "a draining flow got a zero rate");
    // Multiply before dividing so exact inputs give exact times; the small
    // slack keeps float noise from rounding a whole picosecond up.
    const double ps = std::max(0.0, std::ceil(f.remaining_bits * 1e12 / r - 1e-6));
    f.drain_event = sim_.schedule_cancellable_in(SimTime::ps(static_cast<int64_t>(ps)), [this, fi] { finish_drain(fi); });
  }
  for (LinkId l : comp_links_) link_local_[l] = UINT32_MAX;
  if (signals_->link_rate) emit_link_rates(comp_links_);
}

void FlowNetwork::emit_link_rates(const std::vector<LinkId>& links) {
  if (emitted_rate_.empty()) emitted_rate_.assign(topo_.num_links(), 0.0);
  const SimTime now = sim_.now();
  for (LinkId l : links) {
    double bps = 0;
    for (uint32_t fi : link_flows_[l]) bps += flows_[fi].rate;
    if (bps == emitted_rate_[l]) continue;
    emitted_rate_[l] = bps;
    signals_->link_rate.emit(now, l, bps);
  }
}

void FlowNetwork::finish_drain(uint32_t fi) {
  Flow& f = flows_[fi];
  f.drain_event = {};
  settle(f, sim_.now());
  // Rounding the drain time up to whole picoseconds can leave a sliver.
  for (LinkId l : f.path) link_bits_[l] += f.remaining_bits;
  f.remaining_bits = 0;
  f.rate = 0;
  f.draining = false;
  unlink(fi);
  // A batched solve leaves the freed bandwidth unused until it runs: the
  // links carry less from now (an exact solve at this instant says so itself).
  if (signals_->link_rate && options_.completion_batch > SimTime::zero()) emit_link_rates(f.path);
  request_solve(options_.completion_batch);
  if (f.complete_on_send) {
    deliver(fi);
  } else {
    sim_.schedule_in(f.latency, [this, fi] { deliver(fi); });
  }
}

void FlowNetwork::deliver(uint32_t fi) {
  Flow& f = flows_[fi];
  Callback cb = std::move(f.on_done);
  free_flows_.push_back(fi);
  --in_flight_;
  ++counters_.transfers_finished;
  counters_.bytes_delivered += f.bytes;
  if (cb) cb();
}

Bytes FlowNetwork::link_bytes(LinkId l) const {
  // Settled bits, plus what the flows draining through the link have moved
  // since they were last settled: exact at any instant, not only between flows.
  double bits = link_bits_[l];
  const SimTime now = sim_.now();
  for (uint32_t fi : link_flows_[l]) {
    const Flow& f = flows_[fi];
    if (now > f.last_update && f.rate > 0)
      bits += std::min(f.remaining_bits, f.rate * (now - f.last_update).seconds());
  }
  return Bytes(std::llround(bits / 8.0));
}

double FlowNetwork::rate_bps(TransferId id) const {
  for (const Flow& f : flows_)
    if (f.id == id && f.draining) return f.rate;
  return 0.0;
}

}  // namespace anatomy::net
