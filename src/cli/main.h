#pragma once
// Entry point of the `anatomy` command: parses argv, dispatches to a
// subcommand, and maps errors to exit codes (0 ok, 2 bad input).

namespace anatomy::cli {
int main(int argc, char** argv);
}
