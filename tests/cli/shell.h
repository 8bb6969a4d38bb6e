#pragma once
// Runs a shell command line for the end-to-end CLI tests, capturing its
// exit code, stdout and stderr.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace anatomy::testing {

struct ShellResult {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline ShellResult run_shell(const std::string& cmd) {
  static int calls = 0;
  const std::string err_file = ::testing::TempDir() + "anatomy_cli_stderr_" + std::to_string(getpid()) + "_" +
                               std::to_string(++calls) + ".txt";
  ShellResult r;
  FILE* p = popen((cmd + " 2>" + err_file).c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file, std::ios::binary);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  std::filesystem::remove(err_file);
  return r;
}

// The anatomy binary under test with `args`.
inline ShellResult run(const std::string& args) { return run_shell(std::string(ANATOMY_BINARY) + " " + args); }

// Writes `text` to TempDir()/name; returns the path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

inline int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace anatomy::testing
