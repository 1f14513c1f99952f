// The building blocks of the register-blocked, pipelined and split-K GEMM families: the block
// tile (BM x BN of C, BK-deep slabs of A transposed and B in shared memory), the thread and warp
// mapping of its TM x TN register tiles, the slab loaders (register-staged or cp.async), the
// FMA loop and the epilogue. Designs and bank-conflict arguments: docs/PERFORMANCE.md.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/gemm_entry.cuh"
#include "kernels/kernel_space.hpp"

// cp.async (global -> shared without registers) exists from sm_80 on; older architectures
// compile the same pipeline with synchronous copies, which is correct but does not overlap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define OCCTUNE_HAS_CP_ASYNC 1
#else
#define OCCTUNE_HAS_CP_ASYNC 0
#endif

// Full unrolling of the fixed-trip loops below; a host compiler (the emulator) ignores it.
// OCCTUNE_UNROLL_4: a runtime-trip loop unrolled four times, so that the loads of four
// iterations can be in flight together.
#ifdef __CUDACC__
#define OCCTUNE_UNROLL _Pragma("unroll")
#define OCCTUNE_UNROLL_4 _Pragma("unroll 4")
#else
#define OCCTUNE_UNROLL
#define OCCTUNE_UNROLL_4
#endif

// Hooks for the host emulator of the unit tests (tests/support/kernel_emulator.hpp), which
// defines them before including the kernels: alignment checks of every vector access and a
// model of cp.async that lands copies as late as the wait allows. Empty on the device.
#ifndef OCCTUNE_EMU_CHECK_ALIGNED
#define OCCTUNE_EMU_CHECK_ALIGNED(ptr, bytes) ((void)0)
#endif

