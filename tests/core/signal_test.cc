#include "core/signal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/time.h"

namespace anatomy::core {
namespace {

TEST(Signal, NobodyListeningIsFalseAndEmitDoesNothing) {
  // An emitter tests the signal before building costly arguments; with no
  // subscriber emit() returns at once (the arguments are not even copied).
  Signal<SimTime, const std::string&> s;
  EXPECT_FALSE(s);
  EXPECT_EQ(s.listeners(), 0u);
  s.emit(SimTime::ms(1), std::string("ignored"));
}

TEST(Signal, SubscribersHearEveryEmitInSubscriptionOrder) {
  // Two subscribers, two emits: the calls interleave as (first, second) per
  // emit, the same on every run, so writers that subscribe see one order.
  Signal<SimTime, int> s;
  std::vector<std::string> heard;
  s.subscribe([&](SimTime t, int v) { heard.push_back("a" + std::to_string(t.count_ps()) + ":" + std::to_string(v)); });
  s.subscribe([&](SimTime t, int v) { heard.push_back("b" + std::to_string(t.count_ps()) + ":" + std::to_string(v)); });
  EXPECT_TRUE(s);
  s.emit(SimTime::ps(5), 1);
  s.emit(SimTime::ps(7), 2);
  EXPECT_EQ(heard, (std::vector<std::string>{"a5:1", "b5:1", "a7:2", "b7:2"}));
}

}  // namespace
}  // namespace anatomy::core
