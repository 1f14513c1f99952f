// Compiles a source kernel's whole space for one architecture ahead of measurement (the
// reference once, every configuration on a pool of threads, through the cache) and, given a
// device or profile, annotates each compiled configuration with the occupancy twin
// (autotuner/core/offline_occupancy) from the registers of its own compiled code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/occupancy_oracle.hpp"
#include "autotuner/source/configurations.hpp"
#include "autotuner/source/source_compiler.hpp"

namespace occtune::source {

struct CompiledConfiguration {
  Configuration config;
  CompileOutcome compile;
  std::optional<OccupancyAnswer> occupancy;  // with a device, for ok configurations
  double theoretical_occupancy = 0;          // active warps / maximum warps per SM
};

struct SpaceCompile {
  std::string kernel;
  std::string arch;
  std::optional<CompileOutcome> reference;  // absent when the reference is a file
  std::vector<CompiledConfiguration> configs;
  int threads = 0;
  double wall_seconds = 0;  // the whole space, reference included
};

// "sm_90" from "sm_90", "90", "9.0"; Error(kUsage) otherwise.
std::string normalise_arch(const std::string& text);

// The kernel's configurations (enumerate_configurations) narrowed by `where`, one more
// constraint over the problem and the parameters. Throws Error(kUsage) for a bad expression or
// when nothing is left. Call it for every kernel of a job before compiling any.
std::vector<Configuration> select_configurations(const SourceKernel& kernel,
                                                 const std::optional<std::string>& where);

// Compiles `configs` (and the reference kernel) for `arch` on `threads` threads (0: one per
// core); with a device, annotates each compiled configuration with the occupancy twin.
SpaceCompile compile_space(const SourceKernel& kernel, const std::vector<Configuration>& configs,
                           const std::string& arch, SourceCompiler& compiler, int threads,
                           const DeviceInfo* device);

}  // namespace occtune::source
