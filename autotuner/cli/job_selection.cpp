#include "autotuner/cli/job_selection.hpp"

#include <fmt/format.h>

#include "autotuner/cli/context.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune::cli {

JobConfig select_job(const std::string& config_flag, const std::vector<std::string>& kernels,
                     const std::vector<std::string>& shapes, std::string_view verb) {
  JobConfig job = load_job_config(resolve(config_flag, "OCCTUNE_CONFIG", "", ""));
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
