// PTX wrappers for mbarrier objects in shared memory (sm_90): the tma family's pipelines
// (kernels/tma.cuh) and the skinny rings' cluster sums (kernels/cluster_inbox.cuh). Host
// compilers (the kernel emulator, tests/support/kernel_emulator.hpp, includes the skinny family)
// and architectures before sm_90 see empty bodies: nothing they run calls these.
#pragma once

#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define OCCTUNE_MBARRIER_PTX 1
#else
#define OCCTUNE_MBARRIER_PTX 0
#endif

namespace occtune::kernels {

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
#if OCCTUNE_MBARRIER_PTX
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
#else
  (void)p;
  return 0;
#endif
}

__device__ __forceinline__ void mbar_init(std::uint32_t bar, std::uint32_t count) {
#if OCCTUNE_MBARRIER_PTX
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#else
  (void)bar, (void)count;
#endif
}

// Makes the initialised barriers visible to the other threads, to the async proxy (TMA's
// complete_tx) and to a later barrier.cluster.arrive.relaxed before anyone uses them.
__device__ __forceinline__ void mbar_init_fence() {
#if OCCTUNE_MBARRIER_PTX
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// One arrival (the producer's) plus `bytes` of expected transactions for the current phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
#if OCCTUNE_MBARRIER_PTX
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
#endif
}

// One arrival with the default .release.cta semantics: this thread's earlier shared-memory reads
// and writes are ordered before it.
__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
#if OCCTUNE_MBARRIER_PTX
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#else
  (void)bar;
#endif
}

// True once the phase with parity `parity` has completed (default .acquire.cta semantics).
__device__ __forceinline__ bool mbar_try_wait(std::uint32_t bar, std::uint32_t parity) {
#if OCCTUNE_MBARRIER_PTX
  std::uint32_t done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
#else
  (void)bar, (void)parity;
  return true;
#endif
}

// No time limit (the lab had one): a hung candidate is the worker's to contain
// (docs/architecture.md), and a guard's code would cost registers in the consumers' loop.
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

}  // namespace occtune::kernels
