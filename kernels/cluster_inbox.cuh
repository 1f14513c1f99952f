// The sums of a thread block cluster whose SPLITS blocks split K (sm_90; the skinny rings,
// kernels/skinny_pipe.cuh): output e of the tile belongs to block e / kShare, and every block
// pushes its partial sum of each output into the owner's inbox (one slot a sender) with st.async,
// whose bytes the owner's mbarrier counts; each block then adds its share's SPLITS partials in
// rank order (deterministic, and the order kernels/skinny.cuh's cluster_sum_in_rank_order adds
// them in). Where that helper reads the others' sums after one cluster barrier and holds every
// block until a second (no block may leave while another reads its shared memory), here nothing
// reads another block's memory: one cluster barrier, split so that it is long complete when it is
// waited on, and no wait at the end. At 8192x16x8192 the two barriers and their release fences
// took about 3% of the ring's warp samples (docs/PERFORMANCE.md, "The cluster's sums by st.async").
// The inbox lies outside the ring's stages: a faster block pushes while the others still compute.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/mbarrier.cuh"

namespace occtune::kernels {

template <int SPLITS, int OUTPUTS, int THREADS>
struct ClusterInbox {
  static_assert(SPLITS == 1 || OUTPUTS % (4 * SPLITS) == 0,
                "cluster inbox: each block's share whole float4s");
  static constexpr int kShare = OUTPUTS / SPLITS;  // outputs a block owns
  // SPLITS slots of kShare floats (OUTPUTS), then the mbarrier (8-byte aligned: OUTPUTS % 4 = 0);
  // none without a cluster.
  static constexpr std::size_t kBytes =
      SPLITS == 1 ? 0 : std::size_t(OUTPUTS) * sizeof(float) + 16;

  // At the kernel's start, every thread: thread 0 sets up the mbarrier to expect OUTPUTS floats
  // (kShare from every block, this one included), then every thread arrives on the cluster
  // barrier that gather waits on before its first push, so that no st.async meets a block whose
  // mbarrier is not yet set up.
  __device__ static void open(float* inbox) {
#if OCCTUNE_MBARRIER_PTX
    const std::uint32_t bar = smem_u32(inbox + OUTPUTS);
    if (threadIdx.x == 0) {
      mbar_init(bar, 1);
      mbar_init_fence();
      mbar_arrive_expect_tx(bar, std::uint32_t(OUTPUTS * sizeof(float)));
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#else
    (void)inbox;
#endif
  }

  // Every thread, after open: this block's OUTPUTS partial sums (part, shared memory, written by
  // every thread before a __syncthreads of its own here) go to their owners; then this block's
  // share, once every block's has landed, added in rank order: emit(e, sum) for each output e it
  // owns with keep(e).
  template <class Keep, class Emit>
  __device__ static void gather(const float* part, float* inbox, Keep keep, Emit emit) {
#if OCCTUNE_MBARRIER_PTX
    __syncthreads();  // part is whole
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
    std::uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    const std::uint32_t slot = smem_u32(inbox + rank * kShare);  // this block's slot, anywhere
    const std::uint32_t bar = smem_u32(inbox + OUTPUTS);
    for (int e = 4 * int(threadIdx.x); e < OUTPUTS; e += 4 * THREADS) {
      const std::uint32_t owner = std::uint32_t(e / kShare);
      std::uint32_t to, owner_bar;
      const std::uint32_t at = slot + std::uint32_t(e % kShare) * sizeof(float);
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(to) : "r"(at), "r"(owner));
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(owner_bar) : "r"(bar), "r"(owner));
      const float4 v = *reinterpret_cast<const float4*>(part + e);
      asm volatile(
          "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, "
          "[%5];\n" ::"r"(to),
          "r"(__float_as_uint(v.x)), "r"(__float_as_uint(v.y)), "r"(__float_as_uint(v.z)),
          "r"(__float_as_uint(v.w)), "r"(owner_bar)
          : "memory");
    }
    mbar_wait(bar, 0);
    for (int i = int(threadIdx.x); i < kShare; i += THREADS) {
      const int e = int(rank) * kShare + i;
      if (!keep(e)) continue;
      float sum = 0.0f;
      for (int r = 0; r < SPLITS; ++r) sum += inbox[r * kShare + i];
      emit(e, sum);
    }
#elif defined(__CUDA_ARCH__)
    (void)part, (void)inbox, (void)keep, (void)emit;
    __trap();  // registered for sm_90 only (its launch asks for a cluster)
#else
    (void)part, (void)inbox, (void)keep, (void)emit;  // host compilers: never called
#endif
  }
};

}  // namespace occtune::kernels