namespace occtune::kernels::tile {

// Host too: the skinny rings' launches choose their kernel by it (kernels/skinny_pipe.cuh).
__host__ __device__ __forceinline__ bool aligned16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

__device__ __forceinline__ float4 load4(const float* p) {
  OCCTUNE_EMU_CHECK_ALIGNED(p, 16);
#ifdef __CUDA_ARCH__
  return *reinterpret_cast<const float4*>(p);
#else
  float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}

__device__ __forceinline__ void store4(float* p, float4 v) {
  OCCTUNE_EMU_CHECK_ALIGNED(p, 16);
#ifdef __CUDA_ARCH__
  *reinterpret_cast<float4*>(p) = v;
#else
  std::memcpy(p, &v, sizeof v);
#endif
}

// acc += a b^T: the TM x TN FMAs of one k step, columns (b) as the outer loop for ORDER 1, rows
// otherwise. The order changes nvcc's register allocation and so the issue rate (measured on
// the H100, docs/PERFORMANCE.md "What limits each variant"); BlockTile and the tma family
// (kernels/tma.cuh) take it as a parameter of their space.
template <int ORDER, int TM, int TN>
__device__ __forceinline__ void fma_outer(const float (&a)[TM], const float (&b)[TN],
                                          float (&acc)[TM][TN]) {
  if constexpr (ORDER == 1) {
    OCCTUNE_UNROLL
    for (int j = 0; j < TN; ++j) {
      OCCTUNE_UNROLL
      for (int i = 0; i < TM; ++i) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  } else {
    OCCTUNE_UNROLL
    for (int i = 0; i < TM; ++i) {
      OCCTUNE_UNROLL
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}

// alpha * v + beta * c for a float4 group, c read only when beta != 0.
__device__ __forceinline__ float4 scale4(float4 v, const float* c, float alpha, float beta) {
  if (beta == 0.0f) return make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
  const float4 old = load4(c);
  return make_float4(fmaf(beta, old.x, alpha * v.x), fmaf(beta, old.y, alpha * v.y),
                     fmaf(beta, old.z, alpha * v.z), fmaf(beta, old.w, alpha * v.w));
}

// N consecutive floats of a register fragment from shared memory, as one vector access.
template <int N>
__device__ __forceinline__ void load_fragment(const float* p, float* out) {
  if constexpr (N == 4) {
    const float4 v = load4(p);
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
  } else if constexpr (N == 2) {
    OCCTUNE_EMU_CHECK_ALIGNED(p, 8);
#ifdef __CUDA_ARCH__
    const float2 v = *reinterpret_cast<const float2*>(p);
#else
    float2 v;
    std::memcpy(&v, p, sizeof v);
#endif
    out[0] = v.x;
    out[1] = v.y;
  } else {
    static_assert(N == 1, "fragments are 1, 2 or 4 floats wide");
    out[0] = p[0];
  }
}

// Copies kBytes (4 or 16) from global to shared memory: the first src_bytes from src, the rest
// zero (out-of-range parts of edge tiles). src must be valid and kBytes-aligned even when
// src_bytes is 0. kEvictFirst marks the source's lines evict-first in L2, for data read once
// (skinny's large operand, kernels/skinny_pipe.cuh), as skinny_load4 marks its loads;
// kPolicyOnce lets the compiler make that policy once for many copies.
template <int kBytes, bool kEvictFirst = false, bool kPolicyOnce = false>
__device__ __forceinline__ void copy_async(float* dst, const float* src, int src_bytes) {
  static_assert(kBytes == 4 || kBytes == 16, "cp.async copies 4 or 16 bytes here");
#if OCCTUNE_HAS_CP_ASYNC
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (kEvictFirst && kPolicyOnce) {
    static_assert(kBytes == 16, "copy_async: a policy made once for 16-byte copies only");
    // The policy made by an asm of its own, without volatile, so that the compiler makes it
    // once for a loop's copies; made inside each copy's asm (below), ptxas may rebuild it per
    // copy (eight instructions; docs/PERFORMANCE.md, "Copies without tests").
    std::uint64_t policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(d),
                 "l"(src), "r"(src_bytes), "l"(policy)
                 : "memory");
  } else if constexpr (kEvictFirst && kBytes == 16) {
    asm volatile(
        "{\n .reg .b64 policy;\n createpolicy.fractional.L2::evict_first.b64 policy, 1.0;\n"
        " cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, policy;\n}" ::"r"(d),
        "l"(src), "r"(src_bytes)
        : "memory");
  } else if constexpr (kEvictFirst) {
    asm volatile(
        "{\n .reg .b64 policy;\n createpolicy.fractional.L2::evict_first.b64 policy, 1.0;\n"
        " cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 4, %2, policy;\n}" ::"r"(d),
        "l"(src), "r"(src_bytes)
        : "memory");
  } else if constexpr (kBytes == 16) {
    // .cg: cache in L2 only; A and B slabs are used once per block.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
                 "r"(src_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(src_bytes)
                 : "memory");
  }
#elif defined(OCCTUNE_EMU_ASYNC_COPY)
  OCCTUNE_EMU_ASYNC_COPY(dst, src, kBytes, src_bytes);
#else
  OCCTUNE_UNROLL
  for (int i = 0; i < kBytes / 4; ++i) dst[i] = i * 4 < src_bytes ? src[i] : 0.0f;
#endif
}

__device__ __forceinline__ void copy_commit() {
#if OCCTUNE_HAS_CP_ASYNC
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#elif defined(OCCTUNE_EMU_ASYNC_COMMIT)
  OCCTUNE_EMU_ASYNC_COMMIT();
#endif
}

// Waits until at most kPending of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void copy_wait() {
#if OCCTUNE_HAS_CP_ASYNC
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#elif defined(OCCTUNE_EMU_ASYNC_WAIT)
  OCCTUNE_EMU_ASYNC_WAIT(kPending);
#endif
}

// L: the operand layout (autotuner/core/layout.hpp). Shared memory holds the same slabs in every
// layout (As[k][m], Bs[k][n]); only the loaders differ, chosen at compile time so that the nn
// instantiations are the code they were before layouts existed.
template <TileFamily F, int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES,
          int SPLITS, int AREG = 0, int ORDER = 0, int FBUF = 1, int LDK = 0,
          Layout L = Layout::kNN>
struct BlockTile {
  static constexpr TileParams kParams{BM,     BN,     BK,   TM,    TN,   WM, WN,
                                      STAGES, SPLITS, AREG, ORDER, FBUF, LDK};
  static_assert(tile_valid(F, kParams),
                "not a point of the family's space: see tile_violation() in kernel_space.hpp");
  static constexpr bool kTransA = transposes_a(L);
  static constexpr bool kTransB = transposes_b(L);
  static_assert(!(kTransA && AREG != 0),
                "areg stages A through registers for its transposing stores; with op(A) = T, A "
                "is copied directly (areg 0)");

  static constexpr int kThreads = tile_threads(F, kParams);
  static constexpr int kMinBlocksPerSm = tile_min_blocks_per_sm(F, kParams);
  static constexpr std::size_t kSmemBytes = tile_smem_bytes(F, kParams);
  // A thread tile is a grid of sub-tiles (4 x 4 at most) spread kLanes* apart, so that a warp's
  // fragment reads are consecutive vectors: conflict-free, one wavefront for up to 8 lanes.
  static constexpr int kSubM = TM < 4 ? TM : 4;
  static constexpr int kSubN = TN < 4 ? TN : 4;
  static constexpr int kLanesM = WM / TM;
  static constexpr int kLanesN = WN / TN;
  static constexpr int kGroup = kLanesM * kLanesN;  // 32 with warp tiling, else kThreads
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kLdA = BM + kPadA;  // A is stored transposed: As[k][m]
  static constexpr int kLdB = BN;          // Bs[k][n]
  static constexpr int kStageFloats = BK * kLdA + BK * kLdB;
  static constexpr int kChunksA = BM * BK / 4;
  static constexpr int kChunksB = BK * BN / 4;
  static constexpr int kElemsA = BM * BK;
  static constexpr int kElemsB = BK * BN;

  struct Coords {
    int m, n;  // first row and column of this thread's first sub-tile within the block tile
  };

  __device__ static Coords thread_coords() {
    const int tid = int(threadIdx.x);
    const int group = tid / kGroup, lane = tid % kGroup;
    return {(group / kWarpsN) * WM + (lane / kLanesN) * kSubM,
            (group % kWarpsN) * WN + (lane % kLanesN) * kSubN};
  }

  // Block origin in C. Consecutive blocks walk down kSwizzleRows block rows before moving one
  // block column right, so a wave of resident blocks shares fewer slabs of A and B in L2.
  __device__ static void block_origin(int& m0, int& n0) {
    tile_origin(int(blockIdx.y) * int(gridDim.x) + int(blockIdx.x), int(gridDim.x),
                int(gridDim.y), m0, n0);
  }
  // The same for tile `pid` of a gx x gy tile grid walked by a loop (stream-K's persistent
  // blocks) rather than by the launch.
  __device__ static void tile_origin(int pid, int gx, int gy, int& m0, int& n0) {
    const int span = kSwizzleRows * gx;
    const int first = (pid / span) * kSwizzleRows;
    const int rows = gy - first < kSwizzleRows ? gy - first : kSwizzleRows;
    const int local = pid % span;
    m0 = (first + local % rows) * BM;
    n0 = (local / rows) * BN;
  }

  __device__ static void zero(float (&acc)[TM][TN]) {
    OCCTUNE_UNROLL
    for (int i = 0; i < TM; ++i) {
      OCCTUNE_UNROLL
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    }
  }

  // The thread's fragments of k from a stage: TM values of A (column k of As^T) and TN of B.
  __device__ static void load_fragments(const float* stage, Coords at, int kk, float (&a)[TM],
                                        float (&b)[TN]) {
    const float* as = stage + at.m + kk * kLdA;
    const float* bs = stage + BK * kLdA + at.n + kk * kLdB;
    OCCTUNE_UNROLL
    for (int i = 0; i < TM / kSubM; ++i)
      load_fragment<kSubM>(as + i * kLanesM * kSubM, a + i * kSubM);
    OCCTUNE_UNROLL
    for (int j = 0; j < TN / kSubN; ++j)
      load_fragment<kSubN>(bs + j * kLanesN * kSubN, b + j * kSubN);
  }

  // acc += a b^T in the order ORDER (a parameter of the space: fma_outer above).
  __device__ static void fma_fragments(const float (&a)[TM], const float (&b)[TN],
                                       float (&acc)[TM][TN]) {
    fma_outer<ORDER>(a, b, acc);
  }

  // acc += As^T[:, slab] * Bs[slab, :] for this thread's fragments, k in order.
  __device__ static void compute_slab(const float* stage, Coords at, float (&acc)[TM][TN]) {
    OCCTUNE_UNROLL
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
      load_fragments(stage, at, kk, a, b);
      fma_fragments(a, b, acc);
    }
  }

  __device__ static float4 scale4(float4 v, const float* c, float alpha, float beta) {
    return tile::scale4(v, c, alpha, beta);
  }

  // Writes the thread's tile to c (row-major, leading dimension ldc) at block origin (m0, n0),
  // clipped to m x n; float4 stores where the row segment is whole and aligned. kScaled: the
  // GEMM epilogue alpha * acc + beta * c; without it the raw sums (split-K's slices).
  template <bool kScaled>
  __device__ static void store(const float (&acc)[TM][TN], Coords at, float* c, int ldc, int m0,
                               int n0, int m, int n, float alpha = 1.0f, float beta = 0.0f) {
    [[maybe_unused]] const bool vec = kSubN == 4 && aligned16(c) && ldc % 4 == 0;
    OCCTUNE_UNROLL
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + at.m + (i / kSubM) * kLanesM * kSubM + i % kSubM;
      if (row >= m) continue;
      float* crow = c + std::size_t(row) * std::size_t(ldc);
      OCCTUNE_UNROLL
      for (int j = 0; j < TN / kSubN; ++j) {
        const int col = n0 + at.n + j * kLanesN * kSubN;
        const float* v = &acc[i][j * kSubN];
        if constexpr (kSubN == 4) {
          if (vec && col + 3 < n) {
            float4 out = make_float4(v[0], v[1], v[2], v[3]);
            if constexpr (kScaled) out = scale4(out, crow + col, alpha, beta);
            store4(crow + col, out);
            continue;
          }
        }
        OCCTUNE_UNROLL
        for (int q = 0; q < kSubN; ++q) {
          if (col + q >= n) continue;
          if constexpr (kScaled)
            crow[col + q] = scale_output(v[q], crow + col + q, alpha, beta);
          else
            crow[col + q] = v[q];
        }
      }
    }
  }

