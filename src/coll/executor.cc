#include "coll/executor.h"

#include "core/error.h"

namespace anatomy::coll {

void Executor::start(const Schedule& s, engine::Callback on_done) {
  ANATOMY_CHECK(schedule_ == nullptr, "an Executor runs one schedule at a time");
  schedule_ = &s;
  on_done_ = std::move(on_done);
  phase_ = 0;
  stats_ = ExecutionStats{};
  stats_.start = net_.simulator().now();
  net_.simulator().schedule_in(s.base_latency, [this] { begin_phase(); });
}

void Executor::begin_phase() {
  if (phase_ >= schedule_->phases.size()) {
    stats_.end = net_.simulator().now();
    schedule_ = nullptr;
    if (options_.done && *options_.done) {
      static const std::string kUnnamed = "collective";
      options_.done->emit(options_.communicator ? *options_.communicator : kUnnamed, stats_.start, stats_.end);
    }
    engine::Callback done = std::move(on_done_);
    if (done) done();
    return;
  }
  rep_ = 0;
  begin_repetition();
}

void Executor::begin_repetition() {
  const Phase& p = schedule_->phases[phase_];
  rep_start_ = net_.simulator().now();
  rep_was_alone_ = net_.active_transfers() == 0;
  started_before_ = net_.counters().transfers_started;
  ++stats_.repetitions_simulated;
  if (p.sends.empty()) {
    repetition_done();
    return;
  }
  outstanding_ = static_cast<int64_t>(p.sends.size());
  net::TransferOptions opt;
  opt.complete_on_send = true;
  opt.traffic = options_.traffic;
  for (const Send& s : p.sends) {
    opt.flow_hash = s.flow_hash;
    ++stats_.sends_issued;
    net_.transfer(s.src, s.dst, s.bytes, [this] {
      if (--outstanding_ == 0) repetition_done();
    }, opt);
  }
}

void Executor::repetition_done() {
  const Phase& p = schedule_->phases[phase_];
  const SimTime floor = rep_start_ + p.min_duration;
  if (net_.simulator().now() < floor) {
    // The protocol cannot go faster than its cap: finish at the floor.
    net_.simulator().schedule_at(floor, [this] { repetition_finished(); });
    return;
  }
  repetition_finished();
}

void Executor::repetition_finished() {
  const Phase& p = schedule_->phases[phase_];
  ++rep_;
  if (rep_ >= p.repeat) {
    finish_phase();
    return;
  }
  const bool alone = rep_was_alone_ &&
                     net_.counters().transfers_started - started_before_ == static_cast<uint64_t>(p.sends.size());
  if (options_.exclusive && alone) {
    // Every remaining repetition would take exactly as long as this one.
    const SimTime took = net_.simulator().now() - rep_start_;
    const int64_t left = p.repeat - rep_;
    stats_.repetitions_fast_forwarded += left;
    rep_ = p.repeat;
    net_.simulator().schedule_in(took * left, [this] { finish_phase(); });
    return;
  }
  begin_repetition();
}

void Executor::finish_phase() {
  const Phase& p = schedule_->phases[phase_];
  ++phase_;
  net_.simulator().schedule_in(p.latency_after, [this] { begin_phase(); });
}

}  // namespace anatomy::coll
