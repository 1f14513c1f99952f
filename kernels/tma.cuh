// Family "tma" (issue #18): a Hopper (sm_90a) fp32 SGEMM, FFMA only, row-major nn, fed by TMA
// (cp.async.bulk.tensor.2d) through mbarrier pipelines: a producer warpgroup issues the copies
// and transposes A in shared memory, two consumer warpgroups run the register-blocked inner loop
// (kernels/tile_core.cuh's fragments). Design and lab measurements: docs/PERFORMANCE.md "tma";
// the build (sm_90a only) and the rule where it runs: docs/architecture.md "Issue #18: the
// Hopper TMA family". Only kernels/tma.cu includes this.
#pragma once

#include <cuda.h>  // CUtensorMap only: the encoder comes through the runtime (kernels/tma.cu)
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/grid_dependency.cuh"
#include "kernels/gemm_entry.cuh"
#include "kernels/mbarrier.cuh"  // smem_u32, mbar_*
#include "kernels/streamk_fixup.cuh"
#include "kernels/streamk_plan.cuh"
#include "kernels/tile_core.cuh"  // tile::fma_outer

// setmaxnreg exists on sm_90a only; kernels/CMakeLists.txt compiles this family for nothing else.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "kernels/tma.cu is compiled for sm_90a only (kernels/CMakeLists.txt)"
#endif

namespace occtune::kernels {
namespace tma {

// ---- PTX wrappers: TMA, fences (the mbarrier ones: kernels/mbarrier.cuh) ------------------

template <int kRegs>
__device__ __forceinline__ void regs_dec() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}
template <int kRegs>
__device__ __forceinline__ void regs_inc() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

// 2D TMA load of the box at (c0 innermost, c1) into shared memory at dst; completion is counted
// in bytes on `bar` (the whole box, out-of-bounds elements zero-filled and counted too).
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// TMA's SWIZZLE_{32,64,128}B on a buffer aligned to 1024 bytes: the 16-byte chunk bits [4, 4+b)
// of a byte offset are XORed with bits [7, 7+b), b = 1, 2, 3. The lab's self-test compared it
// with what TMA writes, element by element, on an H100 (docs/PERFORMANCE.md "tma").
template <int kSwizzleBits>
__host__ __device__ __forceinline__ uint32_t swizzle(uint32_t off) {
  return off ^ (((off >> 7) & ((1u << kSwizzleBits) - 1u)) << 4);
}

}  // namespace tma

// BM x BN block tile, BK-deep slabs, TM x TN per consumer thread in WM x WN warp tiles (32 thread
// tiles each, sub-tiles of 4 x 4 spaced a lane apart as in kernels/tile_core.cuh), S TMA stages.
// FB 2: fragments of k + 1 are read while k's FMAs issue (fbuf 2 of the regblocked family).
// RC / RP: the registers per thread consumer and producer warpgroups take with setmaxnreg.
// A's box is loaded with the swizzle whose span is its row (BK * 4 bytes).
template <int BM_, int BN_, int BK_, int TM_, int TN_, int WM_, int WN_, int S_, int FB_, int RC_,
          int RP_>
