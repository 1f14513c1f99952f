// The one line a user family's launch function needs (occtune/kernel.hpp): launch_kernel()
// passes the configuration's function, grid, block, dynamic shared memory and stream to
// cudaLaunchKernel with the kernel's arguments. Include it from the .cu file that registers the
// family; it is the only occtune header that includes cuda_runtime.h.
#pragma once

#include <cuda_runtime.h>

#include "occtune/kernel.hpp"

namespace occtune {

// Launches a.function with the given kernel arguments (by value, in the kernel's parameter
// order and types); returns the cudaError_t as an int, as KernelFamily::launch does.
template <class... Args>
int launch_kernel(const LaunchArgs& a, Args... args) {
  void* pointers[] = {static_cast<void*>(&args)..., nullptr};
  const dim3 grid(unsigned(a.grid.x), unsigned(a.grid.y), unsigned(a.grid.z));
  const dim3 block(unsigned(a.block.x), unsigned(a.block.y));
  return int(cudaLaunchKernel(a.function, grid, block, pointers, a.dynamic_smem,
                              static_cast<cudaStream_t>(a.stream)));
}

namespace detail {

inline int hook_attributes(const void* function, int* registers, int* static_smem,
                           int* max_threads) {
  cudaFuncAttributes a{};
  const cudaError_t err = cudaFuncGetAttributes(&a, function);
  *registers = a.numRegs;
  *static_smem = int(a.sharedSizeBytes);
  *max_threads = a.maxThreadsPerBlock;
  return int(err);
}

inline int hook_max_active_blocks(const void* function, int threads, std::size_t dynamic_smem,
                                  int* blocks) {
  return int(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, threads,
                                                           dynamic_smem));
}

inline int hook_set_max_dynamic_smem(const void* function, int bytes) {
  return int(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

}  // namespace detail

// The runtime calls occtune makes on this program's kernels (KernelFamily::cuda), made by the
// CUDA runtime this file is compiled against.
inline CudaHooks cuda_hooks() {
  CudaHooks h;
  h.attributes = &detail::hook_attributes;
  h.max_active_blocks = &detail::hook_max_active_blocks;
  h.set_max_dynamic_smem = &detail::hook_set_max_dynamic_smem;
  return h;
}

// A __global__ function as KernelConfig::function wants it.
template <class... Params>
const void* kernel_function(void (*kernel)(Params...)) {
  return reinterpret_cast<const void*>(kernel);
}

}  // namespace occtune
