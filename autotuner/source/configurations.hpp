// The configurations of a source kernel: the cross product of its parameter values filtered by
// its constraints, each with its name expression, -D defines and launch geometry evaluated, so
// every division by zero or overflow is found before anything compiles.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "autotuner/source/source_job.hpp"

namespace occtune::source {

struct LaunchGeometry {
  std::array<std::int64_t, 3> block{1, 1, 1};
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::int64_t smem = 0;  // dynamic shared memory, bytes
  std::int64_t threads() const { return block[0] * block[1] * block[2]; }
};

struct Configuration {
  std::vector<std::pair<std::string, std::int64_t>> params;  // in declaration order
  std::string name_expression;       // the kernel name with {PARAM}s substituted
  std::vector<std::string> defines;  // -DNAME=value for the parameters not in the name
  LaunchGeometry launch;
  std::string label() const;  // "BX=16,BY=8,UNROLL=2", a stable identity of the configuration
};

// More configurations than this in the unfiltered cross product is a usage error: the space
// is meant to be compiled, and a million compilations is a mistake, not a job.
inline constexpr std::int64_t kMaxCrossProduct = 1000000;

// Throws Error(kUsage) naming the key, the configuration and the values when an expression
// fails, a block or grid extent is below 1 or above 2^31 - 1, or the shared memory is negative;
// also when the constraints leave nothing.
std::vector<Configuration> enumerate_configurations(const SourceKernel& kernel);

// `values` holds the problem and the parameters; adds block_x/y/z and threads for grid and smem.
LaunchGeometry evaluate_launch(const Launch& launch, Bindings values, const std::string& context);

}  // namespace occtune::source
