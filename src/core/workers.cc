#include "core/workers.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace anatomy::core {

int hardware_workers() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

void run_on_workers(int workers, const std::function<void()>& work) {
  std::vector<std::thread> pool;
  for (int t = 1; t < workers; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // fewer threads: the same items, taken by those that started
    }
  }
  // Joined on the way out too, so that `work` throwing here does not leave a
  // joinable thread behind (std::terminate).
  struct JoinAll {
    std::vector<std::thread>& threads;
    ~JoinAll() {
      for (std::thread& t : threads) t.join();
    }
  } join_all{pool};
  work();
}

void for_each_index(size_t count, int workers, const std::function<void(size_t)>& item) {
  std::atomic<size_t> next{0}, first_failure{count};
  std::exception_ptr failure;  // the lowest failing index's
  std::mutex mu;
  run_on_workers(static_cast<int>(std::clamp<size_t>(count, 1, static_cast<size_t>(std::max(workers, 1)))), [&] {
    for (;;) {
      const size_t i = next.fetch_add(1);
      if (i >= count || i > first_failure.load()) return;
      try {
        item(i);
      } catch (...) {
        std::lock_guard lock(mu);
        if (i < first_failure.load()) {
          first_failure = i;
          failure = std::current_exception();
        }
      }
    }
  });
  if (failure) std::rethrow_exception(failure);
}

}  // namespace anatomy::core
