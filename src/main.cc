#include "cli/main.h"

int main(int argc, char** argv) { return anatomy::cli::main(argc, argv); }