struct TmaGemm {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_, WM = WM_, WN = WN_;
  static constexpr int S = S_, FB = FB_, RC = RC_, RP = RP_;
  static constexpr int kStreamK = 0;  // data-parallel: one tile per block (TmaStreamK below)
  static constexpr int kOrder = 0;  // rows of the thread tile outside (TmaColumnsOutside below)
  static constexpr int kUnroll = BK;  // k steps unrolled in the consumers' loop (TmaUnroll below)
  using Base = TmaGemm;  // the tile without the wrappers below
  static constexpr int kConsumers = (BM / TM) * (BN / TN);
  static constexpr int kProducers = 128;  // one warpgroup (setmaxnreg works per warpgroup)
  static constexpr int kThreads = kConsumers + kProducers;
  static constexpr int kLanesM = WM / TM, kLanesN = WN / TN;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kSwizzleBits = BK == 32 ? 3 : BK == 16 ? 2 : 1;
  static constexpr int kRawBytes = BM * BK * 4;  // A box as TMA writes it: [BM][BK]
  static constexpr int kBBytes = BK * BN * 4;    // B box: [BK][BN]
  static constexpr int kAsBytes = BK * BM * 4;   // A transposed by the producers: [BK][BM]
  static constexpr uint32_t kTxBytes = uint32_t(kRawBytes + kBBytes);
  static constexpr int kOffB = S * kRawBytes;
  static constexpr int kOffAs = kOffB + S * kBBytes;
  static constexpr int kOffBar = kOffAs + 2 * kAsBytes;
  static constexpr int kBars = 2 * S + 2;  // full[S], empty[S], ready[2]
  // + 1024: the start is rounded up to the swizzle pattern's period.
  static constexpr std::size_t kSmemBytes = std::size_t(kOffBar) + 8 * kBars + 1024;
  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are float4 sub-tiles");
  static_assert(kLanesM * kLanesN == 32 && WM % TM == 0 && WN % TN == 0,
                "32 thread tiles per warp");
  static_assert(BM % WM == 0 && BN % WN == 0 && kConsumers % 128 == 0, "whole warpgroups");
  static_assert(BK == 8 || BK == 16 || BK == 32, "A rows of 32, 64 or 128 bytes (swizzle span)");
  static_assert(BM % 32 == 0 && BM <= 256 && BN <= 256, "TMA boxes are at most 256 per dimension");
  static_assert(kRawBytes % 1024 == 0 && kBBytes % 1024 == 0 && kAsBytes % 1024 == 0,
                "every buffer starts 1024-byte aligned (the swizzle pattern's period)");
  static_assert(FB == 1 || (FB == 2 && BK % 2 == 0), "fbuf 1 or 2");
  static_assert(kTxBytes < (1u << 20), "mbarrier tx-count range");
  // The block's warps are spread over the SM's 4 register-file quadrants: the launch gets
  // 65536 / kThreads registers per thread (168 for 384 threads), then the producers give some
  // back and the consumers take them; the sums must add up or setmaxnreg.inc blocks for ever.
  static constexpr int kLaunchRegs = (65536 / kThreads) / 8 * 8;
  static_assert(RC % 8 == 0 && RP % 8 == 0 && RP >= 24 && RP <= kLaunchRegs &&
                    RC >= kLaunchRegs && RC <= 256,
                "setmaxnreg's range: producers give back, consumers take");
  static_assert((kConsumers / 32) * RC + (kProducers / 32) * RP <= (kThreads / 32) * kLaunchRegs,
                "the consumers take no more than the producers gave back");
};

// Configuration G with the thread tile's columns as the outer FMA loop.
template <class G>
struct TmaColumnsOutside : G {
  static constexpr int kOrder = 1;
};

// Configuration G with the consumers' slab loop unrolled U k steps at a time (G: the whole
// slab): a loop body of U steps of TM * TN FFMAs and TM / 4 + TN / 4 shared loads instead of
// BK, which the instruction cache holds (docs/PERFORMANCE.md "tma", wave 20). Fragments
// double-buffered (fbuf 2) only: the groups are that loop's.
template <class G, int U>
struct TmaUnroll : G {
  static_assert(G::FB == 2, "the grouped loop is the fbuf-2 loop");
  static_assert(U % 2 == 0 && G::BK % U == 0 && U < G::BK, "whole, even groups of a slab");
  static constexpr int kUnroll = U;
};

