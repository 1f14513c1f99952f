// Lab for issue #18, family 4: a Hopper (sm_90a) fp32 SGEMM (FFMA, no TF32) fed by TMA and
// mbarrier pipelines, checked against cublasSgemm and timed interleaved with it. Standalone (not
// part of occtune); build and run commands and the design: README.md next to this file.
// Exit status: 0 all checks passed; 1 a check failed (a wait that timed out included) or a
// configuration failed to launch; 2 a CUDA, cuBLAS or driver error that ends the run (a fault).
#include <cublas_v2.h>
#include <cuda.h>  // CUtensorMap and its enums only: the encoder comes through the runtime
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

#define CKB(x)                                                                        \
  do {                                                                                \
    cublasStatus_t s_ = (x);                                                          \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
      std::fprintf(stderr, "%s:%d %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, int(s_)); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

namespace {

// ---- PTX wrappers: mbarrier, TMA, fences ----------------------------------------------------

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// Makes the initialised barriers visible to the other threads and to the async proxy (TMA's
// complete_tx) before anyone uses them; a __syncthreads follows.
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// One arrival (the producer's) plus `bytes` of expected transactions for the current phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

// One arrival with the default .release.cta semantics: this thread's earlier shared-memory reads
// and writes are ordered before it.
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// True once the phase with parity `parity` has completed (default .acquire.cta semantics).
// setmaxnreg is an sm_90a feature; nvcc -arch=sm_90a also embeds compute_90 PTX, which gets
// none (that PTX is never JIT-compiled on an H100, which loads the sm_90a cubin).
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

__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
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
}

// Set by a wait that timed out: 0x80000000 | (barrier's shared address & 0xffff) << 8 | parity.
__device__ unsigned g_deadlock;

// A wait that cannot hang the lab: after ~4e9 cycles (about 2 s at the H100's clocks), or once
// another wait has timed out, it records the barrier and gives up; the kernel then finishes
// with a wrong result, the check fails and the host reports g_deadlock. All inline: a call
// (printf, a noinline function) would make ptxas save the accumulators around it. The flag is
// read only after 2^20 cycles of waiting, never in a healthy pipeline's waits.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  if (mbar_try_wait(bar, parity)) return;
  const long long start = clock64();
  while (!mbar_try_wait(bar, parity)) {
    const long long waited = clock64() - start;
    if (waited > (1ll << 20) &&
        (*reinterpret_cast<volatile unsigned*>(&g_deadlock) != 0u || waited > (4ll << 30))) {
      atomicCAS(&g_deadlock, 0u, 0x80000000u | ((bar & 0xffffu) << 8) | parity);
      return;
    }
  }
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
// of a byte offset are XORed with bits [7, 7+b), b = 1, 2, 3 (CuTe's Swizzle<b, 4, 3>).
template <int kSwizzleBits>
__host__ __device__ __forceinline__ uint32_t swizzle(uint32_t off) {
  if constexpr (kSwizzleBits == 0)
    return off;
  else
    return off ^ (((off >> 7) & ((1u << kSwizzleBits) - 1u)) << 4);
}

// ---- the kernel -----------------------------------------------------------------------------

// BM x BN block tile, BK-deep slabs, TM x TN per consumer thread in WM x WN warp tiles (32 thread
// tiles each, sub-tiles of 4 x 4 spaced a lane apart as in kernels/tile_core.cuh), S TMA stages.
// SWZ: A's box is loaded with the swizzle matching its row width (BK * 4 bytes) and read with the
// same function; 0 loads it unswizzled (correct, bank conflicts in the producer's reads).
// FB 2: fragments of k + 1 are read while k's FMAs issue (fbuf 2 of the regblocked family).
// RC / RP: the registers per thread that consumer and producer warpgroups take with setmaxnreg.
// WARP_RELEASE 0: every consumer thread arrives on the empty barrier; 1: lane 0 of each consumer
// warp arrives after a __syncwarp (which orders the other lanes' reads before its release).
template <int BM_, int BN_, int BK_, int TM_, int TN_, int WM_, int WN_, int S_, int SWZ_,
          int FB_, int RC_ = 232, int RP_ = 40, int WARP_RELEASE_ = 0>
struct Cfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_, WM = WM_, WN = WN_;
  static constexpr int S = S_, FB = FB_, RC = RC_, RP = RP_;
  static constexpr bool kWarpRelease = WARP_RELEASE_ != 0;
  static constexpr int kConsumers = (BM / TM) * (BN / TN);
  static constexpr int kProducers = 128;  // one warpgroup (setmaxnreg works per warpgroup)
  static constexpr int kThreads = kConsumers + kProducers;
  static constexpr int kReleaseCount = kWarpRelease ? kConsumers / 32 : kConsumers;
  static constexpr int kLanesM = WM / TM, kLanesN = WN / TN;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kSwizzleBits = SWZ_ ? (BK == 32 ? 3 : BK == 16 ? 2 : 1) : 0;
  static constexpr int kRawBytes = BM * BK * 4;  // A box as TMA writes it: [BM][BK]
  static constexpr int kBBytes = BK * BN * 4;    // B box: [BK][BN]
  static constexpr int kAsBytes = BK * BM * 4;   // A transposed by the producer: [BK][BM]
  static constexpr uint32_t kTxBytes = uint32_t(kRawBytes + kBBytes);
  static constexpr int kOffB = S * kRawBytes;
  static constexpr int kOffAs = kOffB + S * kBBytes;
  static constexpr int kOffBar = kOffAs + 2 * kAsBytes;
  static constexpr int kBars = 2 * S + 2;  // full[S], empty[S], ready[2]
  static constexpr std::size_t kSmem = std::size_t(kOffBar) + 8 * kBars + 1024;  // + alignment
  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are float4 sub-tiles");
  static_assert(kLanesM * kLanesN == 32 && WM % TM == 0 && WN % TN == 0, "32 thread tiles per warp");
  static_assert(BM % WM == 0 && BN % WN == 0 && kConsumers % 32 == 0, "whole warps");
  static_assert(BK == 8 || BK == 16 || BK == 32, "A rows of 32, 64 or 128 bytes (swizzle span)");
  static_assert(BM % 32 == 0 && BM <= 256 && BN <= 256, "TMA boxes are at most 256 per dimension");
  static_assert(kRawBytes % 1024 == 0 && kBBytes % 1024 == 0 && kAsBytes % 1024 == 0,
                "every buffer starts 1024-byte aligned (the swizzle pattern's period)");
  static_assert(FB == 1 || (FB == 2 && BK % 2 == 0), "fbuf 1 or 2");
  static_assert(kTxBytes < (1u << 20), "mbarrier tx-count range");
  // The block's warps are spread over the SM's 4 register-file quadrants (warp w in w % 4), each
  // 512 registers x 32 lanes: the launch gets 65536 / kThreads (168 for 384 threads), then the
  // producers give registers back and the consumers take them.
  static constexpr int kLaunchRegs = (65536 / kThreads) / 8 * 8;
  static_assert(kConsumers % 128 == 0, "consumers are whole warpgroups");
  static_assert(RC % 8 == 0 && RP % 8 == 0 && RP >= 24 && RP <= kLaunchRegs &&
                    RC >= kLaunchRegs && RC <= 256,
                "setmaxnreg's range: producers give back, consumers take");
  static_assert((kConsumers / 32) * RC + 4 * RP <= (kThreads / 32) * kLaunchRegs,
                "the consumers take no more than the producers gave back");
};

// Block origin in C: blocks walk down 8 block rows before moving one block column right, as
// BlockTile::tile_origin in kernels/tile_core.cuh (L2 reuse within a wave).
__device__ __forceinline__ void block_origin(int bm, int bn, int& m0, int& n0) {
  const int gx = int(gridDim.x), gy = int(gridDim.y);
  const int pid = int(blockIdx.y) * gx + int(blockIdx.x);
  const int span = 8 * gx;
  const int first = (pid / span) * 8;
  const int rows = gy - first < 8 ? gy - first : 8;
  const int local = pid % span;
  m0 = (first + local % rows) * bm;
  n0 = (local / rows) * bn;
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

// The 1024-aligned start of dynamic shared memory (the swizzle's period), and the barriers
// initialised by thread 0: full (1 arrival + the copies' bytes) and empty per stage, and with
// kReady the two ready barriers of the transposed A (one arrival per producer thread).
template <class C, bool kReady>
__device__ __forceinline__ Smem<C> setup_smem(unsigned char* smem_raw) {
  const uint32_t raw_base = smem_u32(smem_raw);
  const uint32_t pad = (1024u - (raw_base & 1023u)) & 1023u;
  const Smem<C> sm{raw_base + pad, smem_raw + pad};
  if (threadIdx.x == 0) {
    for (int s = 0; s < C::S; ++s) {
      mbar_init(sm.full(s), 1);
      mbar_init(sm.empty(s), C::kReleaseCount);
    }
    if constexpr (kReady) {
      mbar_init(sm.ready(0), C::kProducers);
      mbar_init(sm.ready(1), C::kProducers);
    }
    mbar_init_fence();
  }
  __syncthreads();  // the only block-wide barrier
  return sm;
}

// Writes a consumer thread's tile: accumulator row i to block row row_of(i), columns in float4
// groups bn + j * kLanesN * 4; rows past M and groups past N (N % 4 == 0: a group is wholly in
// or out) are not stored.
template <class C, class RowOf>
__device__ __forceinline__ void store_tile(const float (&acc)[C::TM][C::TN], float* c, int M, int N,
                                           int m0, int n0, int bn, RowOf row_of) {
#pragma unroll
  for (int i = 0; i < C::TM; ++i) {
    const int row = m0 + row_of(i);
    if (row >= M) continue;
    float* crow = c + std::size_t(row) * std::size_t(N);
#pragma unroll
    for (int j = 0; j < C::TN / 4; ++j) {
      const int col = n0 + bn + j * C::kLanesN * 4;
      if (col < N)
        *reinterpret_cast<float4*>(crow + col) =
            make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
    }
  }
}

template <class C>
__device__ __forceinline__ void zero_tile(float (&acc)[C::TM][C::TN]) {
#pragma unroll
  for (int i = 0; i < C::TM; ++i) {
#pragma unroll
    for (int j = 0; j < C::TN; ++j) acc[i][j] = 0.0f;
  }
}

// The producer warpgroup. Thread 0 of it issues slab t's two boxes (A at (t*BK, m0), B at
// (n0, t*BK)) into stage t % S on full[t % S]; its four warps then transpose each landed A box
// (warp w: rows 32 (w + 4 p)) into the double-buffered As[k][m] (slot t % 2) and every producer
// thread arrives on ready[t % 2]. Stage (t-1) % S is refilled
// with slab t-1+S once every consumer has released slab t-1 (empty), which also frees As slot
// (t+1) % 2 for the transposition of slab t+1: the producer stays one slab ahead with A and S-1
// ahead with the copies, and never waits for consumers on the slab they need next.
template <class C>
__device__ __forceinline__ void produce(const CUtensorMap* map_a, const CUtensorMap* map_b,
                                        const Smem<C>& sm, int m0, int n0, int slabs, int pw,
                                        int lane) {
  auto issue = [&](int t) {
    const int s = t % C::S;
    mbar_arrive_expect_tx(sm.full(s), C::kTxBytes);
    tma_load_2d(sm.raw_addr(s), map_a, sm.full(s), t * C::BK, m0);
    tma_load_2d(sm.b_addr(s), map_b, sm.full(s), n0, t * C::BK);
  };
  const bool leader = pw == 0 && lane == 0;
  if (leader) {
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

template <class C>
__device__ __forceinline__ void fma_fragments(const float (&a)[C::TM], const float (&b)[C::TN],
                                              float (&acc)[C::TM][C::TN]) {
#pragma unroll
  for (int i = 0; i < C::TM; ++i) {
#pragma unroll
    for (int j = 0; j < C::TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

// Slab t may be read once full[t % S] (its boxes landed: B is read straight from the stage) and
// ready[t % 2] (A transposed) have completed their phases for t. Every consumer thread (or warp,
// kWarpRelease) arrives on empty[t % S] right after issuing its last shared-memory read of the
// slab; the arrive's release semantics order those reads before the refill.
// The consumers' release of stage s, after their last read of it.
template <class C>
__device__ __forceinline__ void release(const Smem<C>& sm, int s) {
  if constexpr (C::kWarpRelease) {
    __syncwarp();
    if (threadIdx.x % 32 == 0) mbar_arrive(sm.empty(s));
  } else {
    mbar_arrive(sm.empty(s));
  }
}

template <class C>
__device__ __forceinline__ void consume(const Smem<C>& sm, int slabs, int am, int bn,
                                        float (&acc)[C::TM][C::TN]) {
  auto wait_slab = [&](int t) {
    mbar_wait(sm.full(t % C::S), uint32_t(t / C::S) & 1u);
    mbar_wait(sm.ready(t & 1), uint32_t(t >> 1) & 1u);
  };
  if constexpr (C::FB == 2) {
    float fa[2][C::TM], fb[2][C::TN];
    if (slabs > 0) {
      wait_slab(0);
      load_fragments<C>(sm.as(0), sm.b(0), 0, am, bn, fa[0], fb[0]);
    }
    for (int t = 0; t < slabs; ++t) {
      const float* as = sm.as(t & 1);
      const float* bs = sm.b(t % C::S);
#pragma unroll
      for (int kk = 0; kk < C::BK; ++kk) {
        const int cur = kk & 1;  // BK is even: every slab starts in buffer 0
        if (kk + 1 < C::BK) {
          load_fragments<C>(as, bs, kk + 1, am, bn, fa[cur ^ 1], fb[cur ^ 1]);
        } else {
          release<C>(sm, t % C::S);
          if (t + 1 < slabs) {
            wait_slab(t + 1);
            load_fragments<C>(sm.as((t + 1) & 1), sm.b((t + 1) % C::S), 0, am, bn, fa[cur ^ 1],
                              fb[cur ^ 1]);
          }
        }
        fma_fragments<C>(fa[cur], fb[cur], acc);
      }
    }
  } else {
    for (int t = 0; t < slabs; ++t) {
      wait_slab(t);
      const float* as = sm.as(t & 1);
      const float* bs = sm.b(t % C::S);
#pragma unroll
      for (int kk = 0; kk < C::BK; ++kk) {
        float a[C::TM], b[C::TN];
        load_fragments<C>(as, bs, kk, am, bn, a, b);
        if (kk + 1 == C::BK) release<C>(sm, t % C::S);
        fma_fragments<C>(a, b, acc);
      }
    }
  }
}

// ---- the direct variant: consumers read A from the swizzled TMA box -------------------------

// The same block, without the transposition: no As buffers, no ready barriers; the producer
// warpgroup only issues copies. A consumer thread owns rows wm0 + lm + kLanesM * i (i < TM) of
// the warp tile, so the 4 lanes of a warp that read different rows read 4 consecutive rows,
// whose 16-byte chunk q the swizzle puts in 4 different bank groups: one LDS.128 of A gives
// 4 consecutive k of one row (conflict-free), TM of them cover 4 k. 4*TM + TN registers of
// fragments instead of TM + TN: ptxas schedules what its budget allows.
template <class C>
struct Direct : C {
  static_assert(C::kSwizzleBits != 0 || C::BK == 8, "unswizzled rows of 64 or 128 bytes conflict");
  static constexpr int kOffBar = C::kOffAs;  // no As
  static constexpr int kBars = 2 * C::S;     // full[S], empty[S]
  static constexpr std::size_t kSmem = std::size_t(kOffBar) + 8 * kBars + 1024;
  static_assert(C::kOffBar >= kOffBar && C::kBars >= kBars && C::kSmem >= kSmem,
                "the direct layout is the transposing one without As and ready");
};

template <class D>
__device__ __forceinline__ void produce_direct(const CUtensorMap* map_a, const CUtensorMap* map_b,
                                               const Smem<D>& sm, int m0, int n0, int slabs,
                                               bool leader) {
  if (!leader) return;
  tma_prefetch_map(map_a);
  tma_prefetch_map(map_b);
  for (int t = 0; t < slabs; ++t) {
    const int s = t % D::S;
    if (t >= D::S) mbar_wait(sm.empty(s), uint32_t((t - D::S) / D::S) & 1u);  // slab t - S freed
    mbar_arrive_expect_tx(sm.full(s), D::kTxBytes);
    tma_load_2d(sm.raw_addr(s), map_a, sm.full(s), t * D::BK, m0);
    tma_load_2d(sm.b_addr(s), map_b, sm.full(s), n0, t * D::BK);
  }
}

template <class D>
__device__ __forceinline__ void consume_direct(const Smem<D>& sm, int slabs, int arow, int bn,
                                               float (&acc)[D::TM][D::TN]) {
  for (int t = 0; t < slabs; ++t) {
    const int s = t % D::S;
    mbar_wait(sm.full(s), uint32_t(t / D::S) & 1u);
    const unsigned char* raw = sm.raw(s);
    const float* bs = sm.b(s);
#pragma unroll
    for (int g = 0; g < D::BK / 4; ++g) {
      float a[D::TM][4];
#pragma unroll
      for (int i = 0; i < D::TM; ++i) {
        const int row = arow + i * D::kLanesM;
        const float4 v = *reinterpret_cast<const float4*>(
            raw + swizzle<D::kSwizzleBits>(uint32_t(row * D::BK * 4 + g * 16)));
        a[i][0] = v.x;
        a[i][1] = v.y;
        a[i][2] = v.z;
        a[i][3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int kk = 4 * g + j;
        float b[D::TN];
#pragma unroll
        for (int q = 0; q < D::TN / 4; ++q) {
          const float4 v =
              *reinterpret_cast<const float4*>(bs + kk * D::BN + bn + q * D::kLanesN * 4);
          b[4 * q] = v.x;
          b[4 * q + 1] = v.y;
          b[4 * q + 2] = v.z;
          b[4 * q + 3] = v.w;
        }
        if (kk + 1 == D::BK) release<D>(sm, s);  // every read of the stage is issued
#pragma unroll
        for (int i = 0; i < D::TM; ++i) {
#pragma unroll
          for (int n = 0; n < D::TN; ++n) acc[i][n] = fmaf(a[i][j], b[n], acc[i][n]);
        }
      }
    }
  }
}

// C (M x N, row-major, ldc = N) = A (M x K) * B (K x N). Requires K % 4 == 0 and N % 4 == 0 (TMA's
// 16-byte global strides); edges in M, N and K come zero-filled from TMA, stores are clipped.
// kDirect: the consumers read A from the swizzled box (Direct<C>), else from the producer's As.
template <class C, bool kDirect>
__global__ void __launch_bounds__(C::kThreads, 1)
    tma_sgemm(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              float* __restrict__ c, int M, int N, int K) {
  using L = std::conditional_t<kDirect, Direct<C>, C>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const Smem<L> sm = setup_smem<L, !kDirect>(smem_raw);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;

  int m0, n0;
  block_origin(C::BM, C::BN, m0, n0);
  const int slabs = (K + C::BK - 1) / C::BK;
  if (warp >= C::kConsumers / 32) {
    regs_dec<C::RP>();
    const int pw = warp - C::kConsumers / 32;
    if constexpr (kDirect)
      produce_direct<L>(&map_a, &map_b, sm, m0, n0, slabs, pw == 0 && lane == 0);
    else
      produce<L>(&map_a, &map_b, sm, m0, n0, slabs, pw, lane);
    return;
  }
  regs_inc<C::RC>();

  const int wm = (warp / C::kWarpsN) * C::WM, lm = lane / C::kLanesN;
  const int bn = (warp % C::kWarpsN) * C::WN + (lane % C::kLanesN) * 4;
  float acc[C::TM][C::TN];
  zero_tile<C>(acc);
  if constexpr (kDirect) {
    const int arow = wm + lm;  // rows arow + kLanesM * i
    consume_direct<L>(sm, slabs, arow, bn, acc);
    store_tile<C>(acc, c, M, N, m0, n0, bn, [arow](int i) { return arow + i * C::kLanesM; });
  } else {
    const int am = wm + lm * 4;  // sub-tiles of 4 rows, kLanesM * 4 apart
    consume<L>(sm, slabs, am, bn, acc);
    store_tile<C>(acc, c, M, N, m0, n0, bn,
                  [am](int i) { return am + (i / 4) * C::kLanesM * 4 + i % 4; });
  }
}

// ---- TMA self-test: one box per swizzle mode, compared with the lab's swizzle function ----------

// Loads the A box at (k0, m0) of a BMxBK box with the given swizzle and counts the elements of
// shared memory that differ from A (zero outside A) at the offset swizzle<bits>() predicts.
template <int BM, int BK, int kBits>
__global__ void tma_selftest(const __grid_constant__ CUtensorMap map, const float* a, int M, int K,
                             int m0, int k0, unsigned* mismatches) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const uint32_t raw_base = smem_u32(smem_raw);
  const uint32_t pad = (1024u - (raw_base & 1023u)) & 1023u;
  unsigned char* buf = smem_raw + pad;
  __shared__ __align__(8) unsigned long long bar;
  const uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) {
    mbar_init(b, 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(b, BM * BK * 4);
    tma_load_2d(raw_base + pad, &map, b, k0, m0);
  }
  mbar_wait(b, 0);
  unsigned bad = 0;
  for (int e = int(threadIdx.x); e < BM * BK; e += int(blockDim.x)) {
    const int m = e / BK, k = e % BK;
    const float want = (m0 + m < M && k0 + k < K) ? a[std::size_t(m0 + m) * K + k0 + k] : 0.0f;
    const float got = *reinterpret_cast<const float*>(buf + swizzle<kBits>(uint32_t(e * 4)));
    if (got != want) ++bad;
  }
  atomicAdd(mismatches, bad);
}

// ---- reference, bound and check kernels -----------------------------------------------------

__global__ void fill_uniform(float* p, std::size_t n, uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    p[i] = float(z >> 40) * (2.0f / 16777216.0f) - 1.0f;  // uniform in [-1, 1)
  }
}

// bound[i][j] = sum_k |a_ik| |b_kj|, a 32x32 shared-memory tiled product.
__global__ void abs_product(const float* a, const float* b, float* bound, int M, int N, int K) {
  __shared__ float as[32][33], bs[32][33];
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const int row = int(blockIdx.y) * 32 + ty, col = int(blockIdx.x) * 32 + tx;
  float s = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 32) {
    as[ty][tx] = row < M && k0 + tx < K ? fabsf(a[std::size_t(row) * K + k0 + tx]) : 0.0f;
    bs[ty][tx] = k0 + ty < K && col < N ? fabsf(b[std::size_t(k0 + ty) * N + col]) : 0.0f;
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < 32; ++kk) s = fmaf(as[ty][kk], bs[kk][tx], s);
    __syncthreads();
  }
  if (row < M && col < N) bound[std::size_t(row) * N + col] = s;
}

struct CheckSums {
  double diff2, ref2;
  unsigned long long nan, violations;
  unsigned worst_bits;  // max |c - ref| / (1e-5 * bound + 1e-30) as float bits (non-negative)
};

__global__ void check_result(const float* c, const float* ref, const float* bound, std::size_t n,
                             CheckSums* out) {
  double d2 = 0.0, r2 = 0.0;
  unsigned long long nans = 0, viol = 0;
  float worst = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float v = c[i], r = ref[i];
    if (isnan(v)) {
      ++nans;
      ++viol;
      continue;
    }
    const double d = double(v) - double(r);
    d2 += d * d;
    r2 += double(r) * double(r);
    const float q = float(fabs(d) / (1e-5 * double(bound[i]) + 1e-30));
    if (!(q <= 1.0f)) ++viol;
    worst = fmaxf(worst, q);
  }
  for (int o = 16; o > 0; o >>= 1) {
    d2 += __shfl_down_sync(0xffffffffu, d2, o);
    r2 += __shfl_down_sync(0xffffffffu, r2, o);
    nans += __shfl_down_sync(0xffffffffu, nans, o);
    viol += __shfl_down_sync(0xffffffffu, viol, o);
    worst = fmaxf(worst, __shfl_down_sync(0xffffffffu, worst, o));
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&out->diff2, d2);
    atomicAdd(&out->ref2, r2);
    atomicAdd(&out->nan, nans);
    atomicAdd(&out->violations, viol);
    atomicMax(&out->worst_bits, __float_as_uint(worst));
  }
}

// ---- host -------------------------------------------------------------------------------------

PFN_cuTensorMapEncodeTiled_v12000 g_encode = nullptr;

void load_encoder() {
  cudaDriverEntryPointQueryResult q{};
  void* fn = nullptr;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || fn == nullptr) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled not found in the driver (query result %d)\n",
                 int(q));
    std::exit(2);
  }
  g_encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

