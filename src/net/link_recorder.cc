#include "net/link_recorder.h"

#include <algorithm>

#include "core/error.h"

namespace anatomy::net {

LinkRecorder::LinkRecorder(Network& net) : curves_(net.topology().num_links()) {
  net.signals().link_rate.subscribe([this](SimTime t, LinkId l, double bps) { on_rate(t, l, bps); });
  net.signals().link_tx.subscribe([this](SimTime t, LinkId l, int64_t bytes) { on_tx(t, l, bytes); });
}

void LinkRecorder::add(Curve& c, int64_t t_ps, double bits) {
  if (c.t_ps.empty()) {
    if (t_ps > 0) {  // nothing was carried before the first signal
      c.t_ps.push_back(0);
      c.bits.push_back(0);
    }
  } else if (c.t_ps.back() == t_ps ||
             (c.t_ps.size() >= 2 && t_ps - c.t_ps[c.t_ps.size() - 2] < c.resolution_ps)) {
    // The same instant, or too close to the point before the last: the last
    // point moves here (C stays exact at every point kept).
    c.t_ps.back() = t_ps;
    c.bits.back() = bits;
    return;
  }
  c.t_ps.push_back(t_ps);
  c.bits.push_back(bits);
  if (c.t_ps.size() <= kMaxPoints) return;
  // Too many points: double the resolution and drop the points now too close.
  c.resolution_ps = std::max<int64_t>(1, c.resolution_ps == 0 ? c.t_ps.back() / static_cast<int64_t>(kMaxPoints / 2)
                                                              : c.resolution_ps * 2);
  size_t kept = 1;
  for (size_t i = 1; i < c.t_ps.size(); ++i) {
    const bool last = i + 1 == c.t_ps.size();
    if (!last && c.t_ps[i] - c.t_ps[kept - 1] < c.resolution_ps) continue;
    c.t_ps[kept] = c.t_ps[i];
    c.bits[kept] = c.bits[i];
    ++kept;
  }
  c.t_ps.resize(kept);
  c.bits.resize(kept);
}

void LinkRecorder::on_rate(SimTime t, LinkId l, double bps) {
  Curve& c = curves_[l];
  const int64_t now = t.count_ps();
  const double bits = bits_at(c, now);
  if (!c.t_ps.empty() && c.rate == bps) return;  // no change in the slope: no point needed
  add(c, now, bits);
  c.rate = bps;
}

void LinkRecorder::on_tx(SimTime t, LinkId l, int64_t bytes) {
  Curve& c = curves_[l];
  const int64_t now = t.count_ps();
  add(c, now, (c.bits.empty() ? 0.0 : c.bits.back()) + static_cast<double>(bytes) * 8.0);
}

double LinkRecorder::bits_at(const Curve& c, int64_t t_ps) const {
  if (c.t_ps.empty() || t_ps <= c.t_ps.front()) return 0;
  if (t_ps >= c.t_ps.back()) return c.bits.back() + c.rate * static_cast<double>(t_ps - c.t_ps.back()) * 1e-12;
  const size_t i = static_cast<size_t>(std::upper_bound(c.t_ps.begin(), c.t_ps.end(), t_ps) - c.t_ps.begin());
  const double t0 = static_cast<double>(c.t_ps[i - 1]), t1 = static_cast<double>(c.t_ps[i]);
  return c.bits[i - 1] + (c.bits[i] - c.bits[i - 1]) * (static_cast<double>(t_ps) - t0) / (t1 - t0);
}

double LinkRecorder::bytes_between(LinkId l, SimTime from, SimTime to) const {
  ANATOMY_CHECK(to >= from, "an interval ends before it starts");
  const Curve& c = curves_[l];
  return (bits_at(c, to.count_ps()) - bits_at(c, from.count_ps())) / 8.0;
}

size_t LinkRecorder::points(LinkId l) const { return curves_[l].t_ps.size(); }

}  // namespace anatomy::net
