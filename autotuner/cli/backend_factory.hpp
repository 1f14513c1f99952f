// Chooses where candidates are measured for the CLI: the isolated worker process by default
// (autotuner/isolation), in this process with --no-isolation.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/job_config.hpp"

namespace occtune::cli {

struct BackendOptions {
  std::string device_selector;  // index or UUID; empty = 0
  bool isolation = true;
  double candidate_timeout_s = kDefaultCandidateTimeoutS;
};

// Validates the selector (Error kUsage) and resolves the candidate timeout: flag (> 0 when
// given) > OCCTUNE_CANDIDATE_TIMEOUT > [measure] candidate_timeout_s > 10 s.
BackendOptions resolve_backend_options(const std::string& device_selector, bool isolation,
                                       double flag_timeout_s,
                                       const std::optional<double>& config_timeout_s);

std::unique_ptr<MeasurementBackend> make_backend(const BackendOptions& options);

}  // namespace occtune::cli
