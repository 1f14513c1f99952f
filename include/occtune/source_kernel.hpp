// occtune::SourceKernel: a CUDA source kernel of a job file's [[kernel]] table
// (docs/source-kernels.md), launched from an application with the configuration `occtune tune`
// measured best for this device and problem. The compiled code comes from the kernel cache that
// tuning filled (NVRTC compiles the one configuration on a miss). C++17, no CUDA headers.
#pragma once

#include <string>
#include <vector>

#include "occtune/error.hpp"
#include "occtune/kernel.hpp"
#include "occtune/launch.hpp"

namespace occtune {

class SourceKernel {
 public:
  // Reads the [[kernel]] table named `name` of `job_file` (the file `occtune tune --config` was
  // given) and registers it as a kernel family of this process, once per file; do it before
  // the first occtune::launch or Cache lookup. The compiled-kernel cache is the one tuning
  // used: OCCTUNE_KERNEL_CACHE, else $XDG_CACHE_HOME/occtune/kernels, else
  // ~/.cache/occtune/kernels. Throws Error(kUsage) for a bad job file or a name it lacks,
  // Error(kRuntime) when NVRTC cannot be loaded (its version is part of the cache key).
  SourceKernel(const std::string& job_file, const std::string& name);

  const std::string& name() const { return name_; }
  // The problem the job file was written for (its `problem` table).
  const Dims& problem() const { return problem_; }

  // What launch() runs for `problem` on the current device and how it was found: the store's
  // lookup chain (OCCTUNE_DB, else the default store), keyed by a hash of the source, its
  // includes, options and the NVRTC version, so an entry tuned from other source is a miss.
  // Throws as occtune::launch_prepare.
  LaunchChoice prepare(const Dims& problem) const;
  // Launches it asynchronously on `stream` (a cudaStream_t; nullptr: the default stream).
  // `buffers` are device pointers to the job's input and output arguments, in the job's order;
  // scalar arguments are computed from the problem. Throws as occtune::launch.
  void launch(const Dims& problem, const std::vector<float*>& buffers,
              void* stream = nullptr) const;

 private:
  std::string name_;
  Dims problem_;
};

}  // namespace occtune