namespace tma {

// Origin in C of tile `pid` of a gx x gy grid of bm x bn tiles: consecutive tiles walk down 8
// tile rows before moving one tile column right, as BlockTile::tile_origin in
// kernels/tile_core.cuh (L2 reuse within a wave). The one tile order of the family: the
// data-parallel launch (block_origin), the stream-K blocks and their fix-up.
__device__ __forceinline__ void tile_origin(int pid, int gx, int gy, int bm, int bn, int& m0,
                                            int& n0) {
  const int span = 8 * gx;
  const int first = (pid / span) * 8;
  const int rows = gy - first < 8 ? gy - first : 8;
  const int local = pid % span;
  m0 = (first + local % rows) * bm;
  n0 = (local / rows) * bn;
}

// The tile of this block of a data-parallel launch (one block per tile).
__device__ __forceinline__ void block_origin(int bm, int bn, int& m0, int& n0) {
  tile_origin(int(blockIdx.y) * int(gridDim.x) + int(blockIdx.x), int(gridDim.x),
              int(gridDim.y), bm, bn, m0, n0);
}

template <class C>
struct Smem {
  uint32_t base;  // shared-window address of the 1024-aligned start
  unsigned char* ptr;
  __device__ uint32_t full(int s) const { return base + C::kOffBar + 8 * s; }
  __device__ uint32_t empty(int s) const { return base + C::kOffBar + 8 * (C::S + s); }
  __device__ uint32_t ready(int b) const { return base + C::kOffBar + 8 * (2 * C::S + b); }
  __device__ uint32_t raw_addr(int s) const { return base + s * C::kRawBytes; }
  __device__ uint32_t b_addr(int s) const { return base + C::kOffB + s * C::kBBytes; }
  __device__ const unsigned char* raw(int s) const { return ptr + s * C::kRawBytes; }
  __device__ const float* b(int s) const {
    return reinterpret_cast<const float*>(ptr + C::kOffB + s * C::kBBytes);
  }
  __device__ float* as(int slot) const {
    return reinterpret_cast<float*>(ptr + C::kOffAs + slot * C::kAsBytes);
  }
};

// The 1024-aligned start of dynamic shared memory and the barriers, initialised by thread 0:
// full (1 arrival + the copies' bytes) and empty (every consumer) per stage, and the two ready
// barriers of the transposed A (every producer).
template <class C>
__device__ __forceinline__ Smem<C> setup_smem(unsigned char* smem_raw) {
  const uint32_t raw_base = smem_u32(smem_raw);
  const uint32_t pad = (1024u - (raw_base & 1023u)) & 1023u;
  const Smem<C> sm{raw_base + pad, smem_raw + pad};
  if (threadIdx.x == 0) {
    for (int s = 0; s < C::S; ++s) {
      mbar_init(sm.full(s), 1);
      mbar_init(sm.empty(s), C::kConsumers);
    }
    mbar_init(sm.ready(0), C::kProducers);
    mbar_init(sm.ready(1), C::kProducers);
    mbar_init_fence();
  }
  __syncthreads();  // the only block-wide barrier
  return sm;
}

// The producer warpgroup. Thread 0 of it issues slab t's two boxes (A at (k0, m0), B at
// (n0, k0), from where(t, m0, n0, k0), which it calls for t = 0, 1, 2, ... in that order) into
// stage t % S on full[t % S]; its four warps then transpose each landed A box
// (warp w: rows 32 (w + 4 p)) into the double-buffered As[k][m] (slot t % 2) and every producer
// thread arrives on ready[t % 2]. Stage (t-1) % S is refilled with slab t-1+S once every consumer
// has released slab t-1 (empty), which also frees As slot (t+1) % 2 for the transposition of
// slab t+1: the producers stay one slab ahead with A and S-1 ahead with the copies. Parities:
// slab t waits phase t / S of full/empty[t % S] and t / 2 of ready[t % 2]; neither barrier can
// run two phases ahead of a waiter (the lab's protocol model checked this order).
template <class C, class Where>
__device__ __forceinline__ void produce(const CUtensorMap* map_a, const CUtensorMap* map_b,
                                        const Smem<C>& sm, int slabs, int pw, int lane,
                                        Where&& where) {
  auto issue = [&](int t) {
    const int s = t % C::S;
    int m0, n0, k0;
    where(t, m0, n0, k0);
    mbar_arrive_expect_tx(sm.full(s), C::kTxBytes);
    tma_load_2d(sm.raw_addr(s), map_a, sm.full(s), k0, m0);
    tma_load_2d(sm.b_addr(s), map_b, sm.full(s), n0, k0);
  };
  const bool leader = pw == 0 && lane == 0;
  if (leader && slabs > 0) {  // with K = 0 the maps are never read (kernels/tma.cu)
    tma_prefetch_map(map_a);
    tma_prefetch_map(map_b);
    for (int t = 0; t < slabs && t < C::S; ++t) issue(t);
  }
  __syncwarp();
  for (int t = 0; t < slabs; ++t) {
    const int s = t % C::S;
    mbar_wait(sm.full(s), uint32_t(t / C::S) & 1u);
    // Row m = p*32 + lane, chunk q of 4 k: 32 lanes read 32 consecutive rows' chunk q, which the
    // swizzle spreads over all 8 16-byte bank groups (4 wavefronts per LDS.128), and write k
    // rows of As 32 consecutive floats wide (one wavefront per STS.32).
    const unsigned char* raw = sm.raw(s);
    float* as = sm.as(t & 1);
#pragma unroll
    for (int p = pw; p < C::BM / 32; p += 4) {
      const int m = p * 32 + lane;
#pragma unroll
      for (int q = 0; q < C::BK / 4; ++q) {
        const uint32_t off = swizzle<C::kSwizzleBits>(uint32_t(m * C::BK * 4 + q * 16));
        const float4 v = *reinterpret_cast<const float4*>(raw + off);
        as[(4 * q + 0) * C::BM + m] = v.x;
        as[(4 * q + 1) * C::BM + m] = v.y;
        as[(4 * q + 2) * C::BM + m] = v.z;
        as[(4 * q + 3) * C::BM + m] = v.w;
      }
    }
    mbar_arrive(sm.ready(t & 1));  // count 128: each thread's stores are released by its arrive
    if (t >= 1) {
      const int u = t - 1;
      mbar_wait(sm.empty(u % C::S), uint32_t(u / C::S) & 1u);
      if (leader && u + C::S < slabs) issue(u + C::S);
      __syncwarp();
    }
  }
}

template <class C>
__device__ __forceinline__ void load_fragments(const float* as, const float* bs, int kk, int am,
                                               int bn, float (&a)[C::TM], float (&b)[C::TN]) {
#pragma unroll
  for (int i = 0; i < C::TM / 4; ++i) {
    const float4 v = *reinterpret_cast<const float4*>(as + kk * C::BM + am + i * C::kLanesM * 4);
    a[4 * i] = v.x;
    a[4 * i + 1] = v.y;
    a[4 * i + 2] = v.z;
    a[4 * i + 3] = v.w;
  }
#pragma unroll
  for (int j = 0; j < C::TN / 4; ++j) {
    const float4 v = *reinterpret_cast<const float4*>(bs + kk * C::BN + bn + j * C::kLanesN * 4);
    b[4 * j] = v.x;
    b[4 * j + 1] = v.y;
    b[4 * j + 2] = v.z;
    b[4 * j + 3] = v.w;
  }
}

// Slabs [t0, t1) of the block's sequence. Slab t may be read once full[t % S] (its boxes
// landed: B is read straight from the stage) and ready[t % 2] (A transposed) have completed
// their phases for t. Every consumer thread arrives on empty[t % S] right after issuing its last
// shared-memory read of the slab; the arrive's release semantics order those reads before the
// refill. A stream-K block calls it once per segment with one running count, so the parities go
// on across segments as in one long K loop.
template <class C>
__device__ __forceinline__ void consume(const Smem<C>& sm, int t0, int t1, int am, int bn,
                                        float (&acc)[C::TM][C::TN]) {
  auto wait_slab = [&](int t) {
    mbar_wait(sm.full(t % C::S), uint32_t(t / C::S) & 1u);
    mbar_wait(sm.ready(t & 1), uint32_t(t >> 1) & 1u);
  };
  if constexpr (C::FB == 2) {
    float fa[2][C::TM], fb[2][C::TN];
    if (t0 < t1) {
      wait_slab(t0);
      load_fragments<C>(sm.as(t0 & 1), sm.b(t0 % C::S), 0, am, bn, fa[0], fb[0]);
    }
    for (int t = t0; t < t1; ++t) {
      const float* as = sm.as(t & 1);
      const float* bs = sm.b(t % C::S);
      // Step kk computes with buffer cur and reads the fragments of kk + 1 into the other, or,
      // at the slab's last step, releases the slab and reads the next one's first fragments.
      auto step = [&](int kk, int cur, bool last) {
        if (!last) {
          load_fragments<C>(as, bs, kk + 1, am, bn, fa[cur ^ 1], fb[cur ^ 1]);
        } else {
          mbar_arrive(sm.empty(t % C::S));
          if (t + 1 < t1) {
            wait_slab(t + 1);
            load_fragments<C>(sm.as((t + 1) & 1), sm.b((t + 1) % C::S), 0, am, bn, fa[cur ^ 1],
                              fb[cur ^ 1]);
          }
        }
        tile::fma_outer<C::kOrder>(fa[cur], fb[cur], acc);
      };
      if constexpr (C::kUnroll == C::BK) {
#pragma unroll
        for (int kk = 0; kk < C::BK; ++kk) step(kk, kk & 1, kk + 1 == C::BK);
      } else {
        // Groups of U steps (U even: every group starts in buffer 0) in a loop, for a loop
        // body the instruction cache holds; only the last group's last step is the slab's.
        constexpr int U = C::kUnroll;
#pragma unroll 1
        for (int k0 = 0; k0 < C::BK; k0 += U) {
#pragma unroll
          for (int u = 0; u < U; ++u) step(k0 + u, u & 1, u + 1 == U && k0 + U == C::BK);
        }
      }
    }
  } else {
    for (int t = t0; t < t1; ++t) {
      wait_slab(t);
      const float* as = sm.as(t & 1);
      const float* bs = sm.b(t % C::S);
#pragma unroll
      for (int kk = 0; kk < C::BK; ++kk) {
        float a[C::TM], b[C::TN];
        load_fragments<C>(as, bs, kk, am, bn, a, b);
        if (kk + 1 == C::BK) mbar_arrive(sm.empty(t % C::S));
        tile::fma_outer<C::kOrder>(a, b, acc);
      }
    }
  }
}

// A consumer thread's tile: accumulator row i to C row m0 + am + (i / 4) * kLanesM * 4 + i % 4,
// columns in float4 groups n0 + bn + j * kLanesN * 4. Rows past M are not stored. A group wholly
// inside N is one float4 store where C allows it (a 16-byte aligned C and ldc % 4 == 0); else,
// and for a group crossing N, it is stored element by element up to N, never into C's padding:
// any ldc and C address are accepted, so the repacked family can run this kernel on copies of
// misaligned A and B with the caller's C (kernels/repacked.cuh). C = alpha * acc + beta * C, C
// read only when beta != 0 (as scale_output, kernels/gemm_entry.cuh).
template <class C>
__device__ __forceinline__ void store_tile(const float (&acc)[C::TM][C::TN], const GemmArgs& p,
                                           int m0, int n0, int am, int bn) {
  const bool vec = p.ldc % 4 == 0 && (reinterpret_cast<std::uintptr_t>(p.c) & 15u) == 0;
#pragma unroll
  for (int i = 0; i < C::TM; ++i) {
    const int row = m0 + am + (i / 4) * C::kLanesM * 4 + i % 4;
    if (row >= p.m) continue;
    float* crow = p.c + std::size_t(row) * std::size_t(p.ldc);
#pragma unroll
    for (int j = 0; j < C::TN / 4; ++j) {
      const int col = n0 + bn + j * C::kLanesN * 4;
      if (col >= p.n) continue;
      if (vec && col + 4 <= p.n) {
        float4* out = reinterpret_cast<float4*>(crow + col);
        float4 v = make_float4(p.alpha * acc[i][4 * j], p.alpha * acc[i][4 * j + 1],
                               p.alpha * acc[i][4 * j + 2], p.alpha * acc[i][4 * j + 3]);
        if (p.beta != 0.0f) {
          const float4 old = *out;
          v = make_float4(fmaf(p.beta, old.x, v.x), fmaf(p.beta, old.y, v.y),
                          fmaf(p.beta, old.z, v.z), fmaf(p.beta, old.w, v.w));
        }
        *out = v;
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)  // constant indices: acc stays in registers
          if (col + e < p.n)
            crow[col + e] = scale_output(acc[i][4 * j + e], crow + col + e, p.alpha, p.beta);
      }
    }
  }
}

