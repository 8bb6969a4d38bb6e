#include "topo/htsim_topo.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/input_file.h"
#include "hw/catalog.h"
#include "topo/builders.h"

namespace anatomy::topo {
namespace {

using core::InputError;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct TopoLine {
  const std::string& file;
  int line;
  std::string key;  // as written, for the error's field
  [[noreturn]] void fail(const std::string& why) const { throw InputError({file, line, key}, why); }
  int positive(const std::vector<std::string_view>& w, int lo = 1) const {
    if (w.size() != 2) fail("expects one whole number");
    int v = 0;
    const auto r = std::from_chars(w[1].data(), w[1].data() + w[1].size(), v);
    if (r.ec != std::errc() || r.ptr != w[1].data() + w[1].size())
      fail(fmt::format("'{}' is not a whole number", w[1]));
    if (v < lo) fail(fmt::format("must be at least {} (got {})", lo, v));
    return v;
  }
};

}  // namespace

HtsimTopo parse_htsim_topo(std::string_view text, const std::string& file) {
  HtsimTopo t;
  t.file = file;
  int current = -1;
  int header_line[3] = {0, 0, 0};  // Nodes, Tiers, Podsize
  bool seen[3][9] = {};
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const auto w = core::words_of(line);
    if (w.empty()) continue;
    const std::string key = lower(w[0]);
    const TopoLine at{file, line_no, std::string(w[0])};
    if (current < 0 && key != "tier") {
      int* slot = key == "nodes" ? &t.nodes : key == "tiers" ? &t.tiers : key == "podsize" ? &t.podsize : nullptr;
      if (!slot) at.fail("unknown in the header (known: Nodes, Tiers, Podsize, then Tier sections)");
      const int k = slot == &t.nodes ? 0 : slot == &t.tiers ? 1 : 2;
      if (header_line[k]) at.fail(fmt::format("given twice (first at line {})", header_line[k]));
      header_line[k] = line_no;
      *slot = at.positive(w);
      if (slot == &t.tiers && (t.tiers < 2 || t.tiers > 3)) at.fail(fmt::format("must be 2 or 3 (got {})", t.tiers));
      continue;
    }
    if (key == "tier") {
      current = at.positive(w, 0);
      if (current > 2) at.fail(fmt::format("tiers are numbered 0 to 2 (got {})", current));
      if (t.tier[current].line) at.fail(fmt::format("tier {} given twice (first at line {})", current, t.tier[current].line));
      t.tier[current].line = line_no;
      continue;
    }
    static const char* const keys[] = {"downlink_speed_gbps", "radix_down",        "radix_up",
                                       "downlink_latency_ns", "switch_latency_ns", "oversubscribed",
                                       "bundle",              "queue_down",        "queue_up"};
    const auto it = std::find(std::begin(keys), std::end(keys), key);
    if (it == std::end(keys))
      at.fail("unknown (known: Downlink_speed_Gbps, Radix_Down, Radix_Up, Downlink_Latency_ns, Switch_Latency_ns, "
              "Oversubscribed, Bundle, Queue_Down, Queue_Up)");
    const int k = static_cast<int>(it - std::begin(keys));
    if (seen[current][k]) at.fail(fmt::format("given twice for tier {}", current));
    seen[current][k] = true;
    HtsimTier& tier = t.tier[current];
    switch (k) {
      case 0: tier.downlink_speed = core::Bandwidth::gbps(at.positive(w)); break;
      case 1: tier.radix_down = at.positive(w); break;
      case 2: tier.radix_up = at.positive(w); break;
      case 3: tier.downlink_latency = core::SimTime::ns(at.positive(w, 0)); break;
      case 4: tier.switch_latency = core::SimTime::ns(at.positive(w, 0)); break;
      case 5: tier.oversubscribed = at.positive(w); break;
      case 6:
        tier.bundle = at.positive(w);
        if (tier.bundle != 1) at.fail("anatomy's fat-tree builder makes one link per switch pair: only 1 is supported");
        break;
      default: at.positive(w); break;  // queue sizes: htsim's buffers; anatomy's come from the packet model's options
    }
  }
  const auto missing = [&](const char* key) { throw InputError({file, 1, key}, "missing from the header"); };
  if (!t.nodes) missing("Nodes");
  if (!t.tiers) missing("Tiers");
  if (!t.podsize) missing("Podsize");
  for (int k = 0; k < t.tiers; ++k) {
    const HtsimTier& tier = t.tier[k];
    if (!tier.line) throw InputError({file, line_no, "Tier"}, fmt::format("no section for tier {} of {}", k, t.tiers));
    const auto need = [&](bool ok, const char* key) {
      if (!ok) throw InputError({file, tier.line, key}, fmt::format("missing for tier {}", k));
    };
    need(tier.downlink_speed.bps() > 0, "Downlink_speed_Gbps");
    need(tier.radix_down > 0, "Radix_Down");
    need(seen[k][3], "Downlink_Latency_ns");
    if (k < t.tiers - 1) need(tier.radix_up > 0, "Radix_Up");
    if (k == t.tiers - 1 && tier.radix_up > 0)
      throw InputError({file, tier.line, "Radix_Up"}, fmt::format("the top tier ({}) has no uplinks", k));
  }
  if (t.nodes % t.podsize != 0)
    throw InputError({file, header_line[2], "Podsize"}, fmt::format("{} hosts are not whole pods of {}", t.nodes, t.podsize));
  if (t.podsize % t.tier[0].radix_down != 0)
    throw InputError({file, header_line[2], "Podsize"},
                     fmt::format("a pod of {} is not whole ToRs of {} hosts", t.podsize, t.tier[0].radix_down));
  return t;
}

