// Chooses where candidates are measured for the CLI: the isolated worker process by default
// (issue #5), in this process with --no-isolation.
#pragma once

#include <memory>
#include <string>

#include "autotuner/core/backend.hpp"

namespace occtune::cli {

struct BackendOptions {
  std::string device_selector;  // index or UUID; empty = 0
  bool isolation = true;
  double candidate_timeout_s = 10.0;
};

std::unique_ptr<MeasurementBackend> make_backend(const BackendOptions& options);

}  // namespace occtune::cli
