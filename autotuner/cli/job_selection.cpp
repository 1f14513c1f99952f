#include "autotuner/cli/job_selection.hpp"

#include <fmt/format.h>

#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/user_problem.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/core/user_family.hpp"

namespace occtune::cli {

Layout parse_layout_flag(const std::string& text) {
  const auto layout = parse_layout(text);
  if (!layout) fail(ExitCode::kUsage, "--layout: " + layout_error(text));
  return *layout;
}

JobConfig select_job(const std::string& config_flag, const std::vector<std::string>& kernel_flags,
                     const std::vector<std::string>& problems,
                     const std::vector<std::string>& shape_flags, std::string_view verb,
                     const std::string& layout_flag) {
  JobConfig job = load_job_config(resolve_config(config_flag));
  // The file's problems stand unless a flag names the work (--problem, or --shape for GEMM).
  const bool file_problems = problems.empty() && shape_flags.empty() && !job.problems.empty();
  // A file that names user families names them for --problem too.
  bool file_user_kernels = false;
  for (const auto& k : job.kernels) file_user_kernels |= find_user_family(k) != nullptr;
  std::vector<std::string> kernels =
      kernel_flags.empty() && file_user_kernels ? job.kernels : kernel_flags;
  std::vector<std::string> shapes;
  try {
    shapes = user_problem_shapes(kernels, file_problems ? job.problems : problems, shape_flags);
  } catch (const Error& e) {
    if (!file_problems) throw;
    fail(ExitCode::kUsage, fmt::format("config {}: [job] problem: {}", job.origin, e.what()));
  }
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
