// Compiles the configurations of a source kernel ahead of measurement: the CompileRequest of
// each, the cache in front of NVRTC, and a small pool of threads over the CPU cores. Counts the
// NVRTC compilations it runs, so tests (and reports) can tell a warm cache from a cold one.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/source/configurations.hpp"
#include "autotuner/source/kernel_cache.hpp"
#include "autotuner/source/nvrtc_compiler.hpp"
#include "autotuner/source/source_job.hpp"

namespace occtune::source {

// The program of one configuration: the source with the name expression and the parameters'
// defines, `-I` the source's directory, the kernel's own options. The reference kernel is a
// program of its own (reference_request), compiled once per kernel and architecture.
CompileRequest configuration_request(const SourceKernel& kernel, const std::string& source_text,
                                     const Configuration& config, const std::string& arch);
// Empty name_expressions when the reference is a file.
CompileRequest reference_request(const SourceKernel& kernel, const std::string& source_text,
                                 const std::string& arch);
// Throws Error(kUsage) naming the file when the source cannot be read.
std::string read_source(const SourceKernel& kernel);

struct CompileOutcome {
  CompiledProgram program;
  std::string key;  // the cache entry's name
  bool cache_hit = false;
  double wall_seconds = 0;  // this call's time: the compilation, or the cache lookup on a hit
  std::string cache_note;   // a rejected (corrupt) entry or a failed write, for a warning
};

class SourceCompiler {
 public:
  // No cache: every call compiles.
  explicit SourceCompiler(std::optional<KernelCache> cache);

  // Thread-safe. Throws Error(kRuntime) only when NVRTC cannot be used at all.
  CompileOutcome compile(const CompileRequest& request);
  // Compiles every request on `threads` threads (0: one per CPU core), results in request
  // order; the first exception of any thread is rethrown after all have stopped.
  std::vector<CompileOutcome> compile_all(const std::vector<CompileRequest>& requests,
                                          int threads = 0);

  int nvrtc_compilations() const { return compilations_.load(); }
  const std::optional<KernelCache>& cache() const { return cache_; }

 private:
  std::optional<KernelCache> cache_;
  std::atomic<int> compilations_{0};
};

}  // namespace occtune::source
