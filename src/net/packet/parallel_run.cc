#include "net/packet/parallel_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <thread>

#include "core/error.h"
#include "core/workers.h"
#include "engine/simulator.h"

namespace anatomy::net::packet {
namespace {

using Crossing = PacketNetwork::Crossing;

void add_stats(PacketStats& to, const PacketStats& s) {
  to.data_sent += s.data_sent;
  to.retransmits += s.retransmits;
  to.control_sent += s.control_sent;
  to.drops += s.drops;
  to.header_drops += s.header_drops;
  to.bounces += s.bounces;
  to.trims += s.trims;
  to.ecn_marks += s.ecn_marks;
  to.pfc_pauses += s.pfc_pauses;
  to.pfc_headroom_drops += s.pfc_headroom_drops;
  to.timeouts += s.timeouts;
  to.cnps += s.cnps;
  to.stale += s.stale;
  to.grants += s.grants;
  to.reordered += s.reordered;
  to.voq_drops += s.voq_drops;
  // A switch and a port are in one part, so the largest part's peak is the peak.
  to.peak_switch_bytes = std::max(to.peak_switch_bytes, s.peak_switch_bytes);
  to.peak_port_bytes = std::max(to.peak_port_bytes, s.peak_port_bytes);
  to.peak_packets += s.peak_packets;
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The threads meet once per window, and a window of a small fabric is a
// millisecond or less of work: a futex sleep and wake-up (std::barrier's
// way) costs tens of microseconds on a VM, so the threads spin briefly,
// then yield. Not long: a long loop of pause instructions cost more than
// it saved here, most likely because a hypervisor takes a vCPU that runs
// one off its core (pause-loop exiting) and it wakes late. Measured on
// htsim's 128-host files, 2 threads, median of 30 processes: one 2 MB
// flow (77 windows of little work) 9.4 ms with 4,096 pauses before
// yielding, 5.5-5.8 ms with 0-256; the permutation (86 windows of ~0.5 ms)
// the same either way. The last to arrive runs `last` before anyone goes
// on.
constexpr int kSpinsBeforeYield = 64;

class WindowBarrier {
 public:
  explicit WindowBarrier(int threads) : threads_(threads) {}
  template <typename F>
  void arrive_and_wait(F&& last) {
    const uint32_t gen = gen_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      last();
      arrived_.store(0, std::memory_order_relaxed);
      gen_.store(gen + 1, std::memory_order_release);
      return;
    }
    for (int spins = 0; gen_.load(std::memory_order_acquire) == gen; ++spins) {
      if (spins < kSpinsBeforeYield) cpu_relax();
      else std::this_thread::yield();
    }
  }

 private:
  const int threads_;
  std::atomic<int> arrived_{0};
  std::atomic<uint32_t> gen_{0};
};

// The simulator's prefetch hints hide cache misses on records spread over
// a large fabric; when a part's share fits in a core's cache they are pure
// cost. Measured on htsim's files, UEC, 2 threads, median of repeated runs:
// 16 hosts a part 0.092 s with hints, 0.077 s without; 32 a part 0.52 /
// 0.49 s; 64 a part 0.500 / 0.505 s; 128 a part 0.505 / 0.555 s.
bool hints_pay(uint32_t hosts, int parts) { return hosts >= 64u * static_cast<uint32_t>(parts); }

}  // namespace

PartitionedResult run_partitioned(const topo::Topology& t, const PacketConfig& config,
                                  const std::vector<TimedTransfer>& transfers, const PartitionedOptions& options) {
  if (!runs_in_parts(config) && options.partitions > 1)
    throw core::InputError("network.fabric: a switch-scheduled fabric's requests and grants cross parts without a link: "
                           "it runs as one part");
  if (options.transfer.complete_on_send && options.partitions > 1)
    throw core::InputError("complete_on_send: a send completion is timed on one event queue (the receiver's part cannot "
                           "see the sender's resends)");
  const Partition part = partition_nodes(t, options.partitions);
  const int parts = part.parts;
  int threads = options.threads > 0 ? options.threads : core::hardware_workers();
  threads = std::clamp(threads, 1, parts);

  TransportRegistry registry;
  register_builtin_transports(registry);
  std::vector<std::unique_ptr<engine::Simulator>> sims;
  std::vector<std::unique_ptr<PacketNetwork>> nets;
  // outboxes[from][to]: what part `from` sends part `to` in the running
  // window; inboxes[from][to]: what it sent in the window before, which
  // part `to` imports before it runs the next. The two trade contents at
  // the barrier between windows, so one barrier a window keeps the threads
  // that write the one apart from those that read the other.
  std::vector<std::vector<std::vector<Crossing>>> outboxes(parts, std::vector<std::vector<Crossing>>(parts));
  std::vector<std::vector<std::vector<Crossing>>> inboxes(parts, std::vector<std::vector<Crossing>>(parts));
  PartitionedResult r;
  r.partitions = parts;
  r.threads = threads;
  r.lookahead = part.lookahead;
  r.cut_links = part.cut_links;
  r.finished_ps.assign(transfers.size(), -1);
  for (int k = 0; k < parts; ++k) {
    sims.push_back(std::make_unique<engine::Simulator>());
    sims.back()->set_prefetch_hints(options.prefetch_hints && hints_pay(t.num_gpus(), parts));
    nets.push_back(std::make_unique<PacketNetwork>(*sims.back(), t, config, registry.make(config.transport),
                                                   make_buffer_policy(config)));
    nets.back()->join_partition(part, static_cast<uint16_t>(k), &outboxes[k]);
    if (k > 0) nets.back()->share_paths(*nets.front());
  }
  // Every part is given every transfer, in the same order (one slot number
  // per flow everywhere). Path sets are built here, on one thread.
  for (int k = 0; k < parts; ++k) {
    engine::Simulator* sim = sims[k].get();
    for (size_t i = 0; i < transfers.size(); ++i) {
      const TimedTransfer& x = transfers[i];
      nets[k]->transfer_at(
          x.start, x.src, x.dst, x.bytes, [&r, sim, i] { r.finished_ps[i] = sim->now().count_ps(); },
          options.transfer);
    }
  }

  auto earliest = [&] {
    SimTime next = SimTime::max();
    for (auto& s : sims) next = std::min(next, s->next_time());
    return next;
  };
  auto window_end = [&](SimTime start) {  // events strictly before it run in this window
    return part.cut_links == 0 || start > SimTime::max() - part.lookahead ? SimTime::max() : start + part.lookahead;
  };

  // The loop every thread runs on its parts (k = thread, thread + threads, ...):
  // import what the last window posted for them, run the window, then the
  // last thread at the barrier hands the window's crossings over and picks
  // the next window: the earliest event left in any part or crossing.
  SimTime end = SimTime::zero();
  bool done = false;
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::atomic_flag error_taken = ATOMIC_FLAG_INIT;
  std::vector<SimTime> next_of(threads, SimTime::max());
  std::vector<uint64_t> crossed(threads, 0);
  auto next_window = [&] {
    SimTime next = SimTime::max();
    for (SimTime n : next_of) next = std::min(next, n);
    if (next == SimTime::max() || failed.load()) {
      done = true;
      return;
    }
    end = window_end(next);
    ++r.windows;
    // The outer vectors' buffers trade places; each network's pointer to
    // its own row of outboxes stays valid.
    for (int from = 0; from < parts; ++from) outboxes[from].swap(inboxes[from]);
  };
  WindowBarrier sync(threads);
  // 0: wait, 1: run, 2: a thread could not be started, so none runs.
  std::atomic<int> go{0};
  auto work = [&](int self) {
    for (int g; (g = go.load(std::memory_order_acquire)) != 1;) {
      if (g == 2) return;
      std::this_thread::yield();
    }
    auto guarded = [&](auto&& body) {
      if (failed.load()) return;
      try {
        body();
      } catch (...) {
        if (!error_taken.test_and_set()) error = std::current_exception();
        failed.store(true);
      }
    };
    // This thread's parts, k = self, self + threads, ...
    std::vector<int> mine;
    for (int k = self; k < parts; k += threads) mine.push_back(k);
    for (;;) {
      guarded([&] {
        // Each part imports what crossed to it (in part order, then in the
        // order it was sent) and runs its window at once, while what the
        // import touched is still in cache; and every other window the
        // parts go in the reverse order, so the ones that ran last, whose
        // state the cache still holds, run first. Parts do not see one
        // another within a window, so the order changes nothing else.
        const SimTime last = end == SimTime::max() ? end : end - SimTime::ps(1);
        SimTime next = SimTime::max();
        const bool reverse = r.windows % 2 == 0;
        for (size_t i = 0; i < mine.size(); ++i) {
          const int k = mine[reverse ? mine.size() - 1 - i : i];
          for (int from = 0; from < parts; ++from) {
            std::vector<Crossing>& box = inboxes[from][k];
            for (const Crossing& c : box) nets[k]->import(c);
            crossed[self] += box.size();
            box.clear();
          }
          sims[k]->run_until(last);
          next = std::min({next, sims[k]->next_time(), nets[k]->take_earliest_crossing()});
        }
        next_of[self] = next;
      });
      sync.arrive_and_wait(next_window);
      if (done) return;
    }
  };

  const auto t0 = std::chrono::steady_clock::now();
  const SimTime first = earliest();
  if (first != SimTime::max()) {
    end = window_end(first);
    r.windows = 1;
    std::vector<std::thread> pool;
    try {
      for (int k = 1; k < threads; ++k) pool.emplace_back(work, k);
    } catch (...) {
      go.store(2, std::memory_order_release);
      for (std::thread& th : pool) th.join();
      throw;
    }
    go.store(1, std::memory_order_release);
    work(0);
    for (std::thread& th : pool) th.join();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (error) std::rethrow_exception(error);
  for (uint64_t c : crossed) r.crossings += c;
  for (int k = 0; k < parts; ++k) {
    r.events += sims[k]->events_processed();
    add_stats(r.stats, nets[k]->stats());
    r.flow_records += nets[k]->flow_records();
  }
  return r;
}

}  // namespace anatomy::net::packet
