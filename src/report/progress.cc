#include "report/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace anatomy::report {
namespace {

std::string short_seconds(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return fmt::format("{}h{:02}m", static_cast<int>(s) / 3600, static_cast<int>(s) % 3600 / 60);
}

std::string sim_text(core::JobTime t) {
  const double s = t.seconds();
  if (s >= 1) return fmt::format("{:.2f} s", s);
  if (s >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.2f} us", s * 1e6);
}

}  // namespace

std::string progress_line(const ProgressState& st, int width) {
  const std::string eta = st.done > 0 && st.total > 0
                              ? short_seconds(st.wall_s / static_cast<double>(st.done) *
                                              static_cast<double>(std::max<int64_t>(0, st.total - st.done)))
                              : std::string("?");
  const std::string tail =
      st.rate ? fmt::format(" {}/{} {}  {} failed  {:.1f}/s  wall {}  ETA {}", st.done, st.total, st.unit, st.failed,
                            st.wall_s > 0 ? static_cast<double>(st.done) / st.wall_s : 0.0, short_seconds(st.wall_s), eta)
              : fmt::format(" {}/{} {}  simulated {}  wall {}  ETA {}", st.done, st.total, st.unit,
                            sim_text(st.simulated), short_seconds(st.wall_s), eta);
  const int bar = std::clamp(width - static_cast<int>(tail.size()) - 2, 0, 30);
  std::string line;
  if (bar >= 5) {
    const int filled =
        st.total > 0
            ? static_cast<int>(static_cast<double>(bar) * static_cast<double>(st.done) / static_cast<double>(st.total))
            : 0;
    const int f = std::clamp(filled, 0, bar);
    line = fmt::format("[{}{}]", std::string(f, '#'), std::string(bar - f, '-'));
  }
  line += tail;
  if (static_cast<int>(line.size()) > width) line.resize(std::max(0, width));
  return line;
}

Progress::Progress(std::FILE* out, bool enabled, int64_t total, std::string unit, std::chrono::milliseconds delay)
    : out_(out), enabled_(enabled), start_(std::chrono::steady_clock::now()), delay_(delay) {
  state_.total = total;
  state_.unit = std::move(unit);
  if (enabled_) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  if (!enabled_) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  ticker_.join();
  if (drawn_) {
    std::fputs("\r\033[K", out_);  // erase the line
    std::fflush(out_);
  }
}

void Progress::advance(core::JobTime simulated) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  ++state_.done;
  state_.simulated += simulated;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ >= delay_ && now - last_draw_ >= std::chrono::milliseconds(100)) draw_locked();
}

void Progress::advance_point(bool failed) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  state_.rate = true;
  ++state_.done;
  state_.failed += failed ? 1 : 0;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ >= delay_ && now - last_draw_ >= std::chrono::milliseconds(100)) draw_locked();
}

void Progress::set_total(int64_t total) {
  std::lock_guard lock(mu_);
  state_.total = total;
}

void Progress::draw_locked() {
  last_draw_ = std::chrono::steady_clock::now();
  state_.wall_s = std::chrono::duration<double>(last_draw_ - start_).count();
  std::fputs(fmt::format("\r{}\033[K", progress_line(state_, 100)).c_str(), out_);
  std::fflush(out_);
  drawn_ = true;
}

void Progress::tick() {
  std::unique_lock lock(mu_);
  if (cv_.wait_for(lock, delay_, [this] { return stop_; })) return;
  while (!stop_) {
    draw_locked();
    cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; });
  }
}

std::chrono::milliseconds progress_delay() {
  const char* env = std::getenv("ANATOMY_PROGRESS_DELAY_MS");
  if (env == nullptr || *env == '\0') return std::chrono::seconds(1);
  char* end = nullptr;
  const long ms = std::strtol(env, &end, 10);
  return *end == '\0' && ms >= 0 ? std::chrono::milliseconds(ms) : std::chrono::seconds(1);
}

bool progress_wanted(bool quiet) { return !quiet && isatty(fileno(stderr)) == 1; }

}  // namespace anatomy::report
