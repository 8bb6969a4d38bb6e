#pragma once
// EdgeSpec: an edge site (8-16 accelerators beside a production line or a
// drone depot) as its three network tiers and the work on it, as the
// scenario's `edge:` section gives it (scenario/edge_fields.h). Units are
// in the types; every default is the scenario's (docs/scenario.md).
//
//   sensor network    periodic streams (cameras, spectrometers, environment
//                     sensors) over dedicated point-to-point links or a
//                     switched TSN segment, with strict priority, per-class
//                     credit-based shapers and a gate control list on the
//                     switch's port to the hosts (net/tsn/)
//   training cluster  the scenario's cluster (8 MI325X by default): retraining
//                     every `interval`, gradient all-reduce on its fabric
//   coordination      the site's WAN link to the central registry, shared by
//                     `sites` sites that pull a new base model at once
//
// Lifecycle per cycle: collect (stage the samples since the last cycle) ->
// train -> validate -> package -> roll out to the inference nodes ->
// (roll back, when the version fails in production).

#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "core/units.h"
#include "net/tsn/tsn_port.h"
#include "workload/edge_model.h"

namespace anatomy::job::edge {

using core::Bandwidth;
using core::Bytes;
using core::SimTime;

struct SensorStream {
  std::string name;
  int count = 1;           // identical sensors, one per line in turn
  Bytes message = Bytes(1500);  // one reading or image
  int64_t mtu = 1500;
  SimTime period = SimTime::ms(10);
  SimTime deadline;        // network deadline (0: none)
  int priority = 5;        // 802.1Q traffic class
  bool reliable = false;   // RoCE/TCP-like: lost frames resent; else UDP-like: lost
  bool inference = false;  // each message is a request to the inference service
};

struct SensorNetwork {
  bool switched = true;  // false: a dedicated point-to-point link per sensor
  Bandwidth link_speed = Bandwidth::gbps(10);  // each sensor's link
  Bandwidth uplink_speed = Bandwidth::gbps(10);  // the switch's port to the hosts
  SimTime link_latency = SimTime::ns(500);
  SimTime switch_latency = SimTime::us(1);
  // Training traffic on the same switch port while a cycle trains (false:
  // the training cluster has its own fabric).
  bool shared_with_training = false;
  Bytes training_burst = Bytes::MiB(4);   // gradient / data bytes per burst
  SimTime training_period = SimTime::ms(5);
  int64_t training_mtu = 9000;
  int training_priority = 0;
  std::vector<Bandwidth> idle_slope = std::vector<Bandwidth>(net::tsn::kClasses);  // per class, 0: no shaper
  std::vector<net::tsn::GateEntry> gates;  // the switch port's gate control list (empty: always open)
  SimTime window = SimTime::sec(1);  // simulated at packet level per traffic state
  std::vector<SensorStream> streams;
};

struct Serving {
  int nodes = 2;  // accelerators that serve (the first ones); the others train
  bool shared = false;  // nodes also train; then `priority` says who goes first
  bool inference_priority = true;
  SimTime budget = SimTime::ms(100);          // frame to decision
  SimTime network_budget = SimTime::ms(5);    // the sensor network's share
  SimTime preemption_quantum = SimTime::ms(2);  // a training kernel that must end before inference runs
  int lines = 4;  // production lines, each needing a valid model at all times
};

struct Retrain {
  SimTime interval = SimTime::sec(3600);
  workload::FineTune mode = workload::FineTune::kLora;
  int lora_rank = 16;
  double lora_dropout = 0;  // on each adapter's input (NeMo's LoRA dropout, "pre"); 0: none
  int64_t samples = 20000;  // collected per cycle
  int epochs = 1;
  int64_t batch_per_gpu = 64;
  int64_t seq_len = 4096;  // transformer models
  int64_t recompute_layers = 0;  // layers whose forward runs again in the backward
  // Accelerators that split each sample's sequence (context parallelism,
  // workload::split_sequence); batch_per_gpu then counts the samples of
  // each such group.
  int context_parallel = 1;
  // How context parallelism exchanges the sequence (workload::CpComm): the
  // K/V ring, or all-to-alls that hand each accelerator a share of the heads.
  workload::CpComm context_parallel_comm = workload::CpComm::kRing;
  // The weights are kept at the products' precision (NeMo's fp8_params, a
  // pre-quantized NVFP4 model): a step casts none of them.
  bool quantized_weights = false;
  Bytes bytes_per_sample = Bytes(200000);
  Bandwidth staging_rate = Bandwidth::gigabytes_per_s(2);  // collected data to the training hosts
  int64_t validate_samples = 5000;
  Bandwidth package_rate = Bandwidth::gigabytes_per_s(1);  // export, sign, write to the registry
  SimTime package_overhead = SimTime::sec(5);
};

enum class RolloutStrategy { kRolling, kCanary, kBlueGreen, kNaive };
const char* to_string(RolloutStrategy s);

struct Rollout {
  RolloutStrategy strategy = RolloutStrategy::kRolling;
  int nodes = 0;  // inference nodes updated (0: all serving nodes)
  int max_unavailable = 1;  // rolling: nodes updated at once
  Bandwidth distribution_rate = Bandwidth::gbps(100);  // registry on site to a node
  Bandwidth load_rate = Bandwidth::gigabytes_per_s(25);  // host memory to the accelerator
  SimTime warmup = SimTime::sec(2);  // compile, first batches, health check
  SimTime canary_soak = SimTime::sec(300);
  int keep_versions = 5;  // registry
};

struct Quality {
  double failure_probability = 0;  // a version fails in production (seeded draw per version)
  SimTime detection_delay = SimTime::sec(120);
};

struct Coordination {
  Bandwidth wan_speed = Bandwidth::gbps(1);
  SimTime rtt = SimTime::ms(20);
  double loss = 0;
  int sites = 24;
  Bandwidth registry_speed = Bandwidth::gbps(10);  // the central registry's egress, shared
  Bytes base_model = Bytes(0);  // 0: no base-model pull
  SimTime pull_at = SimTime::zero();  // when every site pulls it
  bool qos = true;  // control traffic in a class above the bulk pull
  Bytes control_message = Bytes(2000);
  SimTime control_period = SimTime::ms(100);
  int64_t mss = 1448;
};

struct LinkFailure {
  bool enabled = false;
  std::string tier = "training";  // sensor | training | coordination
  SimTime at;
  SimTime switchover = SimTime::ms(50);
  bool redundant = true;  // a second link to fail over to; without one, traffic waits for the repair
  SimTime repair = SimTime::sec(3600);
};

struct Thermal {
  bool enabled = false;
  SimTime at;
  SimTime duration = SimTime::sec(600);
  double clock_fraction = 0.7;
};

struct PowerEvent {
  bool enabled = false;
  SimTime at;
  SimTime down = SimTime::sec(300);  // until the host is back and serving
  int host = 0;
};

struct Faults {
  double frame_loss = 0;  // EMI: per frame per hop on the sensor network
  SimTime retransmit_after = SimTime::us(20);
  LinkFailure link;
  Thermal thermal;
  PowerEvent power;
};

struct EdgeSpec {
  SimTime duration = SimTime::sec(86400);
  std::string model = "resnet-50";
  SensorNetwork sensor;
  Serving serving;
  Retrain retrain;
  Rollout rollout;
  Quality quality;
  Coordination coordination;
  Faults faults;
  uint64_t seed = 1;
};

}  // namespace anatomy::job::edge
