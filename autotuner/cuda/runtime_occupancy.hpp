// The Occupancy API on a real device: the numbers a plan on `--device N` is made of. The
// limiter (which the runtime does not report) is named by the offline calculator fed with the
// function's real attributes.
#pragma once

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/occupancy_oracle.hpp"

namespace occtune::cuda {

class RuntimeOccupancy final : public OccupancyOracle {
 public:
  explicit RuntimeOccupancy(DeviceInfo device);
  int max_potential_block_size(const std::string& symbol, SmemForThreads smem,
                               int block_size_limit) override;
  OccupancyAnswer active_blocks(const std::string& symbol, int threads,
                                std::size_t dynamic_smem) override;
  std::string description() const override;

  // cudaFuncGetAttributes of the registered kernel (registers, static smem, max threads).
  struct Attributes {
    int registers = 0;
    int static_smem = 0;
    int max_threads_per_block = 0;
  };
  Attributes attributes(const std::string& symbol);

 private:
  DeviceInfo device_;
};

}  // namespace occtune::cuda
