// `occtune __worker`: the hidden worker mode the isolated backend starts (autotuner/isolation).
// Not a subcommand a user types: app.cpp dispatches it before the CLI is parsed.
#pragma once

namespace occtune::cli {

inline constexpr const char* kWorkerCommand = "__worker";

int run_worker(int argc, char** argv);

}  // namespace occtune::cli