// A row-major rows x cols fp32 matrix (cols contiguous) as a 2D tensor map with box
// box_rows x box_cols. Returns false (and says why) when the driver refuses it.
bool encode_map(CUtensorMap* map, const float* ptr, int rows, int cols, int box_rows, int box_cols,
                CUtensorMapSwizzle swz, const char* what) {
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t estr[2] = {1, 1};
  const CUresult r = g_encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(ptr), dims,
                              strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, swz,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("  cuTensorMapEncodeTiled failed for %s (%d x %d, box %d x %d, swizzle %d): %d\n",
                what, rows, cols, box_rows, box_cols, int(swz), int(r));
    return false;
  }
  return true;
}

CUtensorMapSwizzle swizzle_mode(int bits) {
  return bits == 3   ? CU_TENSOR_MAP_SWIZZLE_128B
         : bits == 2 ? CU_TENSOR_MAP_SWIZZLE_64B
         : bits == 1 ? CU_TENSOR_MAP_SWIZZLE_32B
                     : CU_TENSOR_MAP_SWIZZLE_NONE;
}

struct Variant {
  std::string name;
  int bm, bn, bk, swizzle_bits, threads;
  std::size_t smem;
  const void* kernel;
  cudaError_t (*launch)(const CUtensorMap&, const CUtensorMap&, float*, int, int, int,
                        cudaStream_t);
  CUtensorMap map_a{}, map_b{};
  bool usable = true;     // set up for this shape (maps encoded, smem granted)
  bool broken = false;    // failed a launch or a check: not timed again
  std::vector<float> samples;
};

