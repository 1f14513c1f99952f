#include "autotuner/cuda/runtime_occupancy.hpp"

#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "kernels/launch.cuh"

namespace occtune::cuda {
namespace {

// A user kernel's runtime call through its family's hooks (its function is unknown to this
// library's CUDA runtime); an error is thrown naming the call and the kernel.
void hook_check(int err, const char* what, const std::string& symbol) {
  if (err != 0)
    throw Error(ExitCode::kRuntime,
                "CUDA error " + describe(cudaError_t(err)) + " in " + what + " of " + symbol);
}

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
  if (const auto user = user_kernel(symbol)) {
    // The runtime's walk, over the answers of the program's own runtime; judged at the
    // device's opt-in shared memory limit, as the built-in kernels are.
    const Attributes attr = attributes(symbol);
    hook_check(user->cuda->set_max_dynamic_smem(
                   user->function, int(device_.shared_mem_per_block_optin) - attr.static_smem),
               "cudaFuncSetAttribute", symbol);
    return potential_block_size_walk(
        device_, attr.max_threads_per_block, block_size_limit, smem,
        [&](int threads, std::size_t dynamic) {
          int blocks = 0;
          return user->cuda->max_active_blocks(user->function, threads, dynamic, &blocks) == 0
                     ? blocks
                     : 0;  // e.g. more shared memory than a block may have
        });
  }
  int min_grid = 0, block = 0;
  const void* f = function_or_throw(symbol);
  // The runtime template takes any unary functor; a lambda keeps the function pointer's type.
  OCCTUNE_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
      &min_grid, &block, f, [smem](int b) { return smem(b); }, block_size_limit));
  return block;
}

RuntimeOccupancy::Attributes RuntimeOccupancy::attributes(const std::string& symbol) {
  if (const auto user = user_kernel(symbol)) {
    Attributes a;
    hook_check(user->cuda->attributes(user->function, &a.registers, &a.static_smem,
                                      &a.max_threads_per_block),
               "cudaFuncGetAttributes", symbol);
    return a;
  }
  cudaFuncAttributes attr{};
  OCCTUNE_CUDA_CHECK(cudaFuncGetAttributes(&attr, function_or_throw(symbol)));
  return {attr.numRegs, int(attr.sharedSizeBytes), attr.maxThreadsPerBlock};
}

OccupancyAnswer RuntimeOccupancy::active_blocks(const std::string& symbol, int threads,
                                                std::size_t dynamic_smem) {
  const auto user = user_kernel(symbol);
  const void* f = user ? user->function : function_or_throw(symbol);
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
  int blocks = 0;
  if (user) {
    if (dynamic_smem > device_.shared_mem_per_block)
      hook_check(user->cuda->set_max_dynamic_smem(f, int(dynamic_smem)), "cudaFuncSetAttribute",
                 symbol);
    hook_check(user->cuda->max_active_blocks(f, threads, dynamic_smem, &blocks),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor", symbol);
    answer.active_blocks_per_sm = blocks;
    return answer;
  }
  if (dynamic_smem > device_.shared_mem_per_block)
    OCCTUNE_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(dynamic_smem)));
  OCCTUNE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, threads,
                                                                   dynamic_smem));
  answer.active_blocks_per_sm = blocks;  // the runtime's number is authoritative
  return answer;
}

std::string RuntimeOccupancy::description() const {
  return "CUDA Occupancy API on " + device_.uuid + " (" + device_.name + ")";
}

}  // namespace occtune::cuda
