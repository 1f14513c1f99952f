// occtune::main: the whole occtune command line (tune, plan, query, check, serve, ...) over the
// kernel families this program registered (occtune/kernel.hpp). A tuning harness is:
//   int main(int argc, char** argv) { return occtune::main(argc, argv, &register_my_families); }
// Worker isolation re-executes this same program in worker mode, so the workers know the same
// families. C++17, no CUDA headers.
#pragma once

namespace occtune {

// Parses argv as the `occtune` CLI does and returns its exit code (0 success, 1 regression, 2
// bad input, 3 not found, 4 runtime failure; README "Exit codes"). Never throws.
int main(int argc, char** argv);
// The same, calling `register_families` first: a bad registration (occtune::Error) is reported
// as the CLI reports bad input, "occtune: error: ..." and exit 2, instead of ending the program
// with an uncaught exception.
int main(int argc, char** argv, void (*register_families)());

}  // namespace occtune
