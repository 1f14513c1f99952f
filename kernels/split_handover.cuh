// The hand-over between the blocks that share an output tile through a workspace (skinny's K
// splits, stream-K's split tiles): a block's partial sums are visible device-wide before it
// takes the tile's ticket, and the block that takes the last ticket reads the others' partials
// past L1, which is not coherent between SMs. On the host emulator (tests/support/
// kernel_emulator.hpp) blocks run one after another, so plain operations are the same thing.
#pragma once

#include <cuda_runtime.h>

#include <cstring>

#ifndef OCCTUNE_EMU_CHECK_ALIGNED
#define OCCTUNE_EMU_CHECK_ALIGNED(ptr, bytes) ((void)0)
#endif

namespace occtune::kernels {

__device__ __forceinline__ void handover_fence() {
#ifdef __CUDA_ARCH__
  __threadfence();
#endif
}

// The ticket's value before this block's: the tile's contributors minus one for the last.
__device__ __forceinline__ unsigned take_ticket(unsigned* ticket) {
#ifdef __CUDA_ARCH__
  return atomicAdd(ticket, 1u);
#else
  return (*ticket)++;
#endif
}

// Another block's partial sums, from L2.
__device__ __forceinline__ float load_partial(const float* p) {
#ifdef __CUDA_ARCH__
  return __ldcg(p);
#else
  return *p;
#endif
}
__device__ __forceinline__ float4 load_partial4(const float* p) {
  OCCTUNE_EMU_CHECK_ALIGNED(p, 16);
#ifdef __CUDA_ARCH__
  return __ldcg(reinterpret_cast<const float4*>(p));
#else
  float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}

}  // namespace occtune::kernels