// A stream-K segment's raw sums into its workspace slot (the whole BM x BN tile row-major, BN
// floats a row, as kernels/streamk_fixup.cuh reads it), float4 at the epilogue's positions and
// unclipped: rows and columns past C are TMA's zero fill summed, which the fix-up never reads.
template <class C>
__device__ __forceinline__ void store_partial(const float (&acc)[C::TM][C::TN], float* slot, int am,
                                              int bn) {
#pragma unroll
  for (int i = 0; i < C::TM; ++i) {
    float* row = slot + (am + (i / 4) * C::kLanesM * 4 + i % 4) * C::BN;
#pragma unroll
    for (int j = 0; j < C::TN / 4; ++j)
      *reinterpret_cast<float4*>(row + bn + j * C::kLanesN * 4) =
          make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
  }
}

template <class C>
__device__ __forceinline__ void zero(float (&acc)[C::TM][C::TN]) {
#pragma unroll
  for (int i = 0; i < C::TM; ++i) {
#pragma unroll
    for (int j = 0; j < C::TN; ++j) acc[i][j] = 0.0f;
  }
}

// A consumer thread's place in the block tile: first row and column of its first sub-tile.
template <class C>
__device__ __forceinline__ void consumer_coords(int warp, int lane, int& am, int& bn) {
  const int wm = (warp / C::kWarpsN) * C::WM, lm = lane / C::kLanesN;
  bn = (warp % C::kWarpsN) * C::WN + (lane % C::kLanesN) * 4;
  am = wm + lm * 4;  // sub-tiles of 4 rows, kLanesM * 4 apart
}