HtsimTopo read_htsim_topo(const std::string& path) {
  return parse_htsim_topo(core::read_input_file(path, core::kMaxScenarioBytes, "htsim topology file"), path);
}

Topology build_htsim_fat_tree(const HtsimTopo& h) {
  const HtsimTier* tr = h.tier;
  const int pods = h.nodes / h.podsize;
  const int tors = pods * (h.podsize / tr[0].radix_down);
  // What the file describes, as htsim derives it: uplinks from the ports'
  // total down bandwidth and each tier's oversubscription.
  const double tor_uplinks = static_cast<double>(h.nodes) * tr[0].downlink_speed.bps() /
                             (tr[1].downlink_speed.bps() * tr[0].oversubscribed);
  const double aggs = tor_uplinks / tr[1].radix_down;  // spines, on 2 tiers
  const double cores = h.tiers == 3 ? tor_uplinks * tr[1].downlink_speed.bps() /
                                          (tr[2].downlink_speed.bps() * tr[1].oversubscribed) / tr[2].radix_down
                                    : 0;
  ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.system.gpus_per_host = 1;
  spec.system.nics_per_host = 1;
  spec.system.scaleup.domain_gpus = 1;
  spec.gpus = h.nodes;
  spec.fabric.tiers = h.tiers;
  spec.fabric.radix = tr[0].radix_down + tr[0].radix_up;
  spec.fabric.oversubscription = tr[0].oversubscribed;
  spec.fabric.spine_oversubscription = h.tiers == 3 ? tr[1].oversubscribed : 1;
  spec.fabric.rail_optimized = false;
  spec.fabric.nic_speed = tr[0].downlink_speed;
  spec.fabric.link_speed = tr[1].downlink_speed;
  Topology t;
  try {
    t = build_cluster(spec);
  } catch (const core::InputError& e) {
    throw InputError({h.file, tr[0].line, "Tier"}, "anatomy's fat-tree builder cannot make this shape: " + e.message());
  }
  int built[4] = {0, 0, 0, 0};
  for (NodeId n = 0; n < t.num_nodes(); ++n)
    if (t.kind(n) == NodeKind::kSwitch && t.level(n) <= 3) ++built[t.level(n)];
  const int want_cores = static_cast<int>(cores + 0.5);
  if (built[1] != tors || built[2] != static_cast<int>(aggs + 0.5) || built[3] != want_cores)
    throw InputError({h.file, tr[0].line, "Tier"},
                     fmt::format("the file describes {} ToR, {:g} aggregation and {:g} core switches; anatomy's "
                                 "fat-tree builder makes {}, {} and {} for {} hosts of radix {}: only shapes it can "
                                 "build are read",
                                 tors, aggs, cores, built[1], built[2], built[3], h.nodes, spec.fabric.radix));
  // Each tier's speed and latency. A link below a tier-k switch belongs to
  // tier k; its latency is the cable's plus the forwarding delay of the
  // switch it enters (none for a NIC).
  for (LinkId l = 0; l < t.num_links(); ++l) {
    const Link& link = t.link(l);
    if (link.kind != LinkKind::kFabric) {
      // The host side (GPU <-> NIC over PCIe) is not in htsim's model: no
      // latency there, so path latencies are the file's.
      t.set_link_latency(l, SimTime::zero());
      continue;
    }
    const int upper = std::max(t.level(link.from), t.level(link.to));
    const int k = upper - 1;
    const NodeId entered = link.to;
    const SimTime forwarding =
        t.kind(entered) == NodeKind::kSwitch ? tr[t.level(entered) - 1].switch_latency : SimTime::zero();
    t.set_link_latency(l, tr[k].downlink_latency + forwarding);
    const Bandwidth built_speed = k == 0 ? spec.fabric.nic_speed : spec.fabric.link_speed;
    if (tr[k].downlink_speed.bps() != built_speed.bps())
      t.scale_link_bandwidth(l, tr[k].downlink_speed.bps() / built_speed.bps());
  }
  t.name = fmt::format("htsim fat-tree {} ({} hosts, {} tiers)", h.file, h.nodes, h.tiers);
  t.description = fmt::format("{}: {} ToR, {} aggregation, {} core switches; tier 0 at {} Gb/s", t.name, built[1],
                              built[2], built[3], tr[0].downlink_speed.bps() / 1e9);
  return t;
}

}  // namespace anatomy::topo
