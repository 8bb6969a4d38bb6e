#pragma once
// LinkRecorder: how many bytes each link has carried by any instant of a
// run, recorded from the backend's signals (NetworkSignals) as the run goes,
// so a writer can ask for a link's load over any interval after the run
// without simulating it a second time.
//
// The model. Each link's cumulative carried bits C(t) is kept as points
// (t, C) and read by linear interpolation between them:
//   flow model  the link's rate is constant between two link_rate signals,
//               so C is piecewise linear and the points are exact;
//   packet      each link_tx adds a packet's payload at the instant it
//               starts on the wire; between two points the interpolation
//               spreads the bytes over the time between them (a packet
//               serializes over exactly such a time).
// Memory is bounded: a link keeps at most kMaxPoints points. When it would
// keep more, its resolution doubles (points closer than that to the one
// before them are dropped; C stays exact at every kept point), so a busy
// link costs at most 2 x kMaxPoints x 16 bytes however long the run.
//
//   net::LinkRecorder rec(network);               // subscribes; before the run
//   sim.run();
//   double b = rec.bytes_between(link, t0, t1);   // bytes carried in [t0, t1]

#include <cstdint>
#include <vector>

#include "net/network.h"

namespace anatomy::net {

class LinkRecorder {
 public:
  static constexpr size_t kMaxPoints = 4096;

  // Subscribes to `net`'s link_rate and link_tx; the recorder must outlive
  // the network's run (it is called from it) and `net` must outlive the recorder.
  explicit LinkRecorder(Network& net);
  LinkRecorder(const LinkRecorder&) = delete;
  LinkRecorder& operator=(const LinkRecorder&) = delete;

  // Bytes link `l` carried from `from` to `to` (to >= from).
  double bytes_between(LinkId l, SimTime from, SimTime to) const;
  // Points kept for `l` (for tests of the bound).
  size_t points(LinkId l) const;

 private:
  struct Curve {
    std::vector<int64_t> t_ps;
    std::vector<double> bits;  // C at t_ps[i]
    double rate = 0;           // flow model: bits/s since the last point
    int64_t resolution_ps = 0; // points closer than this to the one before are dropped
  };
  void add(Curve& c, int64_t t_ps, double bits);
  double bits_at(const Curve& c, int64_t t_ps) const;
  void on_rate(SimTime t, LinkId l, double bps);
  void on_tx(SimTime t, LinkId l, int64_t bytes);

  std::vector<Curve> curves_;  // by LinkId
};

}  // namespace anatomy::net
