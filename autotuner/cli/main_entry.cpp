// occtune::main (include/occtune/main.hpp): the CLI for a program that registered its own
// kernel families; the occtune executable's main() is the same call.
#include "autotuner/cli/app.hpp"
#include "occtune/main.hpp"

namespace occtune {

int main(int argc, char** argv) { return cli::run(argc, argv); }

}  // namespace occtune
