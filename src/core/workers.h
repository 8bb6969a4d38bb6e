#pragma once
// One loop body run on several threads at once, the calling thread among
// them: how the front ends run independent items (validate's case files, a
// sweep's points) on every core. The body takes its next item from an index
// of its own, so what it computes does not depend on how many threads ran.

#include <cstddef>
#include <functional>

namespace anatomy::core {

// One a hardware thread, at least 1.
int hardware_workers();

// `work` on `workers` threads (at least the caller's), every one joined
// before this returns. A thread the system cannot start leaves its share to
// the others. `work` must not let an exception out on a thread of its own
// (the callers catch theirs and report after); one thrown on the calling
// thread propagates once the others have ended.
void run_on_workers(int workers, const std::function<void()>& work);

// item(0) ... item(count - 1) on up to `workers` threads, each taking the
// next index. An item that throws stops the items after it from starting;
// those before it were taken already and run to their end, and the lowest
// index's exception is rethrown once all have ended: the error one thread
// running them in order would report.
void for_each_index(size_t count, int workers, const std::function<void(size_t)>& item);

}  // namespace anatomy::core