template <class C, bool kDirect>
constexpr std::size_t smem_bytes() {
  if constexpr (kDirect)
    return Direct<C>::kSmem;
  else
    return C::kSmem;
}

template <class C, bool kDirect>
cudaError_t launch_cfg(const CUtensorMap& a, const CUtensorMap& b, float* c, int M, int N, int K,
                       cudaStream_t st) {
  const dim3 grid(unsigned((N + C::BN - 1) / C::BN), unsigned((M + C::BM - 1) / C::BM));
  tma_sgemm<C, kDirect><<<grid, C::kThreads, smem_bytes<C, kDirect>(), st>>>(a, b, c, M, N, K);
  return cudaGetLastError();
}

template <class C, bool kDirect = false>
Variant make_variant(const char* name) {
  Variant v;
  v.name = name;
  v.bm = C::BM;
  v.bn = C::BN;
  v.bk = C::BK;
  v.swizzle_bits = C::kSwizzleBits;
  v.threads = C::kThreads;
  v.smem = smem_bytes<C, kDirect>();
  v.kernel = reinterpret_cast<const void*>(&tma_sgemm<C, kDirect>);
  v.launch = &launch_cfg<C, kDirect>;
  return v;
}

// Cfg<BM, BN, BK, TM, TN, WM, WN, S, SWZ, FB[, RC, RP[, WARP_RELEASE]]>
std::vector<Variant> all_variants() {
  std::vector<Variant> v;
  v.push_back(make_variant<Cfg<128, 256, 32, 16, 8, 64, 64, 4, 1, 2>>("128x256x32 16x8 w64x64 s4 fb2"));
  v.push_back(make_variant<Cfg<128, 256, 32, 16, 8, 64, 64, 3, 1, 2>>("128x256x32 16x8 w64x64 s3 fb2"));
  v.push_back(make_variant<Cfg<128, 256, 32, 16, 8, 64, 64, 4, 1, 2, 240, 24>>("128x256x32 16x8 w64x64 s4 fb2 r240"));
  v.push_back(make_variant<Cfg<128, 256, 16, 16, 8, 64, 64, 6, 1, 2>>("128x256x16 16x8 w64x64 s6 fb2"));
  v.push_back(make_variant<Cfg<128, 256, 16, 16, 8, 64, 64, 4, 1, 1>>("128x256x16 16x8 w64x64 s4 fb1"));
  v.push_back(make_variant<Cfg<128, 256, 8, 16, 8, 64, 64, 8, 1, 2>>("128x256x8 16x8 w64x64 s8 fb2"));
  v.push_back(make_variant<Cfg<128, 256, 8, 16, 8, 64, 64, 8, 1, 2, 232, 40, 1>>("128x256x8 16x8 w64x64 s8 fb2 wrel"));
  v.push_back(make_variant<Cfg<128, 256, 32, 16, 8, 64, 64, 4, 1, 2, 232, 40, 1>>("128x256x32 16x8 w64x64 s4 fb2 wrel"));
  v.push_back(make_variant<Cfg<256, 128, 32, 16, 8, 64, 64, 3, 1, 2>>("256x128x32 16x8 w64x64 s3 fb2"));
  v.push_back(make_variant<Cfg<128, 256, 16, 8, 16, 32, 128, 6, 1, 2>>("128x256x16 8x16 w32x128 s6 fb2"));
  v.push_back(make_variant<Cfg<128, 256, 32, 16, 8, 64, 64, 4, 0, 2>>("128x256x32 16x8 w64x64 s4 fb2 noswz"));
  // Direct: A read from the swizzled box (FB unused).
  v.push_back(make_variant<Cfg<128, 256, 32, 16, 8, 64, 64, 4, 1, 1>, true>("direct 128x256x32 16x8 w64x64 s4"));
  v.push_back(make_variant<Cfg<128, 256, 32, 8, 16, 32, 128, 4, 1, 1>, true>("direct 128x256x32 8x16 w32x128 s4"));
  v.push_back(make_variant<Cfg<128, 256, 16, 16, 8, 64, 64, 6, 1, 1>, true>("direct 128x256x16 16x8 w64x64 s6"));
  return v;
}

