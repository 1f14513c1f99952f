// use_job_source_kernels and source_family_options (autotuner/cli/source_jobs.hpp).
#include "autotuner/cli/source_jobs.hpp"

#include <filesystem>

#include "autotuner/cli/context.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/source/kernel_cache.hpp"
#include "autotuner/source/source_job.hpp"

namespace occtune::cli {

cuda::SourceFamilyOptions source_family_options(const std::string& arch) {
  cuda::SourceFamilyOptions o;
  o.arch = arch;
  o.cache_dir =
      resolve("", "OCCTUNE_KERNEL_CACHE", "", source::KernelCache::default_dir().string());
  return o;
}

std::vector<std::string> use_job_source_kernels(const std::string& config_flag,
                                                std::vector<std::string>& kernels,
                                                std::vector<std::string>& problems,
                                                const std::vector<std::string>& shapes,
                                                const std::string& arch) {
  const std::string path = resolve_config(config_flag);
  std::error_code ec;
  // A missing file is load_job_config's to report, with its own message.
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return {};
  // A GEMM job (no [[kernel]] tables) goes to parse_job_config alone, with its own messages.
  if (!source::declares_source_kernels(path)) return {};
  const auto names = cuda::register_source_job(path, source_family_options(arch));
  if (names.empty()) return names;
  if (kernels.empty()) kernels = names;
  if (problems.empty() && shapes.empty())
    if (const auto shape = cuda::source_job_problem(kernels.front()))
      if (const UserFamily* f = find_user_family(kernels.front()))
        problems.push_back(to_dims(*f, *shape).str());
  return names;
}

}  // namespace occtune::cli