  // --- slab loaders ----------------------------------------------------------------------
  //
  // A is read in chunks of 4 consecutive k of one row; chunk e = it * kThreads + tid sits at
  // row (e / 2) % BM and k 4 * ((e / (2 * BM)) * 2 + e % 2): two chunks (one 32-byte segment)
  // per row, 16 rows per warp. Its transposed stores hit bank 16 * (e % 2) + 4 * j + row (j the
  // element of the chunk), since kLdA = 4 mod 32: conflict-free. B is read in float4 chunks
  // along a row (or element by element when B is misaligned), consecutive threads on
  // consecutive columns. Since every size is a power of two, chunk `it` of a thread lies at a
  // compile-time offset from the thread's first chunk: the per-thread bases are computed once
  // and each copy costs one address add.

  static constexpr int kIterA = (kChunksA + kThreads - 1) / kThreads;
  static constexpr int kIterB = (kChunksB + kThreads - 1) / kThreads;
  static constexpr int kIterBScalar = (kElemsB + kThreads - 1) / kThreads;
  // Offsets of a thread's chunk `it` from its first one.
  __host__ __device__ static constexpr int a_row_offset(int it) { return (it * kThreads / 2) % BM; }
  __host__ __device__ static constexpr int a_k_offset(int it) {
    return 8 * ((it * kThreads / 2) / BM);
  }
  __host__ __device__ static constexpr int b_k_offset(int it) { return (it * kThreads) / (BN / 4); }
  __host__ __device__ static constexpr int b_col_offset(int it) {
    return 4 * ((it * kThreads) % (BN / 4));
  }
  __host__ __device__ static constexpr int bs_k_offset(int it) { return (it * kThreads) / BN; }
  __host__ __device__ static constexpr int bs_col_offset(int it) { return (it * kThreads) % BN; }
  // op(A) = T: the stored A (K x M) is read as B is in nn, float4 chunks along m at one k
  // (element by element when misaligned), straight into As[k][m]. op(B) = T: the stored B
  // (N x K) is read as A is in nn, two chunks of 4 consecutive k per row n, 16 rows per warp,
  // with transposing stores into Bs[k][n] (kLdB = BN: 2-way bank conflicts on those stores,
  // the price of keeping nn's shared-memory layout).
  static constexpr int kIterAScalar = (kElemsA + kThreads - 1) / kThreads;
  __host__ __device__ static constexpr int at_k_offset(int it) {
    return (it * kThreads) / (BM / 4);
  }
  __host__ __device__ static constexpr int at_m_offset(int it) {
    return 4 * ((it * kThreads) % (BM / 4));
  }
  __host__ __device__ static constexpr int ats_k_offset(int it) { return (it * kThreads) / BM; }
  __host__ __device__ static constexpr int ats_m_offset(int it) { return (it * kThreads) % BM; }
  __host__ __device__ static constexpr int bt_n_offset(int it) { return (it * kThreads / 2) % BN; }
  __host__ __device__ static constexpr int bt_k_offset(int it) {
    return 8 * ((it * kThreads / 2) / BN);
  }
  template <int kCount>
  __device__ static bool active(int it) {
    return kCount % kThreads == 0 || int(threadIdx.x) + it * kThreads < kCount;
  }

