#pragma once
// Progress on a terminal for anything that takes longer than a second:
//
//   [##########----------] 12/45 cases  simulated 3.21 s  wall 4.1 s  ETA 11 s
//
// The CLI owns one and calls advance() between units of work (validation
// cases, collective sizes, compared runs); the models know nothing of it.
// A second after it starts, and every 200 ms after that, it redraws the
// line on its stream (so wall time moves even while one long unit runs);
// on destruction it erases the line. Disabled — stream not a terminal, or
// --quiet — it draws nothing and starts no thread, so what a run writes to
// a file or a pipe never depends on it.
//
//   report::Progress progress(stderr, progress_wanted(quiet), cases.size(), "cases");
//   for (...) { run_case(...); progress.advance(simulated_time); }

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "core/time.h"

namespace anatomy::report {

struct ProgressState {
  int64_t done = 0, total = 0;
  std::string unit;         // "cases", "sizes", "runs"
  core::JobTime simulated;  // simulated time of the units done
  double wall_s = 0;        // since the start
  // Sweeps: units that failed, and the rate instead of the simulated time
  //   [####------] 12/64 points  1 failed  3.4/s  wall 3.5 s  ETA 12.4 s
  bool rate = false;
  int64_t failed = 0;
};

// The line for `state`, at most `width` columns (no newline). The ETA is
// the mean wall time per unit done times the units left ("ETA ?" before
// the first one).
std::string progress_line(const ProgressState& state, int width);

// How long work runs before its progress is drawn: a second, or
// ANATOMY_PROGRESS_DELAY_MS milliseconds when that is set (0: at once; the
// CLI tests use it to see the line without a long run).
std::chrono::milliseconds progress_delay();

class Progress {
 public:
  Progress(std::FILE* out, bool enabled, int64_t total, std::string unit,
           std::chrono::milliseconds delay = progress_delay());
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // One unit of work is done; `simulated` is the simulated time it covered.
  void advance(core::JobTime simulated = core::JobTime::zero());
  // One sweep point is done (failed: stored with its error); the line then
  // shows failures and the rate.
  void advance_point(bool failed);
  // The units of work in all, when they are known only once it has started.
  void set_total(int64_t total);

 private:
  void draw_locked();
  void tick();

  std::FILE* out_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;  // at most one line per 100 ms from advance()
  std::chrono::milliseconds delay_;
  ProgressState state_;
  bool drawn_ = false;
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread ticker_;
};

// True when progress should be drawn on stderr: it is a terminal and the
// user did not ask for --quiet.
bool progress_wanted(bool quiet);

}  // namespace anatomy::report