// The block's tile of C, whole K, at the origin origin(m0, n0) gives: the producer warpgroup
// feeds the stages, the consumers accumulate and store (the data-parallel kernels below).
template <class C, class Origin>
__device__ __forceinline__ void run_tile(const CUtensorMap& map_a, const CUtensorMap& map_b,
                                         const GemmArgs& args, Origin&& origin) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const Smem<C> sm = setup_smem<C>(smem_raw);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  int m0, n0;
  origin(m0, n0);
  const int slabs = (args.k + C::BK - 1) / C::BK;
  if (warp >= C::kConsumers / 32) {
    regs_dec<C::RP>();
    produce<C>(&map_a, &map_b, sm, slabs, warp - C::kConsumers / 32, lane,
               [&](int t, int& m, int& n, int& k) {
                 m = m0;
                 n = n0;
                 k = t * C::BK;
               });
    return;
  }
  regs_inc<C::RC>();

  int am, bn;
  consumer_coords<C>(warp, lane, am, bn);
  float acc[C::TM][C::TN];
  zero<C>(acc);
  consume<C>(sm, 0, slabs, am, bn, acc);
  store_tile<C>(acc, args, m0, n0, am, bn);
}

}  // namespace tma

// C (M x N, ldc) = alpha * A (M x K, map_a) * B (K x N, map_b) + beta * C. Edges in M, N and K
// come zero-filled from TMA, so the main loop has no edge code; stores are clipped. Needs
// lda and ldb multiples of 4 and 16-byte aligned A and B (kernels/tma.cu refuses the rest); M,
// N, K, ldc and C's address are any.
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    tma_entry(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              GemmArgs args) {
  tma::run_tile<C>(map_a, map_b, args,
                   [](int& m0, int& n0) { tma::block_origin(C::BM, C::BN, m0, n0); });
}

