#include "autotuner/cli/job_selection.hpp"

#include <fmt/format.h>

#include "autotuner/cli/shared_options.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune::cli {

Layout parse_layout_flag(const std::string& text) {
  const auto layout = parse_layout(text);
  if (!layout) fail(ExitCode::kUsage, "--layout: " + layout_error(text));
  return *layout;
}

JobConfig select_job(const std::string& config_flag, const std::vector<std::string>& kernels,
                     const std::vector<std::string>& shapes, std::string_view verb,
                     const std::string& layout_flag) {
  JobConfig job = load_job_config(resolve_config(config_flag));
  if (!layout_flag.empty()) job.layout = parse_layout_flag(layout_flag);
  if (!kernels.empty()) {
    for (auto& k : kernels) validate_kernel_name(k);
    job.kernels = kernels;
  }
  if (!shapes.empty()) {
    job.shapes.clear();
    for (auto& s : shapes) job.shapes.push_back(parse_shape(s));
  }
  if (job.kernels.empty()) job.kernels = {"tiled_dynamic"};
  if (job.shapes.empty())
    fail(ExitCode::kUsage,
         fmt::format("no shapes to {}; pass --shape MxNxK or list [job].shapes in the config",
                     verb));
  return job;
}

}  // namespace occtune::cli
