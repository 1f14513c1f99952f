// One launch configuration of one kernel variant for one shape, with its occupancy annotation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/registry.hpp"

namespace occtune {

struct Candidate {
  const kernels::VariantInfo* variant = nullptr;
  // How it entered the set: "occupancy-api" (the textbook method, step `step`) or "registered".
  std::string origin;
  int step = 0;                 // 1 = the textbook answer, 2.. = after lowering the limit
  int suggested_block = 0;      // raw occupancy-API block size before snapping (0 if none)
  int block_limit = 0;          // block-size limit passed to the occupancy API
  int threads = 0;
  int tile = 0;
  std::size_t dynamic_smem = 0;
  int registers = 0;            // per thread, of the variant that is launched
  int active_blocks_per_sm = 0;
  double occupancy = 0;         // active warps per SM / max warps per SM
  std::string limiter;          // warps | registers | shared_memory | blocks | barriers | none
  std::int64_t grid_x = 0;
  std::int64_t grid_y = 0;
  std::int64_t grid_z = 1;      // split-K slices (VariantInfo::grid_z)
  double waves = 0;             // grid blocks / (active blocks per SM * SM count)
  std::string rejection;        // non-empty when the device cannot run it (exceeds_limits)

  std::int64_t grid_blocks() const { return grid_x * grid_y * grid_z; }
};

}  // namespace occtune