// Tiles [0, gridDim.x) of the tile order over a tiles_m x tiles_n grid, one a block: the whole
// waves of a TmaWavesThenStreamK launch (below), whose stream-K kernel, launched after it as a
// programmatic dependent, may be scheduled as soon as every block of this one has started.
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    tma_waves_entry(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b, GemmArgs args, int tiles_m,
                    int tiles_n) {
  allow_dependents();
  tma::run_tile<C>(map_a, map_b, args, [&](int& m0, int& n0) {
    tma::tile_origin(int(blockIdx.x), tiles_n, tiles_m, C::BM, C::BN, m0, n0);
  });
}

// Stream-K over configuration G (issue #18): a persistent grid of plan.blocks blocks, block g
// walking the iterations (tile x BK slab) StreamKPlan gives it: its data-parallel tiles, then its
// stream-K range, in segments (runs of slabs within one tile). Producers and consumers walk the
// same sequence with one running slab count, so the mbarrier parities go on across segments and
// the producers fetch the next segment's slabs while the consumers store the last one's: the
// pipeline never drains between tiles. A segment that is a whole tile goes to C through
// store_tile; the raw sums of a part of a split tile go to its workspace slot, which the fix-up
// kernel adds in block order. SK 1: the data-parallel hybrid (whole waves data-parallel, the
// last full and the partial one streamed); SK 2: every tile streamed (not registered since wave
// 20: it never beat SK 1, kernels/tma.cu); SK 3: only the partial wave streamed, after a
// data-parallel launch of the whole waves (TmaWavesThenStreamK below).
template <class G, int SK>
struct TmaStreamK : G {
  static_assert(SK >= 1 && SK <= 3,
                "sk 1: data-parallel hybrid, 2: every tile streamed, 3: TmaWavesThenStreamK");
  static constexpr int kStreamK = SK;
  static constexpr int kTileM = G::BM, kTileN = G::BN;  // the tile (the fix-up's grid)

