#include "scenario/edge_fields.h"

#include <cstdio>

#include <fmt/format.h>

#include "net/tsn/tsn_port.h"

namespace anatomy::scenario::detail {
namespace {

using namespace job::edge;  // NOLINT: the section's own types, in a .cc
using core::SimTime;

Check fraction01() {
  return [](const Value& v) {
    return v.number >= 0 && v.number < 1 ? std::string() : fmt::format("must be in [0, 1) (got {})", v.number);
  };
}
Check clock() {
  return [](const Value& v) {
    return v.number > 0 && v.number <= 1 ? std::string() : fmt::format("must be in (0, 1] (got {})", v.number);
  };
}

// "7", "0-6", "0,2,5", "all", "none" -> a gate mask.
uint8_t parse_classes(const std::string& text, const std::string& field, int line, const Context& ctx) {
  if (text == "all") return 0xff;
  if (text == "none") return 0;
  uint8_t mask = 0;
  size_t i = 0;
  while (i < text.size()) {
    const size_t comma = text.find(',', i);
    const std::string part = text.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    int lo = -1, hi = -1;
    char dash = 0;
    const int n = std::sscanf(part.c_str(), "%d%c%d", &lo, &dash, &hi);
    if (n == 1) hi = lo;
    if (!(n == 1 || (n == 3 && dash == '-')) || lo < 0 || hi > 7 || lo > hi)
      ctx.fail(line, field, fmt::format("'{}' is not a list of traffic classes 0-7 (e.g. \"7\", \"0-6\", \"1,3\", all, none)", text));
    for (int c = lo; c <= hi; ++c) mask |= uint8_t(1u << c);
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  return mask;
}

const std::vector<Field<EdgeSpec>>& edge_fields() {
  static const std::vector<Field<EdgeSpec>> f = {
      {"duration", Kind::kTime, by_default("24h"), time_positive(), "simulated time on the site",
       [](EdgeSpec& e, const Value& v) { e.duration = v.time; }, shows(&EdgeSpec::duration)},
      {"model", Kind::kString, by_default("resnet-50"), not_empty(),
       "the model served and retrained: resnet-50, vit-b16, or a transformer preset",
       [](EdgeSpec& e, const Value& v) { e.model = v.text; }, shows(&EdgeSpec::model)},
      {"sensor", Kind::kSection, derived("no sensor streams"), {}, "the sensor network: links, streams, shapers, gates", {}},
      {"serving", Kind::kSection, derived("every key at its default"), {}, "inference serving of the sensor streams", {}},
      {"retrain", Kind::kSection, derived("every key at its default"), {}, "the recurring retraining", {}},
      {"rollout", Kind::kSection, derived("every key at its default"), {}, "validate, package, roll out; the registry", {}},
      {"quality", Kind::kSection, derived("no version fails"), {}, "versions that fail in production and their rollback", {}},
      {"coordination", Kind::kSection, derived("every key at its default"), {}, "the WAN link to the central registry", {}},
      {"faults", Kind::kSection, derived("none"), {}, "link failure, EMI, thermal throttling, power", {}},
  };
  return f;
}

const std::vector<Field<SensorNetwork>>& sensor_fields() {
  using S = SensorNetwork;
  static const std::vector<Field<S>> f = {
      {"switched", Kind::kBool, by_default("true"), {}, "a switched TSN segment (false: a point-to-point link per sensor)",
       [](S& s, const Value& v) { s.switched = v.flag; }, shows(&S::switched)},
      {"link_speed", Kind::kBandwidth, by_default("10Gbps"), rate_positive(), "each sensor's link",
       [](S& s, const Value& v) { s.link_speed = v.rate; }, shows(&S::link_speed)},
      {"uplink_speed", Kind::kBandwidth, by_default("10Gbps"), rate_positive(), "the switch's port to the hosts",
       [](S& s, const Value& v) { s.uplink_speed = v.rate; }, shows(&S::uplink_speed)},
      {"link_latency", Kind::kTime, by_default("500ns"), {}, "propagation per link",
       [](S& s, const Value& v) { s.link_latency = v.time; }, shows(&S::link_latency)},
      {"switch_latency", Kind::kTime, by_default("1us"), {}, "the switch's forwarding (store and forward)",
       [](S& s, const Value& v) { s.switch_latency = v.time; }, shows(&S::switch_latency)},
      {"shared_with_training", Kind::kBool, by_default("false"), {},
       "training traffic crosses the switch's port to the hosts while a cycle trains",
       [](S& s, const Value& v) { s.shared_with_training = v.flag; }, shows(&S::shared_with_training)},
      {"training_burst", Kind::kBytes, by_default("4MiB"), bytes_positive(), "training traffic: bytes per burst",
       [](S& s, const Value& v) { s.training_burst = v.bytes; }, shows(&S::training_burst)},
      {"training_period", Kind::kTime, by_default("5ms"), time_positive(), "training traffic: one burst per period",
       [](S& s, const Value& v) { s.training_period = v.time; }, shows(&S::training_period)},
      {"training_mtu", Kind::kInt, by_default("9000"), int_range(64, 9216), "training traffic's frame payload",
       [](S& s, const Value& v) { s.training_mtu = v.integer; }, shows(&S::training_mtu)},
      {"training_priority", Kind::kInt, by_default("0"), int_range(0, 7), "training traffic's 802.1Q class",
       [](S& s, const Value& v) { s.training_priority = v.as_int(); }, shows(&S::training_priority)},
      {"window", Kind::kTime, by_default("1s"), time_positive(), "simulated frame by frame per traffic state",
       [](S& s, const Value& v) { s.window = v.time; }, shows(&S::window)},
      {"streams", Kind::kSection, derived("none"), {}, "a list of periodic sensor streams", {}},
      {"shapers", Kind::kSection, derived("none"), {}, "a list of 802.1Qav credit-based shapers on the hosts' port", {}},
      {"gates", Kind::kSection, derived("always open"), {}, "the 802.1Qbv gate control list on the hosts' port", {}},
  };
  return f;
}

const std::vector<Field<SensorStream>>& stream_fields() {
  using S = SensorStream;
  static const std::vector<Field<S>> f = {
      {"name", Kind::kString, required(), not_empty(), "what the sensor is",
       [](S& s, const Value& v) { s.name = v.text; }, shows(&S::name)},
      {"count", Kind::kInt, by_default("1"), int_range(1, 1024), "identical sensors",
       [](S& s, const Value& v) { s.count = v.as_int(); }, shows(&S::count)},
      {"message", Kind::kBytes, required(), bytes_positive_at_most(core::Bytes::GiB(1), "a sensor's reading or image is megabytes at most"), "bytes per reading or image",
       [](S& s, const Value& v) { s.message = v.bytes; }, shows(&S::message)},
      {"mtu", Kind::kInt, by_default("1500"), int_range(64, 9216), "payload bytes per Ethernet frame",
       [](S& s, const Value& v) { s.mtu = v.integer; }, shows(&S::mtu)},
      {"period", Kind::kTime, required(), time_positive(), "one message per period",
       [](S& s, const Value& v) { s.period = v.time; }, shows(&S::period)},
      {"deadline", Kind::kTime, by_default("0s"), {}, "network deadline (0: none)",
       [](S& s, const Value& v) { s.deadline = v.time; }, shows(&S::deadline)},
      {"priority", Kind::kInt, by_default("5"), int_range(0, 7), "802.1Q traffic class (7 highest)",
       [](S& s, const Value& v) { s.priority = v.as_int(); }, shows(&S::priority)},
      {"transport", Kind::kEnum, by_default("udp"), {}, "udp: a lost frame loses the message; reliable: it is resent",
       [](S& s, const Value& v) { s.reliable = v.text == "reliable"; },
       [](const S& s) { return std::string(s.reliable ? "reliable" : "udp"); }, {"udp", "reliable"}},
      {"inference", Kind::kBool, by_default("false"), {}, "each message is a request to the inference service",
       [](S& s, const Value& v) { s.inference = v.flag; }, shows(&S::inference)},
  };
  return f;
}

struct ShaperRow {
  int cls = 0;
  core::Bandwidth idle;
};
const std::vector<Field<ShaperRow>>& shaper_fields() {
  static const std::vector<Field<ShaperRow>> f = {
      {"class", Kind::kInt, required(), int_range(0, 7), "the shaped traffic class",
       [](ShaperRow& s, const Value& v) { s.cls = v.as_int(); }, shows(&ShaperRow::cls)},
      {"idle_slope", Kind::kBandwidth, required(), rate_positive(), "the rate the class's credit grows at (its reservation)",
       [](ShaperRow& s, const Value& v) { s.idle = v.rate; }, shows(&ShaperRow::idle)},
  };
  return f;
}

struct GateRow {
  SimTime duration;
  std::string open;
};
const std::vector<Field<GateRow>>& gate_fields() {
  static const std::vector<Field<GateRow>> f = {
      {"duration", Kind::kTime, required(), time_positive(), "how long this entry lasts",
       [](GateRow& g, const Value& v) { g.duration = v.time; }, shows(&GateRow::duration)},
      {"open", Kind::kString, required(), {}, "classes whose gates are open: \"7\", \"0-6\", \"1,3\", all, none",
       [](GateRow& g, const Value& v) { g.open = v.text; }, shows(&GateRow::open)},
  };
  return f;
}

const std::vector<Field<Serving>>& serving_fields() {
  using S = Serving;
  static const std::vector<Field<S>> f = {
      {"nodes", Kind::kInt, by_default("2"), int_range(1, 1024), "accelerators that serve (the first ones)",
       [](S& s, const Value& v) { s.nodes = v.as_int(); }, shows(&S::nodes)},
      {"shared", Kind::kBool, by_default("false"), {}, "the serving accelerators also train",
       [](S& s, const Value& v) { s.shared = v.flag; }, shows(&S::shared)},
      {"priority", Kind::kEnum, by_default("inference"), {}, "on shared accelerators, who goes first",
       [](S& s, const Value& v) { s.inference_priority = v.text == "inference"; },
       [](const S& s) { return std::string(s.inference_priority ? "inference" : "training"); }, {"inference", "training"}},
      {"budget", Kind::kTime, by_default("100ms"), time_positive(), "frame to decision",
       [](S& s, const Value& v) { s.budget = v.time; }, shows(&S::budget)},
      {"network_budget", Kind::kTime, by_default("5ms"), time_positive(), "the sensor network's share of the budget",
       [](S& s, const Value& v) { s.network_budget = v.time; }, shows(&S::network_budget)},
      {"preemption_quantum", Kind::kTime, by_default("2ms"), {}, "a training kernel that finishes before inference runs",
       [](S& s, const Value& v) { s.preemption_quantum = v.time; }, shows(&S::preemption_quantum)},
      {"lines", Kind::kInt, by_default("4"), int_range(1, 1024), "production lines, each needing a valid model",
       [](S& s, const Value& v) { s.lines = v.as_int(); }, shows(&S::lines)},
  };
  return f;
}

const std::vector<Field<Retrain>>& retrain_fields() {
  using R = Retrain;
  static const std::vector<Field<R>> f = {
      {"interval", Kind::kTime, by_default("1h"), time_positive(), "one cycle per interval",
       [](R& r, const Value& v) { r.interval = v.time; }, shows(&R::interval)},
      {"mode", Kind::kEnum, by_default("lora"), {}, "what is trained",
       [](R& r, const Value& v) {
         r.mode = v.text == "full" ? workload::FineTune::kFull
                  : v.text == "frozen_backbone" ? workload::FineTune::kFrozenBackbone
                                                : workload::FineTune::kLora;
       },
       [](const R& r) { return std::string(workload::to_string(r.mode)); }, {"full", "frozen_backbone", "lora"}},
      {"lora_rank", Kind::kInt, by_default("16"), int_range(1, 4096), "LoRA adapter rank",
       [](R& r, const Value& v) { r.lora_rank = v.as_int(); }, shows(&R::lora_rank)},
      {"lora_dropout", Kind::kDouble, by_default("0"), number_at_least_below(0, 1),
       "with mode lora, the dropout probability on each adapter's input (NeMo's LoRA dropout, position pre; "
       "MLPerf's LoRA runs 0.1): a memory-bound pass over the input forward and backward; 0: none",
       [](R& r, const Value& v) { r.lora_dropout = v.number; }, shows(&R::lora_dropout)},
      {"samples", Kind::kInt, by_default("20000"), int_range(1, int64_t{1} << 40), "samples collected per cycle",
       [](R& r, const Value& v) { r.samples = v.integer; }, shows(&R::samples)},
      {"epochs", Kind::kInt, by_default("1"), int_range(1, 1000), "passes over them",
       [](R& r, const Value& v) { r.epochs = v.as_int(); }, shows(&R::epochs)},
      {"batch_per_gpu", Kind::kInt, by_default("64"), int_range(1, 1 << 20), "samples per accelerator per step",
       [](R& r, const Value& v) { r.batch_per_gpu = v.integer; }, shows(&R::batch_per_gpu)},
      {"seq_len", Kind::kInt, by_default("4096"), int_range(1, 1 << 20), "tokens per sample (transformer models)",
       [](R& r, const Value& v) { r.seq_len = v.integer; }, shows(&R::seq_len)},
      {"recompute_layers", Kind::kInt, by_default("0"), int_range(0, 1 << 20),
       "layers whose forward runs again in the backward (Megatron's full recompute, block method)",
       [](R& r, const Value& v) { r.recompute_layers = v.integer; }, shows(&R::recompute_layers)},
      {"context_parallel", Kind::kInt, by_default("1"), int_range(1, 1024),
       "accelerators that split each sample's sequence (Megatron-Core's context parallelism, Transformer Engine's "
       "ring attention or all-to-all: context_parallel_comm): each runs every product on seq / context_parallel "
       "tokens and its share of the attention; batch_per_gpu then counts the samples of each group of that many "
       "accelerators (transformer models)",
       [](R& r, const Value& v) { r.context_parallel = v.as_int(); }, shows(&R::context_parallel)},
      {"context_parallel_comm", Kind::kEnum, by_default("ring"), {},
       "with context_parallel, how the sequence is exchanged: ring, Transformer Engine's K/V ring (cp_comm_type "
       "p2p, NeMo's default); all_to_all, TE's cp_comm_type a2a (DeepSpeed-Ulysses; NeMo's MLPerf LoRA default): "
       "all-to-alls of Q, K, V and the output (their gradients backward) on the network, each laid out and "
       "reordered in a memory pass, and one attention kernel over the whole sequence on heads / context_parallel "
       "heads; under FP8 attention all of them in FP8, as delayed scaling exchanges them",
       [](R& r, const Value& v) {
         r.context_parallel_comm = v.text == "all_to_all" ? workload::CpComm::kAllToAll : workload::CpComm::kRing;
       },
       [](const R& r) { return std::string(workload::to_string(r.context_parallel_comm)); },
       {"ring", "all_to_all"}},
      {"quantized_weights", Kind::kBool, by_default("false"), {},
       "with precision fp8 or fp4, the weights kept at that precision (NeMo's fp8_params, a pre-quantized NVFP4 "
       "model): a step casts none of them (false: each step casts every 16-bit weight once, as Transformer Engine "
       "does on a step's first micro-batch, frozen ones too); rebuilding such a weight's FP8 transpose on a part "
       "whose FP8 GEMMs take one layout is left out",
       [](R& r, const Value& v) { r.quantized_weights = v.flag; }, shows(&R::quantized_weights)},
      {"bytes_per_sample", Kind::kBytes, by_default("200KB"), bytes_positive(), "stored size of one sample",
       [](R& r, const Value& v) { r.bytes_per_sample = v.bytes; }, shows(&R::bytes_per_sample)},
      {"staging_rate", Kind::kBandwidth, by_default("2GB/s"), rate_positive(), "collected data to the training hosts",
       [](R& r, const Value& v) { r.staging_rate = v.rate; }, shows(&R::staging_rate)},
      {"validate_samples", Kind::kInt, by_default("5000"), int_range(0, int64_t{1} << 40), "held-out samples checked",
       [](R& r, const Value& v) { r.validate_samples = v.integer; }, shows(&R::validate_samples)},
      {"package_rate", Kind::kBandwidth, by_default("1GB/s"), rate_positive(), "export, sign and store the version",
       [](R& r, const Value& v) { r.package_rate = v.rate; }, shows(&R::package_rate)},
      {"package_overhead", Kind::kTime, by_default("5s"), {}, "fixed packaging time",
       [](R& r, const Value& v) { r.package_overhead = v.time; }, shows(&R::package_overhead)},
  };
  return f;
}

const std::vector<Field<Rollout>>& rollout_fields() {
  using R = Rollout;
  static const std::vector<Field<R>> f = {
      {"strategy", Kind::kEnum, by_default("rolling"), {}, "naive is stop-then-start",
       [](R& r, const Value& v) {
         r.strategy = v.text == "canary"       ? RolloutStrategy::kCanary
                      : v.text == "blue_green" ? RolloutStrategy::kBlueGreen
                      : v.text == "naive"      ? RolloutStrategy::kNaive
                                               : RolloutStrategy::kRolling;
       },
       [](const R& r) { return std::string(to_string(r.strategy)); }, {"rolling", "canary", "blue_green", "naive"}},
      {"nodes", Kind::kInt, by_default("0"), int_range(0, 1024), "inference nodes to update (0: every serving node)",
       [](R& r, const Value& v) { r.nodes = v.as_int(); }, shows(&R::nodes)},
      {"max_unavailable", Kind::kInt, by_default("1"), int_range(1, 1024), "rolling: nodes updated at once",
       [](R& r, const Value& v) { r.max_unavailable = v.as_int(); }, shows(&R::max_unavailable)},
      {"distribution_rate", Kind::kBandwidth, by_default("100Gbps"), rate_positive(), "site registry to the nodes, shared",
       [](R& r, const Value& v) { r.distribution_rate = v.rate; }, shows(&R::distribution_rate)},
      {"load_rate", Kind::kBandwidth, by_default("25GB/s"), rate_positive(), "host memory to the accelerator",
       [](R& r, const Value& v) { r.load_rate = v.rate; }, shows(&R::load_rate)},
      {"warmup", Kind::kTime, by_default("2s"), {}, "compile, first batches and health check",
       [](R& r, const Value& v) { r.warmup = v.time; }, shows(&R::warmup)},
      {"canary_soak", Kind::kTime, by_default("5min"), {}, "canary: the first node serves alone this long",
       [](R& r, const Value& v) { r.canary_soak = v.time; }, shows(&R::canary_soak)},
      {"keep_versions", Kind::kInt, by_default("5"), int_range(1, 1000), "versions the registry keeps",
       [](R& r, const Value& v) { r.keep_versions = v.as_int(); }, shows(&R::keep_versions)},
  };
  return f;
}

const std::vector<Field<Quality>>& quality_fields() {
  using Q = Quality;
  static const std::vector<Field<Q>> f = {
      {"failure_probability", Kind::kDouble, by_default("0"), fraction01(), "a version fails in production (seeded draw)",
       [](Q& q, const Value& v) { q.failure_probability = v.number; }, shows(&Q::failure_probability)},
      {"detection_delay", Kind::kTime, by_default("2min"), {}, "until the failure is noticed",
       [](Q& q, const Value& v) { q.detection_delay = v.time; }, shows(&Q::detection_delay)},
  };
  return f;
}

const std::vector<Field<Coordination>>& coordination_fields() {
  using C = Coordination;
  static const std::vector<Field<C>> f = {
      {"wan_speed", Kind::kBandwidth, by_default("1Gbps"), rate_positive(), "the site's WAN link",
       [](C& c, const Value& v) { c.wan_speed = v.rate; }, shows(&C::wan_speed)},
      {"rtt", Kind::kTime, by_default("20ms"), time_positive(), "round trip to the central registry",
       [](C& c, const Value& v) { c.rtt = v.time; }, shows(&C::rtt)},
      {"loss", Kind::kDouble, by_default("0"), fraction01(), "packet loss on the WAN (limits TCP: Mathis et al.)",
       [](C& c, const Value& v) { c.loss = v.number; }, shows(&C::loss)},
      {"sites", Kind::kInt, by_default("24"), int_range(1, 100000), "sites pulling a base model at once",
       [](C& c, const Value& v) { c.sites = v.as_int(); }, shows(&C::sites)},
      {"registry_speed", Kind::kBandwidth, by_default("10Gbps"), rate_positive(), "the central registry's egress",
       [](C& c, const Value& v) { c.registry_speed = v.rate; }, shows(&C::registry_speed)},
      {"base_model", Kind::kBytes, by_default("0B"), {}, "a new base model every site pulls (0: none)",
       [](C& c, const Value& v) { c.base_model = v.bytes; }, shows(&C::base_model)},
      {"pull_at", Kind::kTime, by_default("0s"), {}, "when the sites pull it",
       [](C& c, const Value& v) { c.pull_at = v.time; }, shows(&C::pull_at)},
      {"qos", Kind::kBool, by_default("true"), {}, "control traffic in a class above the pull",
       [](C& c, const Value& v) { c.qos = v.flag; }, shows(&C::qos)},
      {"control_message", Kind::kBytes, by_default("2KB"), bytes_positive_at_most(core::Bytes::GiB(1), "a control message is kilobytes"), "monitoring / command message",
       [](C& c, const Value& v) { c.control_message = v.bytes; }, shows(&C::control_message)},
      {"control_period", Kind::kTime, by_default("100ms"), time_positive(), "one control message per period",
       [](C& c, const Value& v) { c.control_period = v.time; }, shows(&C::control_period)},
  };
  return f;
}

const std::vector<Field<Faults>>& fault_fields() {
  using F = Faults;
  static const std::vector<Field<F>> f = {
      {"frame_loss", Kind::kDouble, by_default("0"), fraction01(), "EMI: frames corrupted per frame per hop",
       [](F& x, const Value& v) { x.frame_loss = v.number; }, shows(&F::frame_loss)},
      {"retransmit_after", Kind::kTime, by_default("20us"), {}, "reliable streams: a lost frame is resent after this",
       [](F& x, const Value& v) { x.retransmit_after = v.time; }, shows(&F::retransmit_after)},
      {"link", Kind::kSection, derived("none"), {}, "a link failure and its failover", {}},
      {"thermal", Kind::kSection, derived("none"), {}, "thermal throttling", {}},
      {"power", Kind::kSection, derived("none"), {}, "a power event that takes a host down", {}},
  };
  return f;
}

const std::vector<Field<LinkFailure>>& link_fields() {
  using L = LinkFailure;
  static const std::vector<Field<L>> f = {
      {"tier", Kind::kEnum, by_default("training"), {}, "which tier's link fails",
       [](L& l, const Value& v) { l.tier = v.text; }, shows(&L::tier), {"sensor", "training", "coordination"}},
      {"at", Kind::kTime, required(), {}, "when, from the start",
       [](L& l, const Value& v) { l.at = v.time; }, shows(&L::at)},
      {"switchover", Kind::kTime, by_default("50ms"), {}, "failover to the redundant link",
       [](L& l, const Value& v) { l.switchover = v.time; }, shows(&L::switchover)},
      {"redundant", Kind::kBool, by_default("true"), {}, "a redundant link to fail over to (false: wait for the repair)",
       [](L& l, const Value& v) { l.redundant = v.flag; }, shows(&L::redundant)},
      {"repair", Kind::kTime, by_default("1h"), {}, "until the link is back, without a redundant one",
       [](L& l, const Value& v) { l.repair = v.time; }, shows(&L::repair)},
  };
  return f;
}

const std::vector<Field<Thermal>>& thermal_fields() {
  using T = Thermal;
  static const std::vector<Field<T>> f = {
      {"at", Kind::kTime, required(), {}, "when throttling begins",
       [](T& t, const Value& v) { t.at = v.time; }, shows(&T::at)},
      {"duration", Kind::kTime, by_default("10min"), time_positive(), "how long it lasts",
       [](T& t, const Value& v) { t.duration = v.time; }, shows(&T::duration)},
      {"clock_fraction", Kind::kDouble, by_default("0.7"), clock(), "the clock kept (compute slows by its inverse)",
       [](T& t, const Value& v) { t.clock_fraction = v.number; }, shows(&T::clock_fraction)},
  };
  return f;
}

const std::vector<Field<PowerEvent>>& power_fields() {
  using P = PowerEvent;
  static const std::vector<Field<P>> f = {
      {"at", Kind::kTime, required(), {}, "when the host goes down",
       [](P& p, const Value& v) { p.at = v.time; }, shows(&P::at)},
      {"down", Kind::kTime, by_default("5min"), time_positive(), "until it is back and serving",
       [](P& p, const Value& v) { p.down = v.time; }, shows(&P::down)},
      {"host", Kind::kInt, by_default("0"), int_range(0, 1024), "which host",
       [](P& p, const Value& v) { p.host = v.as_int(); }, shows(&P::host)},
  };
  return f;
}

void check_sensor(const SensorNetwork& n, Context& ctx) {
  const net::tsn::GateSchedule gates(n.gates);
  for (size_t i = 0; i < n.streams.size(); ++i) {
    const SensorStream& s = n.streams[i];
    const std::string at = fmt::format("edge.sensor.streams[{}]", i);
    // Its own link must carry one message per period.
    // In seconds: frames x frame time can pass int64 picoseconds on a slow link.
    const int64_t frames = (s.message.count() + s.mtu - 1) / s.mtu;
    const double serialize_s = net::tsn::frame_time(s.mtu, n.link_speed).seconds() * static_cast<double>(frames);
    if (serialize_s > s.period.seconds())
      ctx.fail(ctx.line_for(at + ".period"), at + ".period",
               fmt::format("{} is shorter than the {} its {} message takes to serialize at {} ({} frames)",
                           core::format_time(s.period), core::format_time(SimTime::from_seconds(std::min(serialize_s, 1e6))),
                           show_value(s.message), show_value(n.link_speed), frames));
    // The gates sit on the hosts' port (switched) or on every sensor's link.
    const SimTime frame = net::tsn::frame_time(std::min<int64_t>(s.mtu, s.message.count()),
                                               n.switched ? n.uplink_speed : n.link_speed);
    if (gates.longest_window(s.priority) < frame)
      ctx.fail(ctx.line_for("edge.sensor.gates"), "edge.sensor.gates",
               gates.longest_window(s.priority) == SimTime::zero()
                   ? fmt::format("never opens for class {} (stream {}, '{}')", s.priority, i, s.name)
                   : fmt::format("class {}'s longest window, {}, is shorter than one {}-byte frame of '{}' ({})",
                                 s.priority, core::format_time(gates.longest_window(s.priority)), s.mtu, s.name,
                                 core::format_time(frame)));
  }
  if (n.switched && n.shared_with_training && gates.longest_window(n.training_priority) == SimTime::zero())
    ctx.fail(ctx.line_for("edge.sensor.gates"), "edge.sensor.gates",
             fmt::format("never opens for class {} (edge.sensor.training_priority)", n.training_priority));
}

}  // namespace

job::edge::EdgeSpec read_edge(const YAML::Node& node, int line, Context& ctx, int gpus) {
  EdgeSpec e;
  const Present top = read_section(node, "edge", line, edge_fields(), e, ctx);
  const Present sensor =
      read_section(sub(top, "sensor"), "edge.sensor", ctx.line_for("edge.sensor"), sensor_fields(), e.sensor, ctx);
  e.sensor.streams = read_list(sub(sensor, "streams"), "edge.sensor.streams", stream_fields(), ctx);
  for (const ShaperRow& s : read_list(sub(sensor, "shapers"), "edge.sensor.shapers", shaper_fields(), ctx)) {
    if (s.idle >= e.sensor.uplink_speed)
      ctx.fail(ctx.line_for("edge.sensor.shapers"), "edge.sensor.shapers",
               fmt::format("class {}'s idle slope {} is not below the port's {}", s.cls, show_value(s.idle),
                           show_value(e.sensor.uplink_speed)));
    e.sensor.idle_slope[s.cls] = s.idle;
  }
  const std::vector<GateRow> gates = read_list(sub(sensor, "gates"), "edge.sensor.gates", gate_fields(), ctx);
  for (size_t i = 0; i < gates.size(); ++i) {
    const std::string path = fmt::format("edge.sensor.gates[{}].open", i);
    e.sensor.gates.push_back({gates[i].duration, parse_classes(gates[i].open, path, ctx.line_for(path), ctx)});
  }
  check_sensor(e.sensor, ctx);
  read_section(sub(top, "serving"), "edge.serving", ctx.line_for("edge.serving"), serving_fields(), e.serving, ctx);
  if (e.serving.nodes > gpus)
    ctx.fail(ctx.line_for("edge.serving.nodes"), "edge.serving.nodes",
             fmt::format("{} serving nodes, but the cluster has {} accelerators (cluster.gpus)", e.serving.nodes, gpus));
  if (!e.serving.shared && e.serving.nodes >= gpus)
    ctx.fail(ctx.line_for("edge.serving.nodes"), "edge.serving.nodes",
             fmt::format("{} dedicated serving nodes leave none of the {} accelerators to train (or shared: true)",
                         e.serving.nodes, gpus));
  read_section(sub(top, "retrain"), "edge.retrain", ctx.line_for("edge.retrain"), retrain_fields(), e.retrain, ctx);
  if (e.retrain.lora_dropout > 0 && e.retrain.mode != workload::FineTune::kLora)
    ctx.fail(ctx.line_for("edge.retrain.lora_dropout"), "edge.retrain.lora_dropout",
             fmt::format("drops LoRA adapters' inputs; edge.retrain.mode is {}", workload::to_string(e.retrain.mode)));
  if (e.retrain.context_parallel_comm != workload::CpComm::kRing && e.retrain.context_parallel == 1)
    ctx.fail(ctx.line_for("edge.retrain.context_parallel_comm"), "edge.retrain.context_parallel_comm",
             "exchanges a sequence split over accelerators; set edge.retrain.context_parallel above 1");
  read_section(sub(top, "rollout"), "edge.rollout", ctx.line_for("edge.rollout"), rollout_fields(), e.rollout, ctx);
  if (e.rollout.nodes > e.serving.nodes)
    ctx.fail(ctx.line_for("edge.rollout.nodes"), "edge.rollout.nodes",
             fmt::format("rolls out to {} nodes, but only {} serve (edge.serving.nodes)", e.rollout.nodes,
                         e.serving.nodes));
  if (top.count("quality"))
    read_section(sub(top, "quality"), "edge.quality", ctx.line_for("edge.quality"), quality_fields(), e.quality, ctx);
  read_section(sub(top, "coordination"), "edge.coordination", ctx.line_for("edge.coordination"), coordination_fields(),
               e.coordination, ctx);
  const Present faults =
      read_section(sub(top, "faults"), "edge.faults", ctx.line_for("edge.faults"), fault_fields(), e.faults, ctx);
  if (faults.count("link")) {
    e.faults.link.enabled = true;
    read_section(sub(faults, "link"), "edge.faults.link", ctx.line_for("edge.faults.link"), link_fields(), e.faults.link, ctx);
  }
  if (faults.count("thermal")) {
    e.faults.thermal.enabled = true;
    read_section(sub(faults, "thermal"), "edge.faults.thermal", ctx.line_for("edge.faults.thermal"), thermal_fields(),
                 e.faults.thermal, ctx);
  }
  if (faults.count("power")) {
    e.faults.power.enabled = true;
    read_section(sub(faults, "power"), "edge.faults.power", ctx.line_for("edge.faults.power"), power_fields(),
                 e.faults.power, ctx);
  }
  return e;
}

void add_edge_sections(std::vector<Section>& out) {
  auto in_edge = [](auto member) {
    return [member](const Scenario& s) { return s.edge ? &(*s.edge.*member) : nullptr; };
  };
  out.push_back(section<EdgeSpec>("edge", edge_fields(), [](const Scenario& s) { return s.edge ? &*s.edge : nullptr; }));
  out.push_back(section<SensorNetwork>("edge.sensor", sensor_fields(), in_edge(&EdgeSpec::sensor)));
  Section streams;
  streams.path = "edge.sensor.streams[]";
  streams.docs = [](std::vector<FieldDoc>& d) { add_docs(d, "edge.sensor.streams[]", stream_fields()); };
  streams.rows = [](const Scenario& s, std::vector<InputValue>& rows) {
    if (!s.edge) return;
    const auto& list = s.edge->sensor.streams;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string value;
      for (const auto& f : stream_fields())
        if (f.show) value += fmt::format("{}{}: {}", value.empty() ? "" : ", ", f.key, f.show(list[i]));
      rows.push_back({"edge", fmt::format("sensor.streams[{}]", i), value, false});
    }
  };
  out.push_back(std::move(streams));
  Section shapers;
  shapers.path = "edge.sensor.shapers[]";
  shapers.docs = [](std::vector<FieldDoc>& d) { add_docs(d, "edge.sensor.shapers[]", shaper_fields()); };
  shapers.rows = [](const Scenario&, std::vector<InputValue>&) {};
  out.push_back(std::move(shapers));
  Section gates;
  gates.path = "edge.sensor.gates[]";
  gates.docs = [](std::vector<FieldDoc>& d) { add_docs(d, "edge.sensor.gates[]", gate_fields()); };
  gates.rows = [](const Scenario&, std::vector<InputValue>&) {};
  out.push_back(std::move(gates));
  out.push_back(section<Serving>("edge.serving", serving_fields(), in_edge(&EdgeSpec::serving)));
  out.push_back(section<Retrain>("edge.retrain", retrain_fields(), in_edge(&EdgeSpec::retrain)));
  out.push_back(section<Rollout>("edge.rollout", rollout_fields(), in_edge(&EdgeSpec::rollout)));
  out.push_back(section<Quality>("edge.quality", quality_fields(), in_edge(&EdgeSpec::quality)));
  out.push_back(section<Coordination>("edge.coordination", coordination_fields(), in_edge(&EdgeSpec::coordination)));
  out.push_back(section<Faults>("edge.faults", fault_fields(), in_edge(&EdgeSpec::faults)));
  auto fault = [](auto member) {
    return [member](const Scenario& s) {
      return s.edge && (s.edge->faults.*member).enabled ? &(s.edge->faults.*member) : nullptr;
    };
  };
  out.push_back(section<LinkFailure>("edge.faults.link", link_fields(), fault(&Faults::link)));
  out.push_back(section<Thermal>("edge.faults.thermal", thermal_fields(), fault(&Faults::thermal)));
  out.push_back(section<PowerEvent>("edge.faults.power", power_fields(), fault(&Faults::power)));
}

}  // namespace anatomy::scenario::detail
