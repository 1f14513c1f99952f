// The sums of a thread block cluster whose SPLITS blocks split K (sm_90; the skinny rings,
// kernels/skinny_pipe.cuh): output e of the tile belongs to block e / kShare, and every block
// pushes its partial sum of each output into the owner's inbox (one slot a sender) with st.async,
// whose bytes the owner's mbarrier counts; each block then adds its share's SPLITS partials in
// rank order (deterministic, and the order kernels/skinny.cuh's cluster_sum_in_rank_order adds
// them in). Where that helper reads the others' sums after one cluster barrier and holds every
// block until a second (no block may leave while another reads its shared memory), here nothing
// reads another block's memory: one cluster barrier, split so that it is long complete when it is
// waited on, and no wait at the end. At 8192x16x8192 the two barriers and their release fences
// took 3.5% of the ring's warp samples (docs/PERFORMANCE.md, "The cluster's sums by st.async").
// The inbox lies outside the ring's stages: a faster block pushes while the others still compute.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/mbarrier.cuh"

namespace occtune::kernels {

template <int SPLITS, int OUTPUTS, int THREADS>
struct ClusterInbox {
  // The outputs go as float4s (the last one past OUTPUTS where OUTPUTS % 4 != 0), kShareQuads a
  // block (the last blocks fewer, or none); part holds OUTPUTS rounded up to a float4.
  static constexpr int kQuads = (OUTPUTS + 3) / 4;
  static constexpr int kShareQuads = (kQuads + SPLITS - 1) / SPLITS;
  static constexpr int kShare = 4 * kShareQuads;  // outputs a block owns (a slot's floats)
  static constexpr int kInbox = SPLITS * kShare;  // floats; the mbarrier follows (8-byte aligned)
  // None without a cluster.
  static constexpr std::size_t kBytes = SPLITS == 1 ? 0 : std::size_t(kInbox) * sizeof(float) + 16;

  // The float4s block `rank` owns.
  __device__ static int quads_of(std::uint32_t rank) {
    const int first = int(rank) * kShareQuads, left = kQuads - first;
    return left <= 0 ? 0 : left < kShareQuads ? left : kShareQuads;
  }

  // At the kernel's start, every thread: thread 0 sets up the mbarrier to expect its share's
  // float4s from every block (this one included), then every thread arrives on the cluster
  // barrier that ready waits on before its first push, so that no st.async meets a block whose
  // mbarrier is not yet set up.
  __device__ static void open(float* inbox) {
#if OCCTUNE_MBARRIER_PTX
    const std::uint32_t bar = smem_u32(inbox + kInbox);
    if (threadIdx.x == 0) {
      std::uint32_t rank;
      asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
      mbar_init(bar, 1);
      mbar_init_fence();
      mbar_arrive_expect_tx(bar, std::uint32_t(SPLITS * quads_of(rank) * 16));
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#else
    (void)inbox;
#endif
  }

  // Every thread, after open and before its first push: every block's mbarrier is set up.
  __device__ static void ready() {
#if OCCTUNE_MBARRIER_PTX
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
#endif
  }

  // This block's partial sums of outputs e ... e + 3 (e a multiple of 4, below OUTPUTS) into the
  // owner's inbox, in this block's slot.
  __device__ static void push(float* inbox, int e, float4 v) {
#if OCCTUNE_MBARRIER_PTX
    std::uint32_t rank, to, owner_bar;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    const std::uint32_t owner = std::uint32_t(e / kShare);
    const std::uint32_t at = smem_u32(inbox + rank * kShare + e % kShare);
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(to) : "r"(at), "r"(owner));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                 : "=r"(owner_bar)
                 : "r"(smem_u32(inbox + kInbox)), "r"(owner));
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, "
        "[%5];\n" ::"r"(to),
        "r"(__float_as_uint(v.x)), "r"(__float_as_uint(v.y)), "r"(__float_as_uint(v.z)),
        "r"(__float_as_uint(v.w)), "r"(owner_bar)
        : "memory");
#else
    (void)inbox, (void)e, (void)v;
#endif
  }

  // Every thread, after its pushes (each block pushes every float4 of the tile once): this
  // block's share, once every block's has landed, added in rank order: emit(e, sum) for each
  // output e it owns with keep(e).
  template <class Keep, class Emit>
  __device__ static void collect(float* inbox, Keep keep, Emit emit) {
#if OCCTUNE_MBARRIER_PTX
    std::uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    mbar_wait(smem_u32(inbox + kInbox), 0);
    for (int i = int(threadIdx.x); i < kShare; i += THREADS) {
      const int e = int(rank) * kShare + i;
      if (e >= OUTPUTS || !keep(e)) continue;
      float sum = 0.0f;
      for (int r = 0; r < SPLITS; ++r) sum += inbox[r * kShare + i];
      emit(e, sum);
    }
#elif defined(__CUDA_ARCH__)
    (void)inbox, (void)keep, (void)emit;
    __trap();  // registered for sm_90 only (its launch asks for a cluster)
#else
    (void)inbox, (void)keep, (void)emit;  // host compilers: never called
#endif
  }

  // The three after open, from the block's sums in shared memory (part: OUTPUTS floats, written
  // by every thread before the __syncthreads here, readable to the float4 past OUTPUTS).
  template <class Keep, class Emit>
  __device__ static void gather(const float* part, float* inbox, Keep keep, Emit emit) {
    __syncthreads();
    ready();
    for (int e = 4 * int(threadIdx.x); e < 4 * kQuads; e += 4 * THREADS)
      push(inbox, e, *reinterpret_cast<const float4*>(part + e));
    collect(inbox, keep, emit);
  }
};

}  // namespace occtune::kernels
