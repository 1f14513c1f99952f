// occtune::SourceKernel (include/occtune/source_kernel.hpp): the job's [[kernel]] table as a
// user family of this process (autotuner/cuda/source_family), launched through occtune::launch.
#include "occtune/source_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/cuda/source_family.hpp"
#include "autotuner/source/kernel_cache.hpp"

namespace occtune {

SourceKernel::SourceKernel(const std::string& job_file, const std::string& name) : name_(name) {
  cuda::SourceFamilyOptions options;
  const char* dir = std::getenv("OCCTUNE_KERNEL_CACHE");
  if (dir && !*dir)
    fail(ExitCode::kUsage,
         "OCCTUNE_KERNEL_CACHE is set but empty; set it to the kernel cache directory tuning "
         "used, or unset it for the default");
  options.cache_dir = dir ? std::filesystem::path(dir) : source::KernelCache::default_dir();
  const auto names = cuda::register_source_job(job_file, options);
  if (std::find(names.begin(), names.end(), name) == names.end())
    fail(ExitCode::kUsage,
         fmt::format("occtune::SourceKernel: job file '{}' has no [[kernel]] named '{}'{}; use "
                     "one of its kernels' names",
                     job_file, name,
                     names.empty() ? std::string(" (it has no [[kernel]] table)")
                                   : fmt::format(" (its kernels: {})", fmt::join(names, ", "))));
  problem_ = to_dims(*find_user_family(name), *cuda::source_job_problem(name));
}

LaunchChoice SourceKernel::prepare(const Dims& problem) const {
  return launch_prepare(name_, problem);
}

void SourceKernel::launch(const Dims& problem, const std::vector<float*>& buffers,
                          void* stream) const {
  occtune::launch(name_, problem, buffers, stream);
}

}  // namespace occtune
