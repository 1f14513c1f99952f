#include "autotuner/cli/backend_factory.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>

#include "autotuner/core/device_selector.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/cuda/in_process_backend.hpp"
#include "autotuner/isolation/worker_backend.hpp"

namespace occtune::cli {
namespace {

double timeout_from_env(const char* name, const char* text) {
  double v = 0;
  const char* end = text + std::char_traits<char>::length(text);
  auto [ptr, ec] = std::from_chars(text, end, v);
  if (ec != std::errc() || ptr != end || !(v > 0 && v <= kMaxCandidateTimeoutS))
    fail(ExitCode::kUsage, fmt::format("{}='{}' is not a timeout; set it to seconds in (0, {}], "
                                       "e.g. {}=10, or unset it",
                                       name, text, kMaxCandidateTimeoutS, name));
  return v;
}

}  // namespace

BackendOptions resolve_backend_options(const std::string& device_selector, bool isolation,
                                       double flag_timeout_s,
                                       const std::optional<double>& config_timeout_s) {
  // A malformed selector is bad input: say so before any file, process or GPU is touched.
  parse_device_selector(device_selector);
  BackendOptions o;
  o.device_selector = device_selector;
  o.isolation = isolation;
  const char* env = std::getenv("OCCTUNE_CANDIDATE_TIMEOUT");
  if (flag_timeout_s > 0)
    o.candidate_timeout_s = flag_timeout_s;
  else if (env && *env)
    o.candidate_timeout_s = timeout_from_env("OCCTUNE_CANDIDATE_TIMEOUT", env);
  else if (config_timeout_s)
    o.candidate_timeout_s = *config_timeout_s;
  return o;
}

std::unique_ptr<MeasurementBackend> make_backend(const BackendOptions& options) {
  parse_device_selector(options.device_selector);
  if (!options.isolation) return cuda::make_in_process_backend(options.device_selector);
  isolation::WorkerOptions worker;
  worker.device_selector = options.device_selector;
  worker.candidate_timeout_s = options.candidate_timeout_s;
  return std::make_unique<isolation::WorkerBackend>(std::move(worker));
}

}  // namespace occtune::cli
