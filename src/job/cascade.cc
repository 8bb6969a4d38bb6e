#include "job/cascade.h"

#include <algorithm>

#include <fmt/format.h>

namespace anatomy::job {

CongestionEffect measure_congestion(const CongestionSpec& spec, const workload::IterationInputs& iteration,
                                    const workload::IterationResult& steady) {
  CongestionEffect e;
  e.steady = e.slowed = steady.iteration;
  e.give_up = spec.retry_timeout * spec.retry_count;
  // 1. The busiest fabric link of the steady iteration congests.
  const workload::LinkLoad* busiest = nullptr;
  for (const auto& l : steady.busiest_links)
    if (l.kind == "fabric") {
      busiest = &l;
      break;
    }
  if (busiest == nullptr) return e;
  e.crosses_fabric = true;
  e.link = fmt::format("{} ({} link, {:.0f}% busy)", busiest->name, busiest->kind,
                       100 * busiest->utilization);
  topo::Topology degraded = *iteration.topology;
  degraded.scale_link_bandwidth(busiest->link, std::max(1e-6, spec.bandwidth_fraction));
  workload::IterationInputs with = iteration;
  with.topology = &degraded;
  e.slowed = workload::simulate_iteration(with).iteration;
  e.slowdown = e.slowed.seconds() / e.steady.seconds();
  // 2. A flow on the link stalls only if the link is effectively down; a
  // slowed one keeps making progress. A stall that outlasts the retries
  // fails the job when they run out: it crashes first and is slowed only
  // until then.
  e.stalls = spec.bandwidth_fraction < 1e-3;
  e.fails_job = e.stalls && spec.duration >= e.give_up;
  e.window = e.fails_job ? e.give_up : spec.duration;
  e.cost = SimTime::from_seconds(e.window.seconds() * (1 - 1 / e.slowdown));
  return e;
}

CascadeResult describe_cascade(const CongestionSpec& spec, const CongestionEffect& e, const CascadeOutcome& o) {
  CascadeResult out;
  out.at = o.at;
  out.happened = o.happened;
  out.failed_job = o.happened && o.crashed;
  if (!e.crosses_fabric) {
    out.chain.push_back({"congestion", "the iteration sends nothing over the scale-out fabric: nothing to congest",
                         SimTime::zero()});
    return out;
  }
  const std::string when = fmt::format("at {:.2f} h", o.at.seconds() / 3600);
  if (!o.happened) {
    out.chain.push_back({"congestion",
                         fmt::format("{}: the job has ended by then, so the event costs it nothing", when),
                         SimTime::zero()});
    return out;
  }
  const bool clipped = o.congestion < e.cost;
  out.chain.push_back(
      {"congestion",
       fmt::format("{} {} at {:.3g}% of its bandwidth for {}: an iteration takes {} instead of {} ({:.2f}x), so "
                   "{} of it costs {}{}{}",
                   when, e.link, 100 * spec.bandwidth_fraction, core::format_time(spec.duration),
                   core::format_time(e.slowed), core::format_time(e.steady), e.slowdown, core::format_time(e.window),
                   core::format_time(o.congestion), clipped ? " (the job ends first)" : "",
                   e.fails_job ? " of waiting on the dead link (failure recovery)"
                               : " (exposed communication in the job's GPU-hours)"),
       o.congestion});
  out.total += o.congestion;

  if (e.fails_job && !o.crashed) {
    out.chain.push_back({"transport timeout",
                         fmt::format("the link is down for {} >= {} ({} retries x {}), but the job ends or another "
                                     "failure strikes before the queue pairs give up",
                                     core::format_time(spec.duration), core::format_time(e.give_up), spec.retry_count,
                                     core::format_time(spec.retry_timeout)),
                         SimTime::zero()});
    return out;
  }
  if (!e.fails_job) {
    out.chain.push_back(
        {"transport timeout",
         fmt::format("{}: queue pairs give up after {} retries x {} = {}; {} — no timeout, no retry storm, the chain "
                     "stops here",
                     e.stalls ? "the link is effectively down" : "traffic still flows on the congested link",
                     spec.retry_count, core::format_time(spec.retry_timeout), core::format_time(e.give_up),
                     e.stalls ? fmt::format("the outage lasts {}", core::format_time(spec.duration))
                              : "a slowed packet is acknowledged well within a retry timeout"),
         SimTime::zero()});
    return out;
  }
  out.chain.push_back({"transport timeout",
                       fmt::format("the link is down for {} >= {} ({} retries x {}): NCCL reports a transport error "
                                   "and the job crashes; detection, teardown and restart take {} (failure recovery), "
                                   "and the {} iterations since the last checkpoint, {} of work, are lost (lost work)",
                                   core::format_time(spec.duration), core::format_time(e.give_up), spec.retry_count,
                                   core::format_time(spec.retry_timeout), core::format_time(o.crash_recovery),
                                   o.lost_iterations, core::format_time(o.lost)),
                       o.crash_recovery + o.lost});
  out.total += o.crash_recovery + o.lost;

  // 3-4. The restart reloads the checkpoint: every GPU at once.
  const double servers = static_cast<double>(std::max<size_t>(1, o.storage_servers));
  out.chain.push_back(
      {"checkpoint load storm",
       fmt::format("{} GPUs read {} of checkpoint from {} storage servers at once in {} ({:.0f} GB/s in all); "
                   "counted in the restart above",
                   o.gpus, core::format_bytes(o.checkpoint_bytes), servers, core::format_time(o.checkpoint_load),
                   o.checkpoint_load > SimTime::zero() ? o.checkpoint_bytes.as_double() / o.checkpoint_load.seconds() / 1e9
                                                       : 0.0),
       SimTime::zero()});
  return out;
}

}  // namespace anatomy::job
