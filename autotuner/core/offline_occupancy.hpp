// The offline twin of the Occupancy API: cuda_occupancy.h fed by a DeviceInfo (a profile or a
// probed device) and the register counts ptxas reported at build time (kernel manifest).
#pragma once

#include <functional>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/occupancy_oracle.hpp"

namespace occtune {

// The runtime's block-size walk (cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags in
// cuda_runtime.h) over any per-size answer `active_blocks(block, dynamic_smem)`: offline with
// compute(), online for user kernels with their own runtime's answer (their functions are
// unknown to occtune's runtime). Returns the suggested block size (0: none can run).
int potential_block_size_walk(const DeviceInfo& device, int func_max_threads, int block_size_limit,
                              const SmemForThreads& smem,
                              const std::function<int(int block, std::size_t smem)>& active_blocks);

class OfflineOccupancy final : public OccupancyOracle {
 public:
  explicit OfflineOccupancy(DeviceInfo device);
  int max_potential_block_size(const std::string& symbol, SmemForThreads smem,
                               int block_size_limit) override;
  OccupancyAnswer active_blocks(const std::string& symbol, int threads,
                                std::size_t dynamic_smem) override;
  std::string description() const override;
  // True when some symbol's registers came from another architecture than the device's.
  bool used_nearest_arch() const { return used_nearest_arch_; }

  // Also used online to name the limiter with the real function attributes.
  static OccupancyAnswer compute(const DeviceInfo& device, int registers, int static_smem,
                                 int max_threads_per_block, int barriers, int threads,
                                 std::size_t dynamic_smem);

 private:
  DeviceInfo device_;
  bool used_nearest_arch_ = false;
};

}  // namespace occtune
