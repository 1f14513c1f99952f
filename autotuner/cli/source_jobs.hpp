// Source kernels in job files for the commands that read one (tune, check, plan, query): the
// [[kernel]] tables are registered as user kernel families before anything reads the kernel
// registry, and a job of source kernels supplies its kernels and problem when no flag does.
#pragma once

#include <string>
#include <vector>

#include "autotuner/cuda/source_family.hpp"

namespace occtune::cli {

// The compiled-kernel cache of tuning: OCCTUNE_KERNEL_CACHE, else the default directory
// (docs/source-kernels.md); the worker processes resolve the same. `arch`: as
// SourceFamilyOptions::arch (empty: the GPU's).
cuda::SourceFamilyOptions source_family_options(const std::string& arch = {});

// Registers the [[kernel]] tables of the job file that `config_flag` names (else
// OCCTUNE_CONFIG); returns their names, none for the built-in job or a file without them.
// With names returned and no --kernel, `kernels` becomes them; with no --problem or --shape
// either, `problems` becomes the job's problem of the first. The kernels compile for `arch`
// ("sm_90", offline planning) or, empty, for the GPU that runs them.
std::vector<std::string> use_job_source_kernels(const std::string& config_flag,
                                                std::vector<std::string>& kernels,
                                                std::vector<std::string>& problems,
                                                const std::vector<std::string>& shapes,
                                                const std::string& arch = {});

}  // namespace occtune::cli
