#pragma once
// Helpers shared by the fuzz targets that read files rather than text: one
// input split into several files, written to a private folder per process.
//
// An input is a kind byte, then file bodies separated by kFileSeparator, so
// that seeds are real files joined (fuzz/make_seeds.sh) and mutations keep
// most of their structure.

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace anatomy::fuzz {

inline constexpr std::string_view kFileSeparator = "\n--8<--\n";

// The bodies of an input after its kind byte, at most `max_files`.
inline std::vector<std::string> split_files(std::string_view rest, size_t max_files) {
  std::vector<std::string> files;
  while (files.size() + 1 < max_files) {
    const size_t at = rest.find(kFileSeparator);
    if (at == std::string_view::npos) break;
    files.emplace_back(rest.substr(0, at));
    rest.remove_prefix(at + kFileSeparator.size());
  }
  files.emplace_back(rest);
  return files;
}

// An empty folder of this process's own (the fuzzer may run several jobs).
inline std::string fresh_dir(const char* name) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / (std::string(name) + "-" + std::to_string(getpid()));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  return dir.string();
}

inline void write_file(const std::string& path, const std::string& body) {
  std::ofstream(path, std::ios::binary) << body;
}

// True when the error's file is `dir` or a file inside it.
inline bool names_a_file_in(const std::string& file, const std::string& dir) {
  return file == dir || file.rfind(dir + "/", 0) == 0;
}

}  // namespace anatomy::fuzz
