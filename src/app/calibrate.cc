#include "app/calibrate.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/data_dir.h"
#include "core/error.h"

namespace anatomy::app {
namespace {

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string python_for(const CalibrateRequest& q) {
  if (!q.python.empty()) return q.python;
  if (const char* env = std::getenv("ANATOMY_PYTHON"); env && *env) return env;
  std::error_code ec;
  return std::filesystem::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
}

}  // namespace

CalibrateRun run_calibrate(const CalibrateRequest& q) {
  if (q.out.empty()) throw core::InputError({"", 0, "--out"}, "give the table's file: --out table.json");
  if (!q.device.empty() && q.device != "cuda" && q.device != "cpu")
    throw core::InputError({"", 0, "--device"}, fmt::format("unknown '{}' (known: cuda, cpu)", q.device));
  if (q.threads < 1) throw core::InputError({"", 0, "--threads"}, "must be at least 1");
  CalibrateRun run;
  run.probe = shipped_tool("calibrate_probe.py");
  if (run.probe.empty())
    throw core::InputError({"", 0, "calibrate"}, "the probe tools/calibrate_probe.py is not beside anatomy's data "
                                                 "(set ANATOMY_DATA_DIR to the folder that holds tools/)");
  run.command = fmt::format("{} {} --out {}{}{} --threads {}", shell_quoted(python_for(q)), shell_quoted(run.probe), shell_quoted(q.out),
                            q.device.empty() ? "" : " --device " + q.device, q.quick ? " --quick" : "", q.threads);
  FILE* p = popen((run.command + " 2>&1").c_str(), "r");
  if (!p) throw core::InputError({"", 0, "calibrate"}, fmt::format("cannot run {}", run.command));
  std::string output;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) output.append(buf.data(), n);
  const int status = pclose(p);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  while (!output.empty() && output.back() == '\n') output.pop_back();
  const size_t last = output.rfind('\n');
  run.summary = last == std::string::npos ? output : output.substr(last + 1);
  // An error is one line: the probe's last line says why (Python's
  // exception, or the probe's own message); the command reruns it whole.
  if (code != 0)
    throw core::InputError({"", 0, "calibrate"},
                           fmt::format("the probe failed (exit {}): {}: {}", code, run.summary, run.command));
  run.table = hw::load_calibration(q.out);
  return run;
}

}  // namespace anatomy::app
