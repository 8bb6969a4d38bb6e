#include "core/workers.h"

#include <algorithm>
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

}  // namespace anatomy::core
