#include "cli/main.h"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli/collective_command.h"
#include "cli/compare_command.h"
#include "cli/list_command.h"
#include "cli/packet_command.h"
#include "cli/replay_command.h"
#include "cli/run_command.h"
#include "cli/schema_command.h"
#include "cli/sweep_command.h"
#include "core/error.h"

namespace anatomy::cli {

int main(int argc, char** argv) {
  CLI::App app{"anatomy: where a distributed training job's GPU time goes"};
  app.require_subcommand(1);
  app.footer("Every scenario field, its unit, default and meaning: anatomy schema (docs/scenario.md).");
  int exit_code = 0;
  add_collective_command(app, exit_code);
  add_compare_command(app, exit_code);
  CLI::App& list = add_list_command(app, exit_code);
  add_calibrate_command(app, exit_code);
  add_packet_command(app, exit_code);
  add_replay_command(app, exit_code);
  add_run_command(app, exit_code);
  add_schema_command(app, list, exit_code);
  add_sweep_command(app, exit_code);
  add_validate_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "anatomy: %s\n", e.what());
    return 2;
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "anatomy: %s\n", e.what());
    return 2;
  }
  return exit_code;
}

}  // namespace anatomy::cli
