// occtune::main (include/occtune/main.hpp): the CLI for a program that registered its own
// kernel families; the occtune executable's main() is the same call.
#include <iostream>

#include "autotuner/cli/app.hpp"
#include "occtune/error.hpp"
#include "occtune/main.hpp"

namespace occtune {

int main(int argc, char** argv) { return cli::run(argc, argv); }

int main(int argc, char** argv, void (*register_families)()) {
  try {
    if (register_families) register_families();
  } catch (const Error& e) {
    std::cerr << "occtune: error: " << e.what() << '\n';
    return int(e.code());
  }
  return cli::run(argc, argv);
}

}  // namespace occtune
