#pragma once
// Reading a file a user names (a scenario, a calibration table, a trace):
// only a regular file, and only up to a size limit, so that /dev/zero, a
// FIFO or a runaway file is one clear error instead of a hang or a run out
// of memory.
//
//   const std::string text = read_input_file(path, kMaxScenarioBytes, "scenario file");

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace anatomy::core {

inline constexpr int64_t kMaxScenarioBytes = 4 << 20;      // 4 MiB: a scenario is a page of YAML
inline constexpr int64_t kMaxCalibrationBytes = 64 << 20;  // 64 MiB: the shipped H200 table is 96 kB

// The whole file. Throws InputError naming `path` (line 0, no field) when it
// is missing or unreadable, not a regular file, or larger than `max_bytes`;
// `what` names it in the message ("scenario file").
std::string read_input_file(const std::string& path, int64_t max_bytes, const std::string& what);

// When a scenario field names the file: an error reading the whole file
// (read_input_file's: no line, no field) becomes an error of `field` that
// says which file, so the scenario's own file and line can be put on it
// (scenario::locate_in_scenario); an error inside the file keeps its own
// file, line and field.
InputError as_error_of_field(const InputError& e, const std::string& field);

// The whitespace-separated words of one line of such a file (views into it).
std::vector<std::string_view> words_of(std::string_view line);

}  // namespace anatomy::core
