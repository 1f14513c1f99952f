#include "autotuner/cuda/runtime_occupancy.hpp"

#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "kernels/launch.cuh"

namespace occtune::cuda {
namespace {

const void* function_or_throw(const std::string& symbol) {
  const void* f = kernels::kernel_function(symbol);
  if (!f) throw Error(ExitCode::kRuntime, "kernel '" + symbol + "' is not registered");
  return f;
}

}  // namespace

RuntimeOccupancy::RuntimeOccupancy(DeviceInfo device) : device_(std::move(device)) {
  OCCTUNE_CUDA_CHECK(cudaSetDevice(device_.index));
}

int RuntimeOccupancy::max_potential_block_size(const std::string& symbol, SmemForThreads smem,
                                               int block_size_limit) {
  int min_grid = 0, block = 0;
  const void* f = function_or_throw(symbol);
  // The runtime template takes any unary functor; a lambda keeps the function pointer's type.
  OCCTUNE_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
      &min_grid, &block, f, [smem](int b) { return smem(b); }, block_size_limit));
  return block;
}

RuntimeOccupancy::Attributes RuntimeOccupancy::attributes(const std::string& symbol) {
  cudaFuncAttributes attr{};
  OCCTUNE_CUDA_CHECK(cudaFuncGetAttributes(&attr, function_or_throw(symbol)));
  return {attr.numRegs, int(attr.sharedSizeBytes), attr.maxThreadsPerBlock};
}

OccupancyAnswer RuntimeOccupancy::active_blocks(const std::string& symbol, int threads,
                                                std::size_t dynamic_smem) {
  const void* f = function_or_throw(symbol);
  auto attr = attributes(symbol);
  OccupancyAnswer answer = OfflineOccupancy::compute(device_, attr.registers, attr.static_smem,
                                                     attr.max_threads_per_block, 1, threads,
                                                     dynamic_smem);
  answer.registers = attr.registers;
  if (threads > device_.max_threads_per_block || threads > attr.max_threads_per_block ||
      dynamic_smem > device_.shared_mem_per_block_optin) {
    answer.active_blocks_per_sm = 0;  // the runtime would refuse the query; the limit is named
    return answer;
  }
  if (dynamic_smem > device_.shared_mem_per_block)
    OCCTUNE_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(dynamic_smem)));
  int blocks = 0;
  OCCTUNE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, threads,
                                                                   dynamic_smem));
  answer.active_blocks_per_sm = blocks;  // the runtime's number is authoritative
  return answer;
}

std::string RuntimeOccupancy::description() const {
  return "CUDA Occupancy API on " + device_.uuid + " (" + device_.name + ")";
}

}  // namespace occtune::cuda
