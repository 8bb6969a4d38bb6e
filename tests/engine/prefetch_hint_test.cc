// Prefetch hints (engine/callback.h, Simulator::hint_ahead): a callable
// with prefetch_far/near is told about its run two and one events ahead,
// and the hints never change which events run or when.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/simulator.h"

namespace anatomy::engine {
namespace {

// Appends "<stage><id>" for each hint and "run<id>" when it runs.
struct HintLogger {
  std::vector<std::string>* log;
  int id;
  void operator()() const { log->push_back("run" + std::to_string(id)); }
  void prefetch_far() const { log->push_back("far" + std::to_string(id)); }
  void prefetch_near() const { log->push_back("near" + std::to_string(id)); }
};

// Whether a callable hints is a property of its type; a callable that
// would not be stored inline cannot hint (its dispatcher is the heap one).
struct TooBigToHint {
  std::vector<std::string>* log;
  int64_t pad[2];
  void operator()() const {}
  void prefetch_far() const {}
  void prefetch_near() const {}
};

TEST(PrefetchHint, ACallableWithHintsIsMarkedAndAPlainLambdaIsNot) {
  EXPECT_TRUE(PrefetchHinted<HintLogger>);
  EXPECT_FALSE(PrefetchHinted<decltype([] {})>);
  EXPECT_FALSE(PrefetchHinted<TooBigToHint>);
  // A hinting callable already wrapped in a Callback has lost its type:
  // it runs like any other event and is never asked for hints.
  EXPECT_FALSE(PrefetchHinted<Callback>);
}

TEST(PrefetchHint, AHintingCallableWrappedInACallbackRunsWithoutHints) {
  Simulator sim;
  std::vector<std::string> log;
  for (int i = 0; i < 3; ++i) sim.schedule_at(SimTime::ns(i + 1), Callback(HintLogger{&log, i}));
  sim.run();
  EXPECT_EQ(log, (std::vector<std::string>{"run0", "run1", "run2"}));
}

TEST(PrefetchHint, EachEventHearsFarThenNearBeforeItRuns) {
  Simulator sim;
  std::vector<std::string> log;
  for (int i = 0; i < 5; ++i) sim.schedule_at(SimTime::ns(10 * (i + 1)), HintLogger{&log, i});
  sim.run();
  // Running event 0 hints 2 (far) and 1 (near); event 1 hints 3 and 2;
  // event 2 hints 4 and 3; event 3 hints 4 (near); nothing is after 4.
  const std::vector<std::string> want = {"far2", "near1", "run0", "far3", "near2", "run1", "far4",
                                         "near3", "run2", "near4", "run3", "run4"};
  EXPECT_EQ(log, want);
  EXPECT_EQ(sim.events_processed(), 5u);
}

TEST(PrefetchHint, HintsOffRunTheSameEventsWithoutHints) {
  Simulator sim;
  sim.set_prefetch_hints(false);
  std::vector<std::string> log;
  for (int i = 0; i < 4; ++i) sim.schedule_at(SimTime::ns(5), HintLogger{&log, i});
  sim.run();
  // Four ties at 5 ns, in insertion order, and no hint at all.
  EXPECT_EQ(log, (std::vector<std::string>{"run0", "run1", "run2", "run3"}));
}

TEST(PrefetchHint, CancellableEventsGetNoHints) {
  // A cancellable event's generation field is its slot's generation, not
  // the hint flag, so it is never hinted (and a cancelled one never runs).
  Simulator sim;
  std::vector<std::string> log;
  sim.schedule_at(SimTime::ns(1), [] {});
  const EventHandle h = sim.schedule_cancellable_at(SimTime::ns(2), HintLogger{&log, 1});
  sim.schedule_cancellable_at(SimTime::ns(3), HintLogger{&log, 2});
  sim.cancel(h);
  sim.run();
  EXPECT_EQ(log, (std::vector<std::string>{"run2"}));
}

}  // namespace
}  // namespace anatomy::engine
