#include "net/packet/paths.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/rng.h"

namespace anatomy::net::packet {
namespace {

constexpr uint8_t kNotLocal = 255;

uint64_t hash_links(const std::vector<LinkId>& links, SimTime pre, SimTime post) {
  uint64_t h = core::mix64(static_cast<uint64_t>(pre.count_ps()) ^ (static_cast<uint64_t>(post.count_ps()) << 1));
  for (LinkId l : links) h = core::mix64(h ^ l);
  return h;
}

SimTime wire_time(int64_t wire_bytes, double line_bps) {
  return SimTime::ps(static_cast<int64_t>(std::ceil(static_cast<double>(wire_bytes) * 8e12 / line_bps - 1e-6)));
}

// Whether every compact byte of s (from s.local) is fixed or a bit field
// of the path's index; if so, fills s's fields (PathSet::compact_bytes).
bool as_fields(PathSet& s) {
  const size_t width = 2 * static_cast<size_t>(s.len);
  if (s.count < 2 || width > 2 * kCompactHops) return false;
  auto at = [&](uint32_t i, size_t b) { return s.local[i * width + b]; };
  uint8_t fields = 0, values = 0;
  for (size_t b = 0; b < width; ++b) {
    s.fixed[b] = at(0, b);
    uint32_t stride = 1;
    while (stride < s.count && at(stride, b) == at(0, b)) ++stride;
    if (stride == s.count) continue;  // the same on every path
    // It first changes at path `stride`: a field of i from bit log2(stride)
    // if stride is a power of two and some power-of-two width of it
    // repeats over every path.
    if ((stride & (stride - 1)) != 0 || fields == PathSet::kMaxFields) return false;
    const uint8_t shift = static_cast<uint8_t>(std::countr_zero(stride));
    bool found = false;
    for (uint32_t width_bits = 1; !found && (stride << width_bits) <= s.count && width_bits <= 8; ++width_bits) {
      const uint32_t n = 1u << width_bits;
      if (values + n > PathSet::kMaxFieldValues) break;
      found = true;
      for (uint32_t i = 0; found && i < s.count; ++i)
        found = at(i, b) == at(((i >> shift) & (n - 1)) << shift, b);
      if (!found) continue;
      PathSet::Field& f = s.field[fields++];
      f.pos = static_cast<uint8_t>(b);
      f.shift = shift;
      f.mask = static_cast<uint8_t>(n - 1);
      f.values = values;
      for (uint32_t j = 0; j < n; ++j) s.field_values[values + j] = at(j << shift, b);
      values = static_cast<uint8_t>(values + n);
    }
    if (!found) return false;
  }
  s.fields = fields;
  return fields > 0;
}

}  // namespace

void PathSet::block(uint32_t i, uint32_t hops, uint32_t& begin, uint32_t& end) const {
  const LinkId* p = forward(i);
  const size_t n = static_cast<size_t>(hops) * sizeof(LinkId);
  begin = i;
  while (begin > 0 && std::memcmp(forward(begin - 1), p, n) == 0) --begin;
  end = i + 1;
  while (end < count && std::memcmp(forward(end), p, n) == 0) ++end;
}

PathCache::PathCache(const topo::Topology& t, const PacketConfig& c)
    : topo_(t), cfg_(c), reverse_(t.num_links(), topo::kNoLink), local_of_(t.num_links(), kNotLocal) {
  for (NodeId n = 0; n < t.num_nodes(); ++n) {
    const std::span<const LinkId> out = t.out_links(n);
    for (size_t k = 0; k < out.size() && k < kNotLocal; ++k) local_of_[out[k]] = static_cast<uint8_t>(k);
  }
}

double PathCache::line_bps(LinkId l) const {
  const topo::Link& k = topo_.link(l);
  if (!is_fabric_link(k.kind)) return k.bandwidth.bps();
  return k.bandwidth.bps() * static_cast<double>(topo_.framing.mtu_bytes + topo_.framing.overhead_bytes) / topo_.framing.mtu_bytes;
}

int64_t PathCache::wire_bytes(LinkId l, int payload) const {
  if (payload == 0) return cfg_.header_wire;
  return payload + (is_fabric_link(topo_.link(l).kind) ? topo_.framing.overhead_bytes : 0);
}

LinkId PathCache::reverse_of(LinkId l) {
  if (reverse_[l] == topo::kNoLink) {
    const topo::Link& k = topo_.link(l);
    reverse_[l] = topo_.find_link(k.to, k.from);
    ANATOMY_CHECK(reverse_[l] != topo::kNoLink, "a link without a reverse link cannot carry acknowledgements");
  }
  return reverse_[l];
}

void PathCache::model(const std::vector<LinkId>& full, std::vector<LinkId>& links, SimTime& pre, SimTime& post) const {
  size_t first = full.size(), last = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    if (is_fabric_link(topo_.link(full[i]).kind)) {
      if (first == full.size()) first = i;
      last = i;
    }
  }
  if (first == full.size()) {  // no fabric on the way: model every link
    first = 0;
    last = full.size() - 1;
  }
  pre = post = SimTime::zero();
  for (size_t i = 0; i < first; ++i) pre += topo_.link(full[i]).latency;
  for (size_t i = last + 1; i < full.size(); ++i) post += topo_.link(full[i]).latency;
  links.assign(full.begin() + static_cast<std::ptrdiff_t>(first), full.begin() + static_cast<std::ptrdiff_t>(last) + 1);
}

