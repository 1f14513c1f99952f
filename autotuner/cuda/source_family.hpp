// A source kernel of a job file (`[[kernel]]`, docs/source-kernels.md) as a user kernel family:
// its configurations are the family's, each with the block its launch expressions give; they are
// compiled with NVRTC (in parallel, through the kernel cache) the first time the process that
// runs the GPU work needs one, loaded with the CUDA runtime's library API and launched with the
// arguments the job lists. docs/architecture.md, "Source kernels (issue #14)".
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/shape.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/source/source_job.hpp"

namespace occtune::cuda {

struct SourceFamilyOptions {
  std::optional<std::filesystem::path> cache_dir;  // nullopt: compile every time, store nothing
  int compile_threads = 0;                         // 0: one per CPU core
  // The architecture to compile for ("sm_90"); empty: the current CUDA device's. Set, compiling
  // needs no GPU (plan --profile plans offline with the compiled code's registers); launching
  // then needs a device of that architecture.
  std::string arch;
};

// The family's version, and with it the store's build id ("user:src-<32 hex>"): XXH3-128 of the
// source, every file it includes with #include "...", the options, the name expressions and the
// NVRTC version, so a changed source byte, include, option or compiler is another key (a miss).
// Loads NVRTC (Error(kRuntime) naming the fix when it is missing).
std::string source_family_version(const source::SourceKernel& kernel);

struct SourceFamily {
  KernelFamily family;
  CompileHook compile;  // compiles every configuration (and the reference) once, on first call
};

// Throws Error(kUsage) naming the kernel, the argument or configuration and the fix when the
// kernel cannot be tuned as a family: a buffer that is not float32, a block with a z extent, or
// an expression that fails for a configuration.
SourceFamily make_source_family(const source::SourceKernel& kernel,
                                const SourceFamilyOptions& options);

// Registers every [[kernel]] of the job file at `path` as a user family and returns their names
// (empty when the file has none). Idempotent per path within a process. Sets OCCTUNE_SOURCE_JOB
// to the file's absolute path, so the worker processes this one starts register the same
// families (register_source_job_from_env).
std::vector<std::string> register_source_job(const std::filesystem::path& path,
                                             const SourceFamilyOptions& options);
// In a worker process: the families of the job named by OCCTUNE_SOURCE_JOB, if set.
void register_source_job_from_env(const SourceFamilyOptions& options);

// The problem a family registered from a job file was written for (its `problem` table), as the
// store's shape; nullopt for any other family.
std::optional<Shape> source_job_problem(const std::string& family);

}  // namespace occtune::cuda