struct Shape {
  int m, n, k;
};

// Host watchdog for what the device-side guard cannot see (a hang outside an mbarrier wait, e.g.
// in setmaxnreg): if a stage does not finish in time, say which and exit 2. stdout is
// line-buffered, so everything printed before survives.
char g_watch_what[160];
std::size_t g_watch_len = 0;

void on_watchdog(int) {
  const char head[] = "\nwatchdog: no progress, exiting (2) during: ";
  (void)!write(2, head, sizeof head - 1);
  (void)!write(2, g_watch_what, g_watch_len);
  (void)!write(2, "\n", 1);
  _exit(2);
}

void watch(unsigned seconds, const char* shape, const char* what) {
  g_watch_len = std::size_t(std::snprintf(g_watch_what, sizeof g_watch_what, "%s %s", shape, what));
  g_watch_len = std::min(g_watch_len, sizeof g_watch_what - 1);
  alarm(seconds);
}

// True (and reports it) when a wait of the last kernels timed out; clears the flag.
bool deadlock_reported(const char* shape, const std::string& kernel) {
  unsigned d = 0;
  CK(cudaMemcpyFromSymbol(&d, g_deadlock, sizeof d));
  if (d == 0) return false;
  std::printf("%-16s %-40s DEADLOCK: a wait timed out (barrier at shared 0x%x, parity %u)\n",
              shape, kernel.c_str(), (d >> 8) & 0xffffu, d & 1u);
  const unsigned zero = 0;
  CK(cudaMemcpyToSymbol(g_deadlock, &zero, sizeof zero));
  return true;
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5f * (v[h - 1] + v[h]);
}