  __host__ __device__ static StreamKPlan make_plan(int m, int n, int k, int blocks) {
    if constexpr (SK == 3)
      return StreamKPlan::make_tail(m, n, k, G::BM, G::BN, G::BK, blocks);
    else
      return StreamKPlan::make(m, n, k, G::BM, G::BN, G::BK, blocks, SK == 1);
  }

  // Stream-K tile s's contributors and, when it is split, its origin (the fix-up block's
  // once-per-block work, kernels/streamk_fixup.cuh).
  __device__ static FixupTile fixup_tile(const StreamKPlan& plan, long long s) {
    FixupTile t = fixup_contributors(plan, s);
    if (t.split())
      tma::tile_origin(int(plan.dp_tiles + s), plan.tiles_n, plan.tiles_m, G::BM, G::BN, t.m0,
                       t.n0);
    return t;
  }
};

// sk 3: the whole waves of tiles as a data-parallel launch of configuration DP
// (tma_waves_entry), then the partial wave's tiles streamed over every SM by the persistent
// kernel of DP's tile in U-step groups (tma_streamk_entry, StreamKPlan::make_tail) and the
// fix-up, each launch a programmatic dependent of the one before. The hybrid (sk 1) runs its
// data-parallel tiles in the persistent kernel, whose loop is slower per iteration than the
// data-parallel kernel's (docs/PERFORMANCE.md "tma", wave 21); here only the partial wave is.
// Both kernels have the tile, its order and the block's resources (the configuration's
// occupancy and shared memory opt-in: tma_waves_entry<DP> is its twin kernel, kernels/tma.cu).
template <class DP, int U>
struct TmaWavesThenStreamK : TmaStreamK<TmaUnroll<typename DP::Base, U>, 3> {
  using Waves = DP;
  static_assert(DP::kStreamK == 0, "the waves' kernel is data-parallel");
};

