#include "job/cascade.h"

#include <algorithm>

#include <fmt/format.h>

namespace anatomy::job {

CascadeResult trace_cascade(const CongestionSpec& spec, const JobInputs& in, const JobResult& job) {
  CascadeResult out;
  const workload::IterationResult& steady = job.steady;
  const SimTime T = steady.iteration;
  // 1. The busiest fabric link of the steady iteration congests.
  const workload::LinkLoad* busiest = nullptr;
  for (const auto& l : steady.busiest_links)
    if (l.kind == "fabric") {
      busiest = &l;
      break;
    }
  if (busiest == nullptr) {
    out.chain.push_back({"congestion", "the iteration sends nothing over the scale-out fabric: nothing to congest",
                         SimTime::zero()});
    return out;
  }
  topo::Topology degraded = *in.iteration.topology;
  degraded.scale_link_bandwidth(busiest->link, std::max(1e-6, spec.bandwidth_fraction));
  workload::IterationInputs with = in.iteration;
  with.topology = &degraded;
  const workload::IterationResult slow = workload::simulate_iteration(with);
  const double slowdown = slow.iteration.seconds() / T.seconds();
  // While the link is congested training progresses at 1/slowdown of its
  // pace, so the event loses duration x (1 - 1/slowdown) of progress (a job
  // that crashes first loses it only until the crash).
  const SimTime give_up = spec.retry_timeout * spec.retry_count;
  const bool stalls = spec.bandwidth_fraction < 1e-3;
  const SimTime congested = stalls ? std::min(spec.duration, give_up) : spec.duration;
  const SimTime cost = SimTime::from_seconds(congested.seconds() * (1 - 1 / slowdown));
  out.chain.push_back(
      {"congestion",
       fmt::format("{} -> {} ({} link, {:.0f}% busy) at {:.3g}% of its bandwidth for {}: an iteration takes {} instead "
                   "of {} ({:.2f}x), so the event costs {}",
                   busiest->from, busiest->to, busiest->kind, 100 * busiest->utilization, 100 * spec.bandwidth_fraction,
                   core::format_time(spec.duration), core::format_time(slow.iteration), core::format_time(T), slowdown,
                   core::format_time(cost)),
       cost});
  out.total += cost;

  // 2. Does any queue pair give up? A flow on the link stalls only if the
  // link is effectively down; a slowed one keeps making progress.
  if (!stalls || spec.duration < give_up) {
    out.chain.push_back(
        {"transport timeout",
         fmt::format("{}: queue pairs give up after {} retries x {} = {}; {} — no timeout, no retry storm, the chain "
                     "stops here",
                     stalls ? "the link is effectively down" : "traffic still flows on the congested link",
                     spec.retry_count, core::format_time(spec.retry_timeout), core::format_time(give_up),
                     stalls ? fmt::format("the outage lasts {}", core::format_time(spec.duration))
                            : "a slowed packet is acknowledged well within a retry timeout"),
         SimTime::zero()});
    return out;
  }
  out.failed_job = true;
  const FailureSpec& f = in.spec.failures;
  const SimTime lost = (T * std::max<int64_t>(1, job.checkpoint_every)) / 2;  // on average half an interval
  const SimTime crash = f.crash_detection + f.teardown + job.restart.total();
  out.chain.push_back({"transport timeout",
                       fmt::format("the link is down for {} > {} ({} retries x {}): NCCL reports a transport error "
                                   "and the job crashes; detection, teardown and restart take {}, and on average half "
                                   "a checkpoint interval of work, {}, is lost",
                                   core::format_time(spec.duration), core::format_time(give_up), spec.retry_count,
                                   core::format_time(spec.retry_timeout), core::format_time(crash),
                                   core::format_time(lost)),
                       crash + lost});
  out.total += crash + lost;

  // 3-4. The restart reloads the checkpoint: every GPU at once.
  SimTime load;
  for (const auto& p : job.restart.phases)
    if (p.name == "checkpoint load") load = p.duration;
  const double servers = std::max<size_t>(1, in.iteration.topology->storage_nodes().size());
  out.chain.push_back(
      {"checkpoint load storm",
       fmt::format("{} GPUs read {} of checkpoint from {} storage servers at once in {} ({:.0f} GB/s in all); "
                   "counted in the restart above",
                   in.iteration.plan->gpus(), core::format_bytes(job.checkpoint.bytes_total), servers,
                   core::format_time(load), load > SimTime::zero() ? job.checkpoint.bytes_total.as_double() / load.seconds() / 1e9 : 0.0),
       SimTime::zero()});
  return out;
}

}  // namespace anatomy::job
