// Candidate generation (design.md section 4). For a textbook family it runs the textbook
// occupancy method exactly, then widens it into a set by lowering the block-size limit below
// each snapped answer; for other families the candidates are the registered variants. Every
// candidate is annotated with occupancy, limiter, grid and waves by the same oracle, so the
// online plan (runtime API) and the offline twin (cuda_occupancy.h) are computed identically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/occupancy_oracle.hpp"
#include "autotuner/core/shape.hpp"
#include "kernels/registry.hpp"

namespace occtune {

// threads = 4^floor(log4 threads); 0 when threads < 1.
int snap_to_power_of_four(int threads);
// floor(sqrt(n)) for n >= 0, exact for perfect squares.
int integer_sqrt(int n);

struct Plan {
  std::string family;
  std::string oracle;                 // OccupancyOracle::description()
  std::vector<Candidate> candidates;  // in generation order (textbook answer first)
  std::vector<std::string> notes;     // why generation stopped, skipped tiles, ...
  // Compiling the family's configurations before planning (source kernels, issue #14), in the
  // process that plans; 0 for families compiled ahead of time.
  double compile_seconds = 0;
};

// min_tile: the smallest tile width the textbook walk goes down to (0: the family's default).
// Only variants of `layout` are candidates (the textbook walk's run-time-tile kernel is nn's,
// whose resources every layout shares).
Plan plan_family(const kernels::FamilyInfo& family, const DeviceInfo& device, Shape shape,
                 OccupancyOracle& oracle, int min_tile = 0, Layout layout = Layout::kNN);

// Fills the occupancy, grid and limit fields of a candidate for `variant`.
Candidate annotate(const kernels::VariantInfo& variant, const DeviceInfo& device, Shape shape,
                   OccupancyOracle& oracle);
// `c` as the textbook walk's answer at `step` (the occupancy API suggested `suggested` threads
// under `limit`).
Candidate from_walk(Candidate c, int step, int suggested, int limit);

// The same with the grid given (user kernel families compute their own).
Candidate annotate(const kernels::VariantInfo& variant, const DeviceInfo& device,
                   std::int64_t grid_x, std::int64_t grid_y, std::int64_t grid_z,
                   OccupancyOracle& oracle);

}  // namespace occtune