// Runs the self-test of one swizzle mode on a corner box of a: returns the mismatch count.
template <int BM, int BK, int kBits>
unsigned run_selftest(const float* a, int M, int K, unsigned* d_count) {
  CUtensorMap map{};
  if (!encode_map(&map, a, M, K, BM, BK, swizzle_mode(kBits), "self-test A")) return ~0u;
  const std::size_t smem = std::size_t(BM) * BK * 4 + 1024;
  CK(cudaFuncSetAttribute(tma_selftest<BM, BK, kBits>,
                          cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  unsigned total = 0;
  // An interior box and one hanging over the M and K edges (zero fill).
  const int corners[2][2] = {{0, 0}, {((M - 1) / BM) * BM, ((K - 1) / BK) * BK}};
  for (const auto& at : corners) {
    CK(cudaMemset(d_count, 0, sizeof(unsigned)));
    tma_selftest<BM, BK, kBits><<<1, 256, smem>>>(map, a, M, K, at[0], at[1], d_count);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned h = 0;
    CK(cudaMemcpy(&h, d_count, sizeof h, cudaMemcpyDeviceToHost));
    total += h;
  }
  return total;
}

void usage() {
  std::printf(
      "usage: tma_sgemm_lab [--shape MxNxK]... [--config SUBSTRING]... [--rounds R] "
      "[--launches L]\n  defaults: the six shapes of issue #18's lab, every configuration, 20 "
      "rounds of 10 launches\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::signal(SIGALRM, on_watchdog);
  std::vector<Shape> shapes;
  std::vector<std::string> filters;
  int rounds = 20, launches = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--shape" && i + 1 < argc) {
      Shape s{};
      if (std::sscanf(argv[++i], "%dx%dx%d", &s.m, &s.n, &s.k) != 3 || s.m < 1 || s.n < 1 ||
          s.k < 1) {
        std::fprintf(stderr, "bad --shape '%s': want MxNxK with positive sizes\n", argv[i]);
        return 2;
      }
      shapes.push_back(s);
    } else if (a == "--config" && i + 1 < argc) {
      filters.push_back(argv[++i]);
    } else if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--launches" && i + 1 < argc) {
      launches = std::max(1, std::atoi(argv[++i]));
    } else {
      usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (shapes.empty())
    shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 2048},
              {1024, 1024, 1024}, {4100, 4100, 4100}, {1000, 1000, 1000}};

  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  int smem_optin = 0;
  CK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  std::printf("device: %s (sm_%d%d, %d SMs, %d bytes opt-in shared memory per block)\n", prop.name,
              prop.major, prop.minor, prop.multiProcessorCount, smem_optin);
  if (prop.major != 9) {
    std::fprintf(stderr, "this lab needs an sm_90 device (TMA, mbarrier tx-count); found sm_%d%d\n",
                 prop.major, prop.minor);
    return 2;
  }
  load_encoder();

  std::vector<Variant> variants;
  for (Variant& v : all_variants()) {
    bool keep = filters.empty();
    for (const auto& f : filters) keep = keep || v.name.find(f) != std::string::npos;
    if (keep) variants.push_back(std::move(v));
  }
  if (variants.empty()) {
    std::fprintf(stderr, "no configuration matches the --config filters\n");
    return 2;
  }
  std::printf("\nconfigurations (registers and local memory as loaded on this device):\n");
  for (Variant& v : variants) {
    cudaFuncAttributes fa{};
    CK(cudaFuncGetAttributes(&fa, v.kernel));
    const cudaError_t e = v.smem <= std::size_t(smem_optin)
                              ? cudaFuncSetAttribute(v.kernel,
                                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     int(v.smem))
                              : cudaErrorInvalidValue;
    int blocks = 0;
    if (e == cudaSuccess)
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.kernel, v.threads, v.smem));
    std::printf("  %-40s threads %3d  smem %6zu B  regs %3d  local %4zu B  blocks/SM %d%s\n",
                v.name.c_str(), v.threads, v.smem, fa.numRegs, std::size_t(fa.localSizeBytes),
                blocks, e == cudaSuccess ? "" : "  (shared memory not granted: skipped)");
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      v.broken = true;
    }
  }

  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  CKB(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // plain FP32: no TF32
  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  CKB(cublasSetStream(handle, stream));
  cudaEvent_t ev0, ev1;
  CK(cudaEventCreate(&ev0));
  CK(cudaEventCreate(&ev1));
  CheckSums* d_sums = nullptr;
  CK(cudaMalloc(&d_sums, sizeof(CheckSums)));
  unsigned* d_count = nullptr;
  CK(cudaMalloc(&d_count, sizeof(unsigned)));

  bool failed = false;

  // Self-test of TMA's swizzle against the lab's function, on a 1000 x 1000 matrix (edges).
  {
    const int M = 1000, K = 1000;
    float* a = nullptr;
    CK(cudaMalloc(&a, std::size_t(M) * K * sizeof(float)));
    fill_uniform<<<1024, 256>>>(a, std::size_t(M) * K, 7);
    CK(cudaGetLastError());
    watch(60, "self-test", "tma_selftest");
    const unsigned r128 = run_selftest<128, 32, 3>(a, M, K, d_count);
    const unsigned r64 = run_selftest<128, 16, 2>(a, M, K, d_count);
    const unsigned r32 = run_selftest<128, 8, 1>(a, M, K, d_count);
    const unsigned r0 = run_selftest<128, 32, 0>(a, M, K, d_count);
    std::printf("\nTMA swizzle self-test (mismatching elements; 0 expected): 128B %u, 64B %u, 32B %u, "
                "none %u\n",
                r128, r64, r32, r0);
    alarm(0);
    if (r128 || r64 || r32 || r0 || deadlock_reported("self-test", "tma_selftest")) failed = true;
    CK(cudaFree(a));
  }

  std::printf(
      "\n%-16s %-40s %9s %8s %7s %10s %9s %6s %s\n", "shape", "kernel", "ms", "TFLOP/s", "ratio",
      "rel_fro", "worst", "NaN", "check");
  for (const Shape& sh : shapes) {
    const int M = sh.m, N = sh.n, K = sh.k;
    char shape_name[64];
    std::snprintf(shape_name, sizeof shape_name, "%dx%dx%d", M, N, K);
    if (K % 4 != 0 || N % 4 != 0) {
      std::printf("%-16s skipped: TMA needs K and N multiples of 4 (16-byte row strides)\n",
                  shape_name);
      continue;
    }
    const std::size_t na = std::size_t(M) * K, nb = std::size_t(K) * N, nc = std::size_t(M) * N;
    float *a, *b, *c, *ref, *bound;
    CK(cudaMalloc(&a, na * sizeof(float)));
    CK(cudaMalloc(&b, nb * sizeof(float)));
    CK(cudaMalloc(&c, nc * sizeof(float)));
    CK(cudaMalloc(&ref, nc * sizeof(float)));
    CK(cudaMalloc(&bound, nc * sizeof(float)));
    fill_uniform<<<2048, 256, 0, stream>>>(a, na, 1000003ull * M + 17 * K + 1);
    fill_uniform<<<2048, 256, 0, stream>>>(b, nb, 2000003ull * N + 29 * K + 2);
    CK(cudaGetLastError());
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A B is column-major C^T = B^T A^T.
    auto cublas = [&]() {
      CKB(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, ref, N));
    };
    cublas();
    abs_product<<<dim3((N + 31) / 32, (M + 31) / 32), dim3(32, 32), 0, stream>>>(a, b, bound, M, N,
                                                                                   K);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(stream));

    for (Variant& v : variants) {
      v.samples.clear();
      v.usable = !v.broken &&
                 encode_map(&v.map_a, a, M, K, v.bm, v.bk, swizzle_mode(v.swizzle_bits), "A") &&
                 encode_map(&v.map_b, b, K, N, v.bk, v.bn, CU_TENSOR_MAP_SWIZZLE_NONE, "B");
      if (!v.usable) continue;
      CK(cudaMemsetAsync(c, 0xFF, nc * sizeof(float), stream));  // NaN poison
      watch(60, shape_name, v.name.c_str());
      const cudaError_t le = v.launch(v.map_a, v.map_b, c, M, N, K, stream);
      if (le != cudaSuccess) {
        std::printf("%-16s %-40s launch failed: %s\n", shape_name, v.name.c_str(),
                    cudaGetErrorString(le));
        v.usable = false;
        v.broken = true;
        failed = true;
        continue;
      }
      CK(cudaStreamSynchronize(stream));  // a fault ends the run here (exit 2)
      if (deadlock_reported(shape_name, v.name)) {
        v.usable = false;
        v.broken = true;
        failed = true;
        continue;
      }
      CK(cudaMemsetAsync(d_sums, 0, sizeof(CheckSums), stream));
      check_result<<<1024, 256, 0, stream>>>(c, ref, bound, nc, d_sums);
      CK(cudaGetLastError());
      CheckSums h{};
      CK(cudaMemcpyAsync(&h, d_sums, sizeof h, cudaMemcpyDeviceToHost, stream));
      CK(cudaStreamSynchronize(stream));
      const double rel = h.ref2 > 0 ? std::sqrt(h.diff2 / h.ref2) : std::sqrt(h.diff2);
      float worst;
      std::memcpy(&worst, &h.worst_bits, sizeof worst);
      const bool ok = h.nan == 0 && h.violations == 0 && rel <= 1e-5;
      if (!ok) {
        std::printf("%-16s %-40s %9s %8s %7s %10.2e %9.3g %6llu FAIL (%llu elements over the bound)\n",
                    shape_name, v.name.c_str(), "-", "-", "-", rel, double(worst), h.nan,
                    h.violations);
        v.usable = false;
        v.broken = true;  // a wrong kernel is not timed, here or at later shapes
        failed = true;
        continue;
      }
      std::printf("%-16s %-40s %9s %8s %7s %10.2e %9.3g %6llu ok\n", shape_name, v.name.c_str(), "",
                  "", "", rel, double(worst), h.nan);
    }

    // Interleaved timing: per round, `launches` back-to-back launches of cuBLAS, then of each
    // configuration; the median over rounds of the per-launch time.
    std::vector<float> cublas_samples;
    auto time_batch = [&](auto&& fn) {
      CK(cudaEventRecord(ev0, stream));
      for (int l = 0; l < launches; ++l) fn();
      CK(cudaEventRecord(ev1, stream));
      CK(cudaEventSynchronize(ev1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, ev0, ev1));
      return ms / float(launches);
    };
    watch(400, shape_name, "the interleaved timing");
    cublas();  // warm-up
    for (Variant& v : variants)
      if (v.usable) CK(v.launch(v.map_a, v.map_b, c, M, N, K, stream));
    CK(cudaStreamSynchronize(stream));
    for (int r = 0; r < rounds; ++r) {
      cublas_samples.push_back(time_batch(cublas));
      for (Variant& v : variants)
        if (v.usable)
          v.samples.push_back(
              time_batch([&]() { CK(v.launch(v.map_a, v.map_b, c, M, N, K, stream)); }));
    }
    alarm(0);
    // A timed launch that hung (any configuration: the flag does not say which) voids the run.
    if (deadlock_reported(shape_name, "one of the timed launches")) failed = true;
    const double flops = 2.0 * M * double(N) * K;
    const float cub = median(cublas_samples);
    std::printf("%-16s %-40s %9.4f %8.2f %7.3f\n", shape_name, "cublasSgemm", cub,
                flops / (cub * 1e9), 1.0);
    for (Variant& v : variants) {
      if (!v.usable) continue;
      const float ms = median(v.samples);
      std::printf("%-16s %-40s %9.4f %8.2f %7.3f\n", shape_name, v.name.c_str(), ms,
                  flops / (ms * 1e9), cub / ms);
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(ref));
    CK(cudaFree(bound));
  }
  CK(cudaDeviceSynchronize());
  std::printf("\n%s\n", failed ? "FAILED: see the lines marked FAIL or failed above"
                               : "all checks passed");
  cublasDestroy(handle);
  return failed ? 1 : 0;
}
