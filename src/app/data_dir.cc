#include "app/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::app {
namespace {

namespace fs = std::filesystem;

std::string canonical_dir(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_directory(p, ec)) return "";
  const fs::path c = fs::canonical(p, ec);
  return ec ? "" : c.string();
}

}  // namespace

std::string data_dir() {
  if (const char* env = std::getenv("ANATOMY_DATA_DIR"); env && *env) {
    const std::string d = canonical_dir(env);
    if (d.empty()) throw core::InputError({"", 0, "ANATOMY_DATA_DIR"}, fmt::format("'{}' is not a folder", env));
    return d;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path bin = exe.parent_path();
  for (const fs::path& candidate : {bin / ".." / "share" / "anatomy", bin / "share" / "anatomy"}) {
    const std::string d = canonical_dir(candidate);
    if (!d.empty()) return d;
  }
  return "";
}

std::string shipped_calibration(std::string_view file) {
  const std::string dir = data_dir();
  if (dir.empty()) return "";
  std::error_code ec;
  const fs::path p = fs::canonical(fs::path(dir) / "calibration" / fs::path(file), ec);
  return ec || !fs::is_regular_file(p) ? "" : p.string();
}

std::string shipped_calibration_for(const hw::Accelerator& gpu) {
  const std::string& table = gpu.calibration_table.empty() ? gpu.arch.calibration_table : gpu.calibration_table;
  return table.empty() ? "" : shipped_calibration(table);
}

std::string shipped_measured_table() { return shipped_calibration("h200.json"); }

std::string shipped_tool(std::string_view file) {
  const std::string dir = data_dir();
  if (dir.empty()) return "";
  std::error_code ec;
  const fs::path p = fs::canonical(fs::path(dir) / "tools" / fs::path(file), ec);
  return ec || !fs::is_regular_file(p) ? "" : p.string();
}

std::string validation_dir(std::string_view field) {
  const std::string dir = data_dir();
  const std::string cases = dir.empty() ? "" : canonical_dir(fs::path(dir) / "validation");
  if (cases.empty())
    throw core::InputError({"", 0, std::string(field)},
                           "no validation cases found beside the binary (share/anatomy/validation); give a folder "
                           "or set ANATOMY_DATA_DIR");
  return cases;
}

}  // namespace anatomy::app
