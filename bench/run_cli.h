#pragma once
// Runs `anatomy <args>` in-process with its stdout sent to /dev/null, so a
// benchmark table stays readable. Shared by the CLI-level benchmarks.

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include "cli/main.h"

inline int run_cli(std::vector<std::string> args) {
  std::vector<char*> argv;
  static std::string prog = "anatomy";
  argv.push_back(prog.data());
  for (auto& a : args) argv.push_back(a.data());
  std::fflush(stdout);
  const int saved = dup(1);
  FILE* null = std::fopen("/dev/null", "w");
  dup2(fileno(null), 1);
  const int rc = anatomy::cli::main(static_cast<int>(argv.size()), argv.data());
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::fclose(null);
  return rc;
}