PathSet& PathCache::finish(PathSet&& made) {
  PathSet* s = &owned_.emplace_back();
  *s = std::move(made);
  const uint32_t len = s->len;
  ANATOMY_CHECK(len > 0 && len <= UINT16_MAX, "a modelled path needs 1 to 65535 links");
  s->rev.resize(s->fwd.size());
  for (uint32_t i = 0; i < s->count; ++i)
    for (uint32_t k = 0; k < len; ++k) s->rev[i * len + k] = reverse_of(s->fwd[i * len + len - 1 - k]);
  // Path i's compact bytes are its forward route then its reverse one, so
  // a data packet copies both in one line (the acknowledgement takes its
  // route from the data packet, not from here), with kCompactHops bytes of
  // padding so that copy has a fixed, inlined size from any path.
  auto compact_routes = [&] {
    if (len > kCompactHops) return false;
    s->local.assign(s->fwd.size() * 2 + kCompactHops, 0);
    for (uint32_t i = 0; i < s->count; ++i)
      for (uint32_t k = 0; k < len; ++k) {
        const uint8_t f = local_of_[s->fwd[i * len + k]], r = local_of_[s->rev[i * len + k]];
        if (f == kNotLocal || r == kNotLocal) return false;
        s->local[2 * i * len + k] = f;
        s->local[2 * i * len + len + k] = r;
      }
    return true;
  };
  if (!compact_routes()) s->local.clear();
  else if (as_fields(*s)) std::vector<uint8_t>().swap(s->local);  // and free its bytes
  const NodeId start = topo_.link(s->rev[0]).from;
  s->rev_first = topo_.out_begin(start);
  for (uint32_t i = 1; i < s->count; ++i)
    if (topo_.link(s->rev[i * len]).from != start) s->rev_first = PathSet::kNoSlot;
  s->latency = SimTime::zero();
  s->line_bps = 0;
  SimTime data_out, ctrl_back;
  for (uint32_t k = 0; k < len; ++k) {
    const LinkId l = s->fwd[k];
    const double bps = line_bps(l);
    s->latency += topo_.link(l).latency;
    if (s->line_bps == 0 || bps < s->line_bps) {
      s->line_bps = bps;
      s->wire_overhead = static_cast<int>(wire_bytes(l, topo_.framing.mtu_bytes) - topo_.framing.mtu_bytes);
    }
    data_out += wire_time(wire_bytes(l, topo_.framing.mtu_bytes), bps);
    const LinkId r = s->rev[k];
    ctrl_back += wire_time(wire_bytes(r, 0), line_bps(r)) + topo_.link(r).latency;
  }
  const LinkId last = s->fwd[len - 1];
  s->data_time_last = wire_time(wire_bytes(last, topo_.framing.mtu_bytes), line_bps(last));
  s->base_rtt = s->latency + data_out + ctrl_back;
  return *s;
}

const PathSet& PathCache::ecmp(NodeId src, NodeId dst, uint64_t hash) {
  full_.clear();
  topo_.route(src, dst, hash, full_);
  ANATOMY_CHECK(!full_.empty(), "ecmp() needs a route with at least one link");
  SimTime pre, post;
  model(full_, links_, pre, post);
  const uint64_t key = hash_links(links_, pre, post);
  auto& bucket = by_route_[key];
  for (PathSet* s : bucket)
    if (s->pre_delay == pre && s->post_delay == post && s->fwd == links_) return *s;
  PathSet s;
  s.count = 1;
  s.len = static_cast<uint32_t>(links_.size());
  s.fwd = links_;
  s.pre_delay = pre;
  s.post_delay = post;
  PathSet& out = finish(std::move(s));
  bucket.push_back(&out);
  return out;
}

