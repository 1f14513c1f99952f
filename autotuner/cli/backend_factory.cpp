#include "autotuner/cli/backend_factory.hpp"

#include <fmt/format.h>

#include <algorithm>
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

std::vector<std::string> parse_device_list(const std::string& text) {
  if (text == "all") return {"all"};
  std::vector<std::string> out;
  if (text.find(',') == std::string::npos) {
    parse_device_selector(text);
    return {text};
  }
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string one = text.substr(start, comma - start);
    if (one.empty() || one == "all")
      fail(ExitCode::kUsage, fmt::format("--device '{}' has {} in its list; write GPU indexes or "
                                         "UUIDs separated by commas (0,2,3), or 'all' alone",
                                         text, one.empty() ? "an empty entry" : "'all'"));
    parse_device_selector(one);
    if (std::find(out.begin(), out.end(), one) != out.end())
      fail(ExitCode::kUsage,
           fmt::format("--device '{}' names '{}' twice; name each GPU once", text, one));
    out.push_back(one);
    start = comma + 1;
  }
  return out;
}

std::vector<std::unique_ptr<MeasurementBackend>> make_backends(
    const BackendOptions& options, const std::vector<std::string>& selectors) {
  const bool all = selectors.size() == 1 && selectors[0] == "all";
  if (!options.isolation && (all || selectors.size() > 1))
    fail(ExitCode::kUsage,
         "several GPUs are measured by one worker process each; drop "
         "--no-isolation, or name one --device");
  std::vector<std::unique_ptr<MeasurementBackend>> out;
  for (std::size_t i = 0; all || i < selectors.size(); ++i) {
    BackendOptions one = options;
    one.device_selector = all ? std::to_string(i) : selectors[i];
    try {
      out.push_back(make_backend(one));
    } catch (const Error& e) {
      // The first index the worker does not find ends "all" (it names a device or none).
      if (all && i > 0 && e.code() == ExitCode::kUsage) break;
      throw;
    }
    for (std::size_t j = 0; j + 1 < out.size(); ++j)
      if (out[j]->device().uuid == out.back()->device().uuid)
        fail(ExitCode::kUsage, fmt::format("--device selects {} ({}) twice; name each GPU once",
                                           out.back()->device().uuid, out.back()->device().name));
  }
  return out;
}

std::unique_ptr<MeasurementBackend> make_backend(const BackendOptions& options) {
  parse_device_selector(options.device_selector);
  if (!options.isolation) return cuda::make_in_process_backend(options.device_selector);
  isolation::WorkerOptions worker;
  worker.command = options.worker_command;
  worker.device_selector = options.device_selector;
  worker.candidate_timeout_s = options.candidate_timeout_s;
  return std::make_unique<isolation::WorkerBackend>(std::move(worker));
}

}  // namespace occtune::cli
