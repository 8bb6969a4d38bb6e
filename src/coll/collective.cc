#include "coll/collective.h"

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::coll {

CollectiveResult CollectiveRunner::run_one(const Group& g, const Request& r, const Algorithm& a) const {
  return run_on(make_network_, g, r, a);
}

CollectiveResult CollectiveRunner::run_on(const NetworkFactory& make, const Group& g, const Request& r,
                                          const Algorithm& a) const {
  if (!a.supports(r.op))
    throw core::InputError({"", 0, "--algo"}, fmt::format("{} does not implement {}", a.name, to_string(r.op)));
  if (!a.applicable(g, r.op))
    throw core::InputError({"", 0, "--algo"},
                           fmt::format("{} cannot run {} on this group ({} GPUs in {} domains)", a.name,
                                       to_string(r.op), g.size(), g.domains.size()));
  return simulate(make, g, r, a.build(g, r, lib_));
}

CollectiveResult CollectiveRunner::simulate(const NetworkFactory& make, const Group& g, const Request& r,
                                            const Schedule& s) const {
  engine::Simulator sim;
  std::unique_ptr<net::Network> net = make(sim, topo_);
  Executor exec(*net, Executor::Options{.exclusive = true});
  bool done = false;
  exec.start(s, [&] { done = true; });
  sim.run();
  ANATOMY_CHECK(done, "the collective did not finish");

  CollectiveResult out;
  out.op = r.op;
  out.bytes = r.bytes;
  out.ranks = g.size();
  out.algorithm = s.algorithm;
  out.protocol = s.protocol;
  out.time = exec.stats().end - exec.stats().start;
  out.channels = s.channels;
  out.steps = s.steps;
  out.stats = exec.stats();
  out.network = net->counters();
  const double secs = out.time.seconds();
  out.algbw_GBps = secs > 0 ? r.bytes.as_double() / secs / 1e9 : 0.0;
  out.busbw_GBps = out.algbw_GBps * busbw_factor(r.op, g.size());
  return out;
}

CollectiveResult CollectiveRunner::run(const Group& g, const Request& r, const std::string& algo) const {
  if (algo != "auto") return run_one(g, r, reg_.find(algo));
  if (!choose_on_) return fastest(make_network_, g, r);
  const CollectiveResult pick = fastest(choose_on_, g, r);
  Request chosen = r;
  chosen.protocol = parse_protocol(pick.protocol, "protocol");
  std::string name = pick.algorithm;
  if (name.rfind("nvls", 0) == 0) name = "nvls";  // nvls-tree, nvls-sharp: one registry entry
  CollectiveResult out = run_one(g, chosen, reg_.find(name));
  out.chosen_elsewhere = true;
  return out;
}

namespace {

// The least a schedule can take on any network: its launch, its phases'
// latencies and its protocol's floor under each repetition (Executor: a
// repetition lasts at least min_duration, then the phase waits latency_after).
SimTime schedule_floor(const Schedule& s) {
  SimTime t = s.base_latency;
  for (const Phase& p : s.phases) t += p.min_duration * p.repeat + p.latency_after;
  return t;
}

}  // namespace

CollectiveResult CollectiveRunner::fastest(const NetworkFactory& make, const Group& g, const Request& r) const {
  // Candidates in registry order; the pick is the first of the fastest.
  std::vector<std::pair<const Algorithm*, Protocol>> candidates;
  for (const Algorithm& a : reg_.all()) {
    if (!a.in_auto || !a.supports(r.op) || !a.applicable(g, r.op)) continue;
    for (Protocol p : a.protocols)
      if (p != Protocol::kLL128 || lib_.ll128) candidates.emplace_back(&a, p);
  }
  if (candidates.empty())
    throw core::InputError({"", 0, "--algo"}, fmt::format("no algorithm implements {} on this group", to_string(r.op)));
  // Last first: NCCL registers its bandwidth-bound algorithms and protocols
  // last, and a fast time found early spares simulating what cannot beat it.
  // Each candidate comes before every one seen so far, so it wins a tie; one
  // whose floor is above the best time cannot win at all.
  bool have = false;
  CollectiveResult best;
  for (size_t i = candidates.size(); i-- > 0;) {
    Request rp = r;
    rp.protocol = candidates[i].second;
    const Schedule s = candidates[i].first->build(g, rp, lib_);
    if (have && schedule_floor(s) > best.time) continue;
    CollectiveResult res = simulate(make, g, rp, s);
    if (!have || res.time <= best.time) {
      best = std::move(res);
      have = true;
    }
  }
  return best;
}

}  // namespace anatomy::coll
