#pragma once
// JobSpec: what a whole training run is made of beyond one iteration —
// how long it runs, how it starts, how it checkpoints, how its hardware
// fails and is repaired, and what an hour of a GPU costs.
//
// Every figure is an input the report names. Defaults are documented
// framework behaviour or datasheet figures; rates of failure come from the
// scenario (e.g. the per-component rates of Llama 3's census, case C1).

#include <cstdint>
#include <string>
#include <vector>

#include "core/units.h"
#include "job/adaptive_spec.h"

namespace anatomy::job {

using core::Bandwidth;
using core::Bytes;
using core::JobTime;
using core::SimTime;

enum class CheckpointPolicy {
  kSynchronous,   // every rank writes its shard to shared storage; training waits
  kAsynchronous,  // snapshot to host memory (training waits), then written in the background
  kHierarchical,  // write to local NVMe (training waits), then drained to shared storage in the background
};
const char* to_string(CheckpointPolicy p);

struct CheckpointSpec {
  bool enabled = true;
  CheckpointPolicy policy = CheckpointPolicy::kAsynchronous;
  int64_t interval_iterations = 0;  // one of the two intervals must be set
  JobTime interval;                 // wall time between checkpoints
  double compression_ratio = 1.0;   // stored bytes / raw bytes (<= 1)
  Bandwidth compression_rate;       // bytes compressed per second per GPU (0 = no compression)
  Bandwidth host_copy_rate;         // GPU -> host snapshot; 0 = the system's GPU-host link
  Bandwidth local_nvme_rate = Bandwidth::gigabytes_per_s(6);  // per host, hierarchical
};

// One kind of component that can fail, and what happens when it does.
struct FailureClass {
  std::string name;      // "Faulty GPU", "GPU HBM3 Memory", "Network Switch/Cable", ...
  std::string category;  // "GPU", "Network", "Host", "Dependency", ...
  enum class Per { kGpu, kHost, kNic, kSwitch, kJob } per = Per::kGpu;
  double rate_per_unit_day = 0;  // failures per unit per day
  // How the job learns of it: a hang waits for the collective watchdog;
  // a crash is seen at once.
  bool hangs = false;
  bool needs_replacement = true;  // the unit must be swapped (else a restart suffices)
};

struct FailureSpec {
  std::vector<FailureClass> classes;
  SimTime watchdog_timeout = SimTime::sec(600);  // PyTorch NCCL watchdog default (10 min)
  SimTime crash_detection = SimTime::sec(30);    // process exit seen by the launcher
  SimTime teardown = SimTime::sec(60);           // kill, drain, release the allocation
  SimTime reschedule = SimTime::sec(120);        // scheduler finds and attaches a spare
  SimTime repair = SimTime::sec(4 * 3600);       // no spare: wait for repair
  int spare_hosts = 16;                          // hosts held in reserve for replacements
  JobTime planned_interval;                      // planned maintenance restarts (0 = none)
};

struct StartupSpec {
  Bytes image_size = Bytes(int64_t{20} << 30);           // container image
  Bandwidth registry_bandwidth = Bandwidth::gbps(100);  // registry egress, shared by all hosts
  bool image_cached = true;                             // already on the hosts after the first start
  bool peer_to_peer = false;                            // hosts fetch from peers (one registry copy per ...)
  // NCCL/RCCL communicator initialization (named cost inputs):
  SimTime bootstrap_per_rank = SimTime::us(20);         // rank exchange through the bootstrap root
  SimTime topology_discovery = SimTime::sec(2);         // per host, in parallel (NVML, PCI, NIC probing)
  SimTime connect_per_peer = SimTime::ms(2);            // QP/connection setup per peer per channel
  SimTime framework_init = SimTime::sec(60);            // process launch, imports, model build
};

// A congestion event to trace through the cascade (cascade.h).
struct CongestionSpec {
  double bandwidth_fraction = 0.1;  // what the congested link keeps
  SimTime duration = SimTime::ms(50);
  JobTime at;  // when it begins, from the job's start; zero: halfway through the job's wall time
  SimTime retry_timeout = SimTime::us(4'294'967);  // NCCL_IB_TIMEOUT 20: 4.096 us x 2^20 = 4.29 s
  int retry_count = 7;                             // NCCL_IB_RETRY_CNT default
};

struct CostSpec {
  double dollars_per_gpu_hour = 0;  // 0: no dollar figures
};

struct JobSpec {
  JobTime duration = SimTime::sec(86400);  // wall time the job runs (to core::kMaxJobYears)
  CheckpointSpec checkpoint;
  FailureSpec failures;
  StartupSpec startup;
  CostSpec cost;
  bool trace_congestion = false;  // follow `congestion` through the cascade
  CongestionSpec congestion;
  // Time-varying conditions and the controllers that react to them
  // (adaptation.h); with neither, the job is the steady one above.
  std::vector<ConditionSpec> conditions;
  std::vector<ControllerSpec> controllers;
  MechanismSpec mechanisms;
  uint64_t seed = 1;
  bool adaptive() const { return !conditions.empty() || !controllers.empty(); }
};

}  // namespace anatomy::job
