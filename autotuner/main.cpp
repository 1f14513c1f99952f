// occtune's entry point: the one catch-all that turns errors into the documented exit codes.
#include "autotuner/cli/app.hpp"

int main(int argc, char** argv) { return occtune::cli::run(argc, argv); }