// The persistent kernel of C = TmaStreamK<...>: the plan comes from the launch (kernels/tma.cu),
// which sized the grid and the workspace from it; the fix-up kernel gets the same. With K = 0
// every tile is one empty iteration: no slab is fetched and each tile's C = beta * C is stored.
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    tma_streamk_entry(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b, GemmArgs args,
                      const __grid_constant__ StreamKPlan plan) {
  // The fix-up kernel may be scheduled now (kernels/streamk_launch.cuh): its blocks start as
  // this grid's blocks exit instead of after the last one.
  allow_dependents();
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const tma::Smem<C> sm = tma::setup_smem<C>(smem_raw);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int g = int(blockIdx.x);
  const int steps = int(plan.steps(g));  // a block's share of the iterations fits an int
  const StreamKPlan::Cursor streamed = plan.streamed(g);

  if (warp >= C::kConsumers / 32) {
    tma::regs_dec<C::RP>();
    // Slab t is the walk's t-th iteration: issue calls where() once per slab, in order. The
    // tile's origin (divisions) is worked out only when the walk enters a tile: the issuing
    // thread's warp also transposes A, and the consumers wait for the slowest producer warp.
    StreamKPlan::Cursor next = plan.first(g, streamed);
    int tile = -1, tile_m0 = 0, tile_n0 = 0;
    tma::produce<C>(&map_a, &map_b, sm, args.k > 0 ? steps : 0, warp - C::kConsumers / 32, lane,
                    [&](int, int& m, int& n, int& k) {
                      if (next.tile != tile) {
                        tile = next.tile;
                        tma::tile_origin(tile, plan.tiles_n, plan.tiles_m, C::BM, C::BN, tile_m0,
                                         tile_n0);
                      }
                      m = tile_m0;
                      n = tile_n0;
                      k = next.j * C::BK;
                      plan.advance(next, 1, streamed);
                    });
    return;
  }
  tma::regs_inc<C::RC>();

  int am, bn;
  tma::consumer_coords<C>(warp, lane, am, bn);
  float acc[C::TM][C::TN];
  tma::zero<C>(acc);
  StreamKPlan::Cursor at = plan.first(g, streamed);
  for (int t = 0; t < steps;) {
    // Only the cursor and the count live across the main loop; the segment is worked out again
    // for the epilogue.
    StreamKSegment seg = plan.segment(at, g);
    const int length = int(seg.j1 - seg.j0);
    if (args.k > 0) tma::consume<C>(sm, t, t + length, am, bn, acc);
    t += length;
    seg = plan.segment(at, g);
    int m0, n0;
    tma::tile_origin(int(seg.tile), plan.tiles_n, plan.tiles_m, C::BM, C::BN, m0, n0);
    if (seg.slot < 0)
      tma::store_tile<C>(acc, args, m0, n0, am, bn);
    else
      tma::store_partial<C>(acc, args.workspace + std::size_t(seg.slot) * (C::BM * C::BN), am,
                            bn);
    tma::zero<C>(acc);
    plan.advance(at, length, streamed);
  }
  // A tail after its waves' launch (sk 3) is that launch's programmatic dependent: the block
  // waits for it to complete before exiting, so this kernel's completion implies it
  // (kernels/grid_dependency.cuh). The tail reads nothing the waves write.
  if constexpr (C::kStreamK == 3) wait_for_primary();
}

}  // namespace occtune::kernels
