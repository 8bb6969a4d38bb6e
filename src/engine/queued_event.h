#pragma once
// QueuedEvent: one pending event as the event queue stores it.
//
// It is 40 plain bytes (time, cancellation slot, callback) so the queue can
// move it with memcpy; the callback inside is destroyed exactly once, when
// the event runs or is dropped (see Callback::Raw).

#include <cstdint>
#include <type_traits>

#include "engine/callback.h"

namespace anatomy::engine {

struct QueuedEvent {
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  uint64_t time_ps;
  uint32_t slot;  // kNoSlot: not cancellable
  uint32_t generation;
  Callback::Raw cb;
};
static_assert(sizeof(QueuedEvent) == 40);
static_assert(std::is_trivially_copyable_v<QueuedEvent>);

}  // namespace anatomy::engine