  // A thread's first chunk of A and B at slab k = 0, relative to the block origin.
  struct Loader {
    const float* a;      // A at (m0 + a_row, a_k): the stored element of op(A) there
    const float* b;      // B at (b_k, n0 + b_col): the stored element of op(B) there
    int a_row, a_k;      // a_row includes m0
    int b_k, b_col;      // b_col includes n0
    int a_smem, b_smem;  // float offsets of the first chunk in a stage
    bool vec_b;          // B chunks as 16-byte vectors (base and ldb allow it)
    bool b_whole;        // the block's columns are all inside n
    bool vec_a;          // op(A) = T only: A chunks as 16-byte vectors
    bool a_whole;        // op(A) = T only: the block's rows are all inside m
  };

  // vec_a matters only with op(A) = T (the chunk mapping of A along m).
  __device__ static Loader make_loader(const GemmArgs& p, int m0, int n0, bool vec_b,
                                       bool vec_a = true) {
    const int tid = int(threadIdx.x);
    Loader l;
    if constexpr (!kTransA) {
      l.a_row = m0 + (tid / 2) % BM;
      l.a_k = 4 * (((tid / 2) / BM) * 2 + tid % 2);
      l.a = p.a + std::size_t(l.a_row) * std::size_t(p.lda) + l.a_k;
      l.a_smem = l.a_k * kLdA + (tid / 2) % BM;
    } else {
      l.vec_a = vec_a;
      l.a_whole = m0 + BM <= p.m;
      if (vec_a) {
        l.a_k = tid / (BM / 4);
        l.a_row = 4 * (tid % (BM / 4));
      } else {
        l.a_k = tid / BM;
        l.a_row = tid % BM;
      }
      l.a_smem = l.a_k * kLdA + l.a_row;
      l.a_row += m0;
      l.a = p.a + std::size_t(l.a_k) * std::size_t(p.lda) + l.a_row;
    }
    l.vec_b = vec_b;
    l.b_whole = n0 + BN <= p.n;
    if constexpr (!kTransB) {
      if (vec_b) {
        l.b_k = tid / (BN / 4);
        l.b_col = 4 * (tid % (BN / 4));
      } else {
        l.b_k = tid / BN;
        l.b_col = tid % BN;
      }
      l.b_smem = BK * kLdA + l.b_k * kLdB + l.b_col;
      l.b_col += n0;
      l.b = p.b + std::size_t(l.b_k) * std::size_t(p.ldb) + l.b_col;
    } else {
      l.b_col = n0 + (tid / 2) % BN;
      l.b_k = 4 * (((tid / 2) / BN) * 2 + tid % 2);
      l.b = p.b + std::size_t(l.b_col) * std::size_t(p.ldb) + l.b_k;
      l.b_smem = BK * kLdA + l.b_k * kLdB + (tid / 2) % BN;
    }
    return l;
  }

  // op(A) = T, cp.async: chunks along m (16 bytes, the tail of m zero-filled) or elements.
  template <bool kFull>
  __device__ static void issue_a_transposed(const GemmArgs& p, const Loader& l, float* stage,
                                            int k0, int k_lo, int k_hi) {
    if (l.vec_a) {
      OCCTUNE_UNROLL
      for (int it = 0; it < kIterA; ++it) {
        const int rows = p.m - (l.a_row + at_m_offset(it));
        if (!active<kChunksA>(it) || rows <= 0) continue;
        const int k = k0 + at_k_offset(it);  // relative to l.a's stored row
        const bool ok = kFull || (l.a_k + k >= k_lo && l.a_k + k < k_hi);
        copy_async<16>(stage + l.a_smem + at_k_offset(it) * kLdA + at_m_offset(it),
                       ok ? l.a + std::ptrdiff_t(k) * p.lda + at_m_offset(it) : p.a,
                       ok ? (rows < 4 ? rows : 4) * 4 : 0);
      }
    } else {
      OCCTUNE_UNROLL
      for (int it = 0; it < kIterAScalar; ++it) {
        if (!active<kElemsA>(it) || l.a_row + ats_m_offset(it) >= p.m) continue;
        const int k = k0 + ats_k_offset(it);
        const bool ok = kFull || (l.a_k + k >= k_lo && l.a_k + k < k_hi);
        copy_async<4>(stage + l.a_smem + ats_k_offset(it) * kLdA + ats_m_offset(it),
                      ok ? l.a + std::ptrdiff_t(k) * p.lda + ats_m_offset(it) : p.a, ok ? 4 : 0);
      }
    }
  }

