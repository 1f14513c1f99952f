// The occtune command line: subcommands of design.md section 3, one file each.
#pragma once

namespace occtune::cli {

// Parses, runs the chosen subcommand and maps every error to the documented exit code.
int run(int argc, char** argv);

}  // namespace occtune::cli
