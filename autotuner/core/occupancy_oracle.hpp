// The two questions candidate generation asks of the CUDA occupancy calculator. Implemented on
// the runtime API (cuda/runtime_occupancy) and offline on cuda_occupancy.h (offline_occupancy),
// so the same planning code runs with or without a GPU.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace occtune {

// A function rather than a pointer: a user family's shared memory depends on the configuration
// it is asked for (autotuner/core/user_plan.cpp).
using SmemForThreads = std::function<std::size_t(int threads)>;

struct OccupancyAnswer {
  int active_blocks_per_sm = 0;
  std::string limiter;  // warps | registers | shared_memory | blocks | barriers | none
  int registers = 0;    // per thread
};

class OccupancyOracle {
 public:
  virtual ~OccupancyOracle() = default;
  // cudaOccupancyMaxPotentialBlockSizeVariableSMem for the kernel named by `symbol` (a manifest
  // symbol such as "TiledDynamic<0>"), dynamic shared memory = smem(block), block <= limit.
  // Returns the suggested block size (0: cannot run).
  virtual int max_potential_block_size(const std::string& symbol, SmemForThreads smem,
                                       int block_size_limit) = 0;
  // Active blocks per SM for a concrete launch, and what limits it.
  virtual OccupancyAnswer active_blocks(const std::string& symbol, int threads,
                                        std::size_t dynamic_smem) = 0;
  // Where the numbers come from, for reports ("runtime API on GPU-..." / "cuda_occupancy.h ...").
  virtual std::string description() const = 0;
};

}  // namespace occtune