const PathSet& PathCache::spray(NodeId src, NodeId dst) {
  const uint64_t key = core::mix64((static_cast<uint64_t>(src) << 32) ^ dst);
  auto it = by_pair_.find(key);
  if (it != by_pair_.end()) return *it->second;
  // Sample entropy values until `spray_paths` distinct paths are found (or
  // enough samples say there are no more). Every path keeps the first
  // sample's first link: a flow sprays within one NIC port (one plane).
  const uint32_t want = static_cast<uint32_t>(std::max(1, cfg_.spray_paths));
  std::vector<std::vector<LinkId>> found;
  if (want > kSampledPaths) return every_path(key, src, dst, want);
  SimTime pre, post;
  LinkId first_link = topo::kNoLink;
  uint32_t misses = 0;
  for (uint64_t ev = 0; found.size() < want && misses < 4 * want + 16; ++ev) {
    full_.clear();
    topo_.route(src, dst, core::mix64(key + 0x5eed * (ev + 1)), full_);
    SimTime a, b;
    model(full_, links_, a, b);
    if (found.empty()) {
      pre = a;
      post = b;
      first_link = links_.front();
      found.push_back(links_);
      continue;
    }
    if (links_.front() != first_link || links_.size() != found.front().size() ||
        std::find(found.begin(), found.end(), links_) != found.end()) {
      ++misses;
      continue;
    }
    found.push_back(links_);
  }
  const auto len = static_cast<uint32_t>(found.front().size());
  std::vector<LinkId> flat;
  flat.reserve(found.size() * len);
  for (const auto& p : found) flat.insert(flat.end(), p.begin(), p.end());
  return store(key, flat, len, pre, post);
}

// The paths found for a pair as its PathSet: `flat` holds paths of `len`
// links one after another; they are stored in lexicographic order, as a
// set of equal-cost paths does not depend on the order they were found in.
const PathSet& PathCache::store(uint64_t key, const std::vector<LinkId>& flat, uint32_t len, SimTime pre,
                                SimTime post) {
  const uint32_t count = static_cast<uint32_t>(flat.size() / len);
  std::vector<uint32_t> order(count);
  for (uint32_t i = 0; i < count; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::lexicographical_compare(flat.begin() + a * len, flat.begin() + (a + 1) * len, flat.begin() + b * len,
                                        flat.begin() + (b + 1) * len);
  });
  PathSet s;
  s.count = count;
  s.len = len;
  s.fwd.reserve(flat.size());
  for (uint32_t i : order) s.fwd.insert(s.fwd.end(), flat.begin() + i * len, flat.begin() + (i + 1) * len);
  s.pre_delay = pre;
  s.post_delay = post;
  PathSet& out = finish(std::move(s));
  by_pair_.emplace(key, &out);
  return out;
}

// More paths than sampling finds cheaply: every equal-cost path between the
// two NICs (the topology enumerates them), within the first route's NIC port.
const PathSet& PathCache::every_path(uint64_t key, NodeId src, NodeId dst, uint32_t want) {
  full_.clear();
  topo_.route(src, dst, core::mix64(key + 0x5eed), full_);
  SimTime pre, post;
  model(full_, links_, pre, post);
  const LinkId first = links_.front();
  const size_t len = links_.size();
  if (len == 1 || !is_fabric_link(topo_.link(first).kind)) return store(key, links_, static_cast<uint32_t>(len), pre, post);
  std::vector<LinkId>& flat = full_;  // the route is in links_ now: reuse its buffer
  flat.clear();
  uint32_t found = 0;
  topo_.for_each_fabric_path(topo_.link(first).from, topo_.link(links_.back()).to, [&](std::span<const LinkId> p) {
    if (p.front() == first && p.size() == len) {
      flat.insert(flat.end(), p.begin(), p.end());
      ++found;
    }
    return found < want;
  });
  if (found == 0) flat = links_;
  return store(key, flat, static_cast<uint32_t>(len), pre, post);
}

size_t PathCache::memory_bytes() const {
  size_t total = reverse_.capacity() * sizeof(LinkId);
  total += local_of_.capacity();
  owned_.for_each([&](const PathSet& s) {
    total += sizeof(PathSet) + (s.fwd.capacity() + s.rev.capacity()) * sizeof(LinkId) + s.local.capacity();
  });
  return total;
}

}  // namespace anatomy::net::packet