  // op(B) = T, cp.async: element copies of chunks of 4 k into their transposed places.
  template <bool kFull>
  __device__ static void issue_b_transposed(const GemmArgs& p, const Loader& l, float* stage,
                                            int k0, int k_lo, int k_hi) {
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterB; ++it) {
      if (!active<kChunksB>(it) || l.b_col + bt_n_offset(it) >= p.n) continue;
      const int k = k0 + bt_k_offset(it);  // relative to l.b's stored column
      float* dst = stage + l.b_smem + bt_k_offset(it) * kLdB + bt_n_offset(it);
      const std::size_t row = std::size_t(bt_n_offset(it)) * std::size_t(p.ldb);
      OCCTUNE_UNROLL
      for (int j = 0; j < 4; ++j) {
        const bool ok = kFull || (l.b_k + k + j >= k_lo && l.b_k + k + j < k_hi);
        copy_async<4>(dst + j * kLdB, ok ? l.b + row + k + j : p.b, ok ? 4 : 0);
      }
    }
  }

  // Issues the copies of slab [k0, k0 + BK) into `stage` (cp.async; synchronous before sm_80).
  // Rows and columns past m and n are not copied (they only feed outputs that are never
  // stored). kFull: every k of the slab is inside [k_lo, k_hi); otherwise k outside it is
  // zero-filled, since it meets valid rows and columns. Offsets stay integers until a copy is
  // known to be in range, so no pointer outside the matrices is ever formed.
  template <bool kFull>
  __device__ static void issue_slab(const GemmArgs& p, const Loader& l, float* stage, int k0,
                                    int k_lo, int k_hi) {
    if constexpr (kTransA) issue_a_transposed<kFull>(p, l, stage, k0, k_lo, k_hi);
    if constexpr (kTransB) issue_b_transposed<kFull>(p, l, stage, k0, k_lo, k_hi);
    OCCTUNE_UNROLL
    for (int it = 0; it < (AREG || kTransA ? 0 : kIterA); ++it) {
      if (!active<kChunksA>(it) || l.a_row + a_row_offset(it) >= p.m) continue;
      const int k = k0 + a_k_offset(it);  // relative to l.a's column
      float* dst = stage + l.a_smem + a_k_offset(it) * kLdA + a_row_offset(it);
      if constexpr (kFull) {
        const float* src = l.a + std::size_t(a_row_offset(it)) * std::size_t(p.lda) + k;
        OCCTUNE_UNROLL
        for (int j = 0; j < 4; ++j) copy_async<4>(dst + j * kLdA, src + j, 4);
      } else {
        const int gk = l.a_k + k;
        OCCTUNE_UNROLL
        for (int j = 0; j < 4; ++j) {
          const bool ok = gk + j >= k_lo && gk + j < k_hi;
          copy_async<4>(dst + j * kLdA,
                        ok ? l.a + std::size_t(a_row_offset(it)) * std::size_t(p.lda) + k + j : p.a,
                        ok ? 4 : 0);
        }
      }
    }
    if constexpr (!kTransB) {
      if (l.vec_b) {
        OCCTUNE_UNROLL
        for (int it = 0; it < kIterB; ++it) {
          const int cols = p.n - (l.b_col + b_col_offset(it));
          if (!active<kChunksB>(it) || cols <= 0) continue;
          const int k = k0 + b_k_offset(it);  // relative to l.b's row
          const bool ok = kFull || (l.b_k + k >= k_lo && l.b_k + k < k_hi);
          copy_async<16>(stage + l.b_smem + b_k_offset(it) * kLdB + b_col_offset(it),
                         ok ? l.b + std::ptrdiff_t(k) * p.ldb + b_col_offset(it) : p.b,
                         ok ? (cols < 4 ? cols : 4) * 4 : 0);
        }
      } else {
        OCCTUNE_UNROLL
        for (int it = 0; it < kIterBScalar; ++it) {
          if (!active<kElemsB>(it) || l.b_col + bs_col_offset(it) >= p.n) continue;
          const int k = k0 + bs_k_offset(it);
          const bool ok = kFull || (l.b_k + k >= k_lo && l.b_k + k < k_hi);
          copy_async<4>(stage + l.b_smem + bs_k_offset(it) * kLdB + bs_col_offset(it),
                        ok ? l.b + std::ptrdiff_t(k) * p.ldb + bs_col_offset(it) : p.b, ok ? 4 : 0);
        }
      }
    }
  }

  // AREG = 1: slab [k0, k0 + BK) of A into registers, float4 chunks where A, its leading
  // dimension and k0 allow (vec_a), element by element otherwise; zero outside [k_lo, k_hi)
  // unless kFull. Rows past m stay zero.
  template <bool kFull>
  __device__ static void load_a_regs(const GemmArgs& p, const Loader& l, float4 (&r)[kIterA],
                                     int k0, int k_lo, int k_hi, bool vec_a) {
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterA; ++it) {
      if (!active<kChunksA>(it)) continue;
      float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (l.a_row + a_row_offset(it) < p.m) {
        const std::size_t row = std::size_t(a_row_offset(it)) * std::size_t(p.lda);
        const int k = k0 + a_k_offset(it);  // relative to l.a's column
        if (kFull && vec_a) {
          v = load4(l.a + row + k);
        } else {
          const int gk = l.a_k + k;
          float e[4];
          OCCTUNE_UNROLL
          for (int j = 0; j < 4; ++j)
            e[j] = kFull || (gk + j >= k_lo && gk + j < k_hi) ? l.a[row + k + j] : 0.0f;
          v = make_float4(e[0], e[1], e[2], e[3]);
        }
      }
      r[it] = v;
    }
  }

  // Transposing stores of staged A chunks: bank 16 * (chunk % 2) + 4 * j + row, conflict-free.
  __device__ static void store_a_regs(const Loader& l, const float4 (&r)[kIterA], float* stage) {
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterA; ++it) {
      if (!active<kChunksA>(it)) continue;
      float* dst = stage + l.a_smem + a_k_offset(it) * kLdA + a_row_offset(it);
      dst[0] = r[it].x;
      dst[kLdA] = r[it].y;
      dst[2 * kLdA] = r[it].z;
      dst[3 * kLdA] = r[it].w;
    }
  }

  // The multi-stage pipeline over [k_begin, k_end): STAGES - 1 slabs in flight while one is
  // computed, one barrier per slab. The K residue comes first (CUTLASS does the same): slab 0
  // ends where the first whole slab begins and is zero-filled before k_begin, so every slab
  // issued inside the loop is whole and its copies carry no k checks. Every iteration commits
  // a group (empty at the tail) so that wait_group<STAGES - 2> always means "the slab about to
  // be computed has landed". With AREG, A of slab t + STAGES - 1 is loaded into registers
  // before slab t is computed and stored after it, into the stage freed by slab t - 1.
  __device__ static void pipelined_mainloop(const GemmArgs& p, float* stages, int m0, int n0,
                                            int k_begin, int k_end, Coords at,
                                            float (&acc)[TM][TN]) {
    const Loader l = make_loader(p, m0, n0, aligned16(p.b) && p.ldb % 4 == 0,
                                 !kTransA || (aligned16(p.a) && p.lda % 4 == 0));
    const int length = k_end > k_begin ? k_end - k_begin : 0;
    const int slabs = (length + BK - 1) / BK;
    const int residue = length % BK;
    const int k_base = k_begin - (residue ? BK - residue : 0);  // slab t spans k_base + t * BK
    [[maybe_unused]] const bool vec_a = aligned16(p.a) && p.lda % 4 == 0 && k_base % 4 == 0;
    [[maybe_unused]] float4 ra[kIterA] = {};
    OCCTUNE_UNROLL
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < slabs) {
        float* stage = stages + s * kStageFloats;
        const int k0 = k_base + s * BK;
        if (s == 0 && residue) {
          issue_slab<false>(p, l, stage, k0, k_begin, k_end);
          if constexpr (AREG != 0) load_a_regs<false>(p, l, ra, k0, k_begin, k_end, vec_a);
        } else {
          issue_slab<true>(p, l, stage, k0, k_begin, k_end);
          if constexpr (AREG != 0) load_a_regs<true>(p, l, ra, k0, k_begin, k_end, vec_a);
        }
        if constexpr (AREG != 0) store_a_regs(l, ra, stage);
      }
      copy_commit();
    }
    if constexpr (FBUF == 2)
      fragment_buffered_loop(p, l, stages, k_base, k_begin, k_end, slabs, at, acc, ra, vec_a);
    else
      slab_loop(p, l, stages, k_base, k_begin, k_end, slabs, at, acc, ra, vec_a);
  }

  // The main loop after the prologue, fragments read just before their FMAs (FBUF = 1).
  template <class StagedA>
  __device__ static void slab_loop(const GemmArgs& p, const Loader& l, float* stages, int k_base,
                                   int k_begin, int k_end, int slabs, Coords at,
                                   float (&acc)[TM][TN], StagedA& ra,
                                   [[maybe_unused]] bool vec_a) {
    for (int t = 0; t < slabs; ++t) {
      copy_wait<STAGES - 2>();
      // Slab t is visible to every thread, and every thread is done with slab t - 1, whose
      // stage (`write`) is refilled next.
      __syncthreads();
      const int next = t + STAGES - 1;
      const int read = t % STAGES, write = next % STAGES;
      const bool refill = next < slabs;
      if (refill) {
        issue_slab<true>(p, l, stages + write * kStageFloats, k_base + next * BK, k_begin, k_end);
        if constexpr (AREG != 0)
          load_a_regs<true>(p, l, ra, k_base + next * BK, k_begin, k_end, vec_a);
      }
      copy_commit();
      compute_slab(stages + read * kStageFloats, at, acc);
      if constexpr (AREG != 0)
        if (refill) store_a_regs(l, ra, stages + write * kStageFloats);
    }
  }

  // The main loop of the pipeline with fragments double-buffered in registers (FBUF = 2, after
  // the prologue of pipelined_mainloop): the fragments of k + 1 are read while k is computed.
  // At a slab's last k the wait for the next slab and the barrier come first, then that slab's
  // first fragments are read, then the last FMAs of this one, so the shared-memory latency at
  // the slab boundary is hidden too (CUTLASS's multistage order). Still one barrier per slab:
  // it publishes slab t + 1 and retires slab t - 1, whose stage the top of iteration t + 1
  // refills (every thread read its last fragments of it before that barrier). With AREG the
  // staged A of the slab being refilled is stored just before that barrier.
  template <class StagedA>
  __device__ static void fragment_buffered_loop(const GemmArgs& p, const Loader& l, float* stages,
                                                int k_base, int k_begin, int k_end, int slabs,
                                                Coords at, float (&acc)[TM][TN], StagedA& ra,
                                                [[maybe_unused]] bool vec_a) {
    if (slabs == 0) return;
    copy_wait<STAGES - 2>();
    __syncthreads();
    float fa[2][TM], fb[2][TN];
    load_fragments(stages, at, 0, fa[0], fb[0]);
    for (int t = 0; t < slabs; ++t) {
      const int next = t + STAGES - 1;
      float* write = stages + (next % STAGES) * kStageFloats;
      const bool refill = next < slabs;
      if (refill) {
        issue_slab<true>(p, l, write, k_base + next * BK, k_begin, k_end);
        if constexpr (AREG != 0)
          load_a_regs<true>(p, l, ra, k_base + next * BK, k_begin, k_end, vec_a);
      }
      copy_commit();
      const float* read = stages + (t % STAGES) * kStageFloats;
      OCCTUNE_UNROLL
      for (int kk = 0; kk < BK; ++kk) {
        const int cur = kk & 1;
        if (kk < BK - 1) {
          load_fragments(read, at, kk + 1, fa[cur ^ 1], fb[cur ^ 1]);
        } else if (t + 1 < slabs) {
          copy_wait<STAGES - 2>();
          if constexpr (AREG != 0)
            if (refill) store_a_regs(l, ra, write);
          __syncthreads();
          load_fragments(stages + ((t + 1) % STAGES) * kStageFloats, at, 0, fa[cur ^ 1],
                         fb[cur ^ 1]);
        }
        fma_fragments(fa[cur], fb[cur], acc);
      }
    }
  }

  // --- register staging (register-blocked) --------------------------------------------------

  // A slab held in registers between its global load and its shared-memory store, so the
  // loads of slab t + 1 are in flight while slab t is computed. Same chunks as above; B always
  // goes by float4 chunks here (scalar loads into the same chunk when misaligned).
  struct Staged {
    float4 a[kIterA];
    float4 b[kIterB];
  };

  __device__ static Loader make_staged_loader(const GemmArgs& p, int m0, int n0) {
    return make_loader(p, m0, n0, true);  // chunk mapping for B whatever its alignment
  }

  // Loads slab [k0, k0 + BK) into registers. Inside the matrices with aligned A and B (the
  // common case, decided once per slab for the whole block) every chunk is one float4 load;
  // otherwise each element is loaded on its own and zero outside the matrices.
  __device__ static void load_staged(const GemmArgs& p, const Loader& l, Staged& r, int k0,
                                     bool vec_a, bool vec_b) {
    if constexpr (kTransA || kTransB)
      load_staged_transposed(p, l, r, k0, vec_a, vec_b);
    else
      load_staged_nn(p, l, r, k0, vec_a, vec_b);
  }

  __device__ static void load_staged_nn(const GemmArgs& p, const Loader& l, Staged& r, int k0,
                                        bool vec_a, bool vec_b) {
    const bool fast = vec_a && vec_b && l.b_whole && k0 + BK <= p.k;
    const float* a = l.a + k0;
    const float* b = l.b + std::size_t(k0) * std::size_t(p.ldb);
    if (fast) {
      OCCTUNE_UNROLL
      for (int it = 0; it < kIterA; ++it) {
        if (!active<kChunksA>(it)) continue;
        r.a[it] =
            l.a_row + a_row_offset(it) < p.m
                ? load4(a + std::size_t(a_row_offset(it)) * std::size_t(p.lda) + a_k_offset(it))
                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
      OCCTUNE_UNROLL
      for (int it = 0; it < kIterB; ++it) {
        if (!active<kChunksB>(it)) continue;
        r.b[it] = load4(b + std::size_t(b_k_offset(it)) * std::size_t(p.ldb) + b_col_offset(it));
      }
      return;
    }
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterA; ++it) {
      if (!active<kChunksA>(it)) continue;
      float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if (l.a_row + a_row_offset(it) < p.m) {
        const int gk = k0 + l.a_k + a_k_offset(it);
        const float* src = a + std::size_t(a_row_offset(it)) * std::size_t(p.lda) + a_k_offset(it);
        OCCTUNE_UNROLL
        for (int j = 0; j < 4; ++j)
          if (gk + j < p.k) v[j] = src[j];
      }
      r.a[it] = make_float4(v[0], v[1], v[2], v[3]);
    }
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterB; ++it) {
      if (!active<kChunksB>(it)) continue;
      float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if (k0 + l.b_k + b_k_offset(it) < p.k) {
        const int gn = l.b_col + b_col_offset(it);
        const float* src = b + std::size_t(b_k_offset(it)) * std::size_t(p.ldb) + b_col_offset(it);
        OCCTUNE_UNROLL
        for (int j = 0; j < 4; ++j)
          if (gn + j < p.n) v[j] = src[j];
      }
      r.b[it] = make_float4(v[0], v[1], v[2], v[3]);
    }
  }

  // load_staged for layouts with a transposed operand: per operand, one float4 per chunk when
  // the whole slab is inside the matrices and aligned (`fast`, as in nn), else element by
  // element, zero outside. An nn operand keeps nn's chunks; a transposed one is read along its
  // stored rows (the chunk mappings above).
  __device__ static void load_staged_transposed(const GemmArgs& p, const Loader& l, Staged& r,
                                                int k0, bool vec_a, bool vec_b) {
    const bool fast = vec_a && vec_b && (kTransB || l.b_whole) && (!kTransA || l.a_whole) &&
                      k0 + BK <= p.k;
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterA; ++it) {
      if (!active<kChunksA>(it)) continue;
      float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if constexpr (kTransA) {
        const int k = k0 + at_k_offset(it);  // relative to l.a's stored row
        if (fast) {
          r.a[it] = load4(l.a + std::ptrdiff_t(k) * p.lda + at_m_offset(it));
          continue;
        }
        const int gm = l.a_row + at_m_offset(it);
        if (l.a_k + k < p.k) {
          const float* src = l.a + std::ptrdiff_t(k) * p.lda + at_m_offset(it);
          OCCTUNE_UNROLL
          for (int j = 0; j < 4; ++j)
            if (gm + j < p.m) v[j] = src[j];
        }
      } else if (l.a_row + a_row_offset(it) < p.m) {
        const float* src =
            l.a + std::size_t(a_row_offset(it)) * std::size_t(p.lda) + k0 + a_k_offset(it);
        if (fast) {
          r.a[it] = load4(src);
          continue;
        }
        const int gk = k0 + l.a_k + a_k_offset(it);
        OCCTUNE_UNROLL
        for (int j = 0; j < 4; ++j)
          if (gk + j < p.k) v[j] = src[j];
      }
      r.a[it] = make_float4(v[0], v[1], v[2], v[3]);
    }
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterB; ++it) {
      if (!active<kChunksB>(it)) continue;
      float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if constexpr (kTransB) {
        if (l.b_col + bt_n_offset(it) < p.n) {
          const float* src =
              l.b + std::size_t(bt_n_offset(it)) * std::size_t(p.ldb) + k0 + bt_k_offset(it);
          if (fast) {
            r.b[it] = load4(src);
            continue;
          }
          const int gk = k0 + l.b_k + bt_k_offset(it);
          OCCTUNE_UNROLL
          for (int j = 0; j < 4; ++j)
            if (gk + j < p.k) v[j] = src[j];
        }
      } else {
        const int k = k0 + b_k_offset(it);  // relative to l.b's row
        if (fast) {
          r.b[it] = load4(l.b + std::ptrdiff_t(k) * p.ldb + b_col_offset(it));
          continue;
        }
        const int gn = l.b_col + b_col_offset(it);
        if (l.b_k + k < p.k) {
          const float* src = l.b + std::ptrdiff_t(k) * p.ldb + b_col_offset(it);
          OCCTUNE_UNROLL
          for (int j = 0; j < 4; ++j)
            if (gn + j < p.n) v[j] = src[j];
        }
      }
      r.b[it] = make_float4(v[0], v[1], v[2], v[3]);
    }
  }

  // Writes A^T-stored chunks straight and k-chunks of one row transposed (as in nn for A).
  __device__ static void store_staged_transposed(const Loader& l, const Staged& r, float* stage) {
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterA; ++it) {
      if (!active<kChunksA>(it)) continue;
      if constexpr (kTransA) {
        store4(stage + l.a_smem + at_k_offset(it) * kLdA + at_m_offset(it), r.a[it]);
      } else {
        float* dst = stage + l.a_smem + a_k_offset(it) * kLdA + a_row_offset(it);
        dst[0] = r.a[it].x;
        dst[kLdA] = r.a[it].y;
        dst[2 * kLdA] = r.a[it].z;
        dst[3 * kLdA] = r.a[it].w;
      }
    }
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterB; ++it) {
      if (!active<kChunksB>(it)) continue;
      if constexpr (kTransB) {
        float* dst = stage + l.b_smem + bt_k_offset(it) * kLdB + bt_n_offset(it);
        dst[0] = r.b[it].x;
        dst[kLdB] = r.b[it].y;
        dst[2 * kLdB] = r.b[it].z;
        dst[3 * kLdB] = r.b[it].w;
      } else {
        store4(stage + l.b_smem + b_k_offset(it) * kLdB + b_col_offset(it), r.b[it]);
      }
    }
  }

  __device__ static void store_staged(const Loader& l, const Staged& r, float* stage) {
    if constexpr (kTransA || kTransB)
      store_staged_transposed(l, r, stage);
    else
      store_staged_nn(l, r, stage);
  }

  __device__ static void store_staged_nn(const Loader& l, const Staged& r, float* stage) {
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterA; ++it) {
      if (!active<kChunksA>(it)) continue;
      float* dst = stage + l.a_smem + a_k_offset(it) * kLdA + a_row_offset(it);
      dst[0] = r.a[it].x;
      dst[kLdA] = r.a[it].y;
      dst[2 * kLdA] = r.a[it].z;
      dst[3 * kLdA] = r.a[it].w;
    }
    OCCTUNE_UNROLL
    for (int it = 0; it < kIterB; ++it) {
      if (!active<kChunksB>(it)) continue;
      store4(stage + l.b_smem + b_k_offset(it) * kLdB + b_col_offset(it), r.b[it]);
    }
  }
};

}  // namespace occtune::kernels::tile
