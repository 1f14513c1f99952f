// Chooses where candidates are measured for the CLI: the isolated worker process by default
// (autotuner/isolation), in this process with --no-isolation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/job_config.hpp"

namespace occtune::cli {

struct BackendOptions {
  std::string device_selector;  // index or UUID; empty = 0
  bool isolation = true;
  double candidate_timeout_s = kDefaultCandidateTimeoutS;
  std::vector<std::string> worker_command;  // empty: occtune itself (tests: a stand-in worker)
};

// Validates the selector (Error kUsage) and resolves the candidate timeout: flag (> 0 when
// given) > OCCTUNE_CANDIDATE_TIMEOUT > [measure] candidate_timeout_s > 10 s.
BackendOptions resolve_backend_options(const std::string& device_selector, bool isolation,
                                       double flag_timeout_s,
                                       const std::optional<double>& config_timeout_s);

std::unique_ptr<MeasurementBackend> make_backend(const BackendOptions& options);

// `--device` of tune: one selector, a comma-separated list of them ("0,2,3", UUIDs), or "all".
// Returns the selectors ({"all"} for all); a malformed, empty or repeated one is Error(kUsage).
std::vector<std::string> parse_device_list(const std::string& text);

// One backend per selector (workers start one after another), or, for {"all"}, one per visible
// GPU: indexes 0, 1, ... until a worker reports that the index does not exist. Several devices
// need worker isolation; two selectors naming one GPU are Error(kUsage).
std::vector<std::unique_ptr<MeasurementBackend>> make_backends(
    const BackendOptions& options, const std::vector<std::string>& selectors);

}  // namespace occtune::cli
