// Family "skinny" (issue #18): GEMMs with a small M or N (a GEMV in disguise up to M or N = 16),
// which are bound by reading the large operand once from HBM. A block owns S rows (or columns)
// of the output and a stretch of the large dimension; its eight warps split each 128-deep K tile
// among them and stream the large operand with float4 loads, the small operand's tile staged in
// dynamic shared memory; K is also split across SPLITS blocks (grid z) into a workspace, and the
// last block of a tile to finish (a ticket per tile) sums the slices in split order, or (sm_90,
// SkinnyCluster) the split blocks form a cluster and add their sums through distributed shared
// memory. Every reduction has a fixed order: results are deterministic. Correct for any M, N, K,
// leading dimension and alignment (a small dimension above S takes several blocks, each reading
// the large operand again).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gemm_entry.cuh"

#ifdef __CUDACC__
#include <cooperative_groups.h>
#endif

// Loop unrolling and the emulator's alignment hook (tests/support/kernel_emulator.hpp runs
// this family on the host too); the same definitions as kernels/tile_core.cuh.
#ifdef __CUDACC__
#define OCCTUNE_SKINNY_UNROLL _Pragma("unroll")
#else
#define OCCTUNE_SKINNY_UNROLL
#endif
#ifndef OCCTUNE_EMU_CHECK_ALIGNED
#define OCCTUNE_EMU_CHECK_ALIGNED(ptr, bytes) ((void)0)
#endif

namespace occtune::kernels {

// The large operand is read once: its lines are marked evict-first in L2 (sm_80+; streaming
// loads before), so they replace each other rather than whatever else L2 holds. On the H100 a
// 1x4096x4096 product went from 36.8 to 31.9 us with it (docs/PERFORMANCE.md, "skinny").
__device__ __forceinline__ float4 skinny_load4(const float* p) {
  OCCTUNE_EMU_CHECK_ALIGNED(p, 16);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float4 v;
  asm volatile(
      "{\n .reg .b64 policy;\n"
      " createpolicy.fractional.L2::evict_first.b64 policy, 1.0;\n"
      " ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], policy;\n}"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p));
  return v;
#elif defined(__CUDA_ARCH__)
  return __ldcs(reinterpret_cast<const float4*>(p));
#else
  return make_float4(p[0], p[1], p[2], p[3]);
#endif
}

// The split reduction's hand-over: a block's slice is visible device-wide before its ticket is
// taken, and the last block's reads of the other slices bypass L1. On the host emulator blocks
// run one after another, so plain operations are the same thing.
__device__ __forceinline__ void skinny_fence() {
#ifdef __CUDA_ARCH__
  __threadfence();
#endif
}
__device__ __forceinline__ unsigned skinny_take_ticket(unsigned* ticket) {
#ifdef __CUDA_ARCH__
  return atomicAdd(ticket, 1u);
#else
  return (*ticket)++;
#endif
}
__device__ __forceinline__ float skinny_load_slice(const float* p) {
#ifdef __CUDA_ARCH__
  return __ldcg(p);
#else
  return *p;
#endif
}
// Every block of a split calls this once its slice is written: whether it took the last of the
// `splits` tickets of its tile (blockIdx.y * gridDim.x + blockIdx.x), so that it adds the
// slices; `flag` is a word of shared memory the block may overwrite. The register kernels' split
// (finish_split, below) and the rings' (kernels/skinny_pipe.cuh) hand over through it.
__device__ __forceinline__ bool skinny_last_of_tile(unsigned* tickets, int splits,
                                                    unsigned* flag) {
  skinny_fence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::size_t tile = std::size_t(blockIdx.y) * gridDim.x + blockIdx.x;
    *flag = skinny_take_ticket(tickets + tile) == unsigned(splits - 1) ? 1u : 0u;
  }
  __syncthreads();
  if (*flag == 0) return false;
  skinny_fence();
  return true;
}

// Lane `src`'s value of v, across the whole warp (every lane takes part). The host emulator
// (tests/support/kernel_emulator.hpp) runs it as a block-wide exchange, so a kernel shuffles
// the same number of times in every warp of a block.
__device__ __forceinline__ float skinny_shuffle(float v, int src) {
#ifdef __CUDA_ARCH__
  return __shfl_sync(0xffffffffu, v, src);
#elif defined(OCCTUNE_EMU_SHUFFLE)
  return OCCTUNE_EMU_SHUFFLE(v, src);
#else
  (void)src;  // nvcc's host pass: never called
  return v;
#endif
}

inline constexpr int kSkinnyThreads = 256;
inline constexpr int kSkinnyWarps = kSkinnyThreads / 32;
inline constexpr int kSkinnyKTile = 128;  // K per shared-memory tile of the small operand
inline constexpr int kSkinnyRowsPerWarp = 4;
inline constexpr int kSkinnyLoadsInFlight = 8;  // rows of the large operand a lane loads at once

// The K split in a thread block cluster (sm_90; SkinnyCluster and SkinnyPipeCluster): every
// block holds its sums of the tile's OUTPUTS outputs as part[e]; block r adds its share of them
// over ranks 0..SPLITS-1 in that order (deterministic) and hands each sum it keeps (keep(e)) to
// emit(e, sum). The first cluster barrier makes every block's sums visible, the second keeps
// each block's shared memory alive until the others have read it; the warp barrier before it
// gathers the lanes that left the loop early (the cluster barrier is warp-aligned: synccheck
// reported divergent threads without it).
template <int SPLITS, int OUTPUTS, class Keep, class Emit>
__device__ __forceinline__ void cluster_sum_in_rank_order(float* part, Keep keep, Emit emit) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  constexpr int kShare = (OUTPUTS + SPLITS - 1) / SPLITS;
  const int first = int(cluster.block_rank()) * kShare;
  const int last = first + kShare < OUTPUTS ? first + kShare : OUTPUTS;
  for (int e = first + int(threadIdx.x); e < last; e += kSkinnyThreads) {
    if (!keep(e)) continue;
    float sum = 0.0f;
    for (int r = 0; r < SPLITS; ++r) sum += cluster.map_shared_rank(part, r)[e];
    emit(e, sum);
  }
  __syncwarp();
  cluster.sync();
#elif defined(__CUDA_ARCH__)
  __trap();  // registered for sm_90 only (its launch asks for a cluster)
#else
  (void)part, (void)keep, (void)emit;  // nvcc's host pass: never called
#endif
}

// SIDE 0: M is the small dimension (B is the large operand, C's rows are S-row groups);
// SIDE 1: N is small (A is large). S: rows (columns) of the small dimension per block.
// LANES (along x only): lanes that share one row of the large operand, four outputs each, so
// a block's column tile is 4 * LANES wide. 32 gives 128 columns; 4 and 8 give 16 and 32, which
// at N = 2048-4096 are enough tiles to fill every SM without a K split, so that such a launch
// is one kernel with no workspace (no tickets to zero, no slices to add), as cuBLAS's gemv is.
// CLUSTER (sm_90): the SPLITS blocks of a tile form a thread block cluster and add their sums
// through distributed shared memory, in rank order, instead of through a workspace: no
// tickets to zero before the launch, no slices in HBM.
// REALIGN (along x, 32 lanes, S = 1): rows of the large operand that are not 16-byte aligned
// are read as aligned float4 windows and realigned by warp shuffles instead of element loads
// (kRealign below); the same kernel otherwise.
template <Layout L, int S, int SIDE, int SPLITS, int LANES = 32, bool CLUSTER = false,
          bool REALIGN = false>
struct SkinnyIn {
  template <Layout L2>
  using In = SkinnyIn<L2, S, SIDE, SPLITS, LANES, CLUSTER, REALIGN>;
  static_assert(S >= 1 && S <= 16 && (SIDE == 0 || SIDE == 1) && SPLITS >= 1 && SPLITS <= 64,
                "skinny: 1 <= S <= 16, SIDE 0 or 1, 1 <= SPLITS <= 64");
  static constexpr Layout kLayout = L;
  static constexpr int kMaxThreads = kSkinnyThreads;
  // The template's arguments, for the registration (kernels/skinny.cu) to read from any layout.
  static constexpr int kS = S, kSide = SIDE, kSplits = SPLITS, kLanes = LANES;
  static constexpr bool kCluster = CLUSTER, kRealign = REALIGN;
  static constexpr int kPipeRows = 0, kPipeStages = 0;  // not a ring (skinny_pipe.cuh)
  static constexpr bool kPipeWindow = false, kPipeVecA = false;
  static constexpr int kRowGroups = 1;  // rows of C not split between warps (skinny_pipe.cuh)
  static constexpr bool kDenseTwin = false;   // no dense-B kernel (skinny_pipe.cuh)
  static constexpr bool kWindowTwin = false;  // nor an A-window one
  // Whether the large operand is stored contiguously along the output's large dimension
  // (B in nn/tn for SIDE 0, A^T in tn/tt for SIDE 1): then lanes own four outputs each and
  // loop over k; otherwise it is contiguous along k, lanes own k and warps own outputs.
  static constexpr bool kAlongX = SIDE == 0 ? !transposes_b(L) : transposes_a(L);
  static_assert((LANES == 32 || LANES == 8 || LANES == 4) && (LANES == 32 || kAlongX),
                "skinny: LANES is 32, or 4 or 8 where the large operand is contiguous along x");
  // At most the portable cluster size, 8: a cluster of 16 (a non-portable size) drew
  // compute-sanitizer synccheck errors and a launch failure under it at 257x129x515 (calls D
  // and E of docs/results/2026-11-29-h200-wave10/), not explained, so it is not registered.
  static_assert(!CLUSTER || (kAlongX && LANES == 32 && SPLITS >= 2 && SPLITS <= 8),
                "skinny: a cluster variant is along x with 32 lanes and 2-8 splits");
  // Blocks whose sums go to a workspace and a last block per tile.
  static constexpr bool kWorkspaceSplit = SPLITS > 1 && !CLUSTER;
  // Rows of the large operand one warp loads at once along x (32 / LANES), and the depth of a
  // staged K tile: along x, every warp-group takes as many rows of a tile as with 32 lanes.
  static constexpr int kGroups = 32 / LANES;
  static constexpr int kKTile = kAlongX ? kSkinnyKTile * kGroups : kSkinnyKTile;
  // Rows of the large operand a lane loads at once along x: S = 8 (M = 5..8) takes a whole
  // 128-deep tile per warp in one batch (16 rows), since its 96 registers allow only two blocks
  // per SM and 8 rows left it reading HBM at 66-74% of a 1 GiB read on the H200
  // (docs/PERFORMANCE.md, "skinny"). S = 16 is at 128 registers already, and S = 1 and 4 would
  // drop to two blocks from four and three.
  // The narrow tiles (LANES < 32) of S = 1 also take 16: at N = 4096 they run one or two
  // blocks per SM, so a block's own loads must cover the HBM round trip.
  static constexpr int kLoadsAlongX =
      S == 8 || LANES < 32 ? 2 * kSkinnyLoadsInFlight : kSkinnyLoadsInFlight;
  // That kernel is held to two blocks per SM (128 registers): unbounded, ptxas gave the 8-split
  // variant 136 and one block. A realigning variant is held to the four blocks per SM (64
  // registers) that S = 1 runs at: unbounded, ptxas gave its kernels up to 128. 0 elsewhere:
  // no bound but the thread count.
  static constexpr int kMinBlocksPerSm = kAlongX && S == 8 ? 2 : REALIGN ? 4 : 0;
  // Rows that are not 16-byte aligned at x0 (a leading dimension or base that is not a
  // multiple of 4 floats): rather than four element loads per lane and row, a warp loads each of
  // its rows as the aligned float4s that cover the tile's columns (33: the row starts o floats
  // past a 16-byte boundary), and each lane gathers its four columns from the two float4s that
  // hold them with four shuffles (accumulate_realigned). Four rows a batch (five float4s of
  // registers; eight needed 77 registers), so half the bytes in flight of the element loads:
  // faster where many blocks are resident, slower where few are, hence variants of their own
  // that the tuner measures beside the element loads (docs/PERFORMANCE.md, "skinny").
  static_assert(!REALIGN || (kAlongX && LANES == 32 && S == 1),
                "skinny: a realigning variant is along x with 32 lanes and S = 1");
  static constexpr int kRealignRows = 4;
  static constexpr int kLargeTile = kAlongX ? LANES * 4 : kSkinnyWarps * kSkinnyRowsPerWarp;
  static constexpr int kTileM = SIDE == 0 ? S : kLargeTile;
  static constexpr int kTileN = SIDE == 0 ? kLargeTile : S;
  // The small operand's K tile, reused by the final reductions: the along-x kernel's needs
  // S x 128 floats (at most the tile), the along-k kernel's one warp's partials with padded rows
  // (R x S x 33). The split reduction's flag (whether this block sums the slices) sits past it.
  static constexpr std::size_t kSmemBytes =
      std::size_t(S) * (kAlongX ? kKTile : kSkinnyRowsPerWarp * 33) * sizeof(float) + 16;

  // Blocks of the grid (every one a tile), and the workspace of a split variant: SPLITS dense
  // M x N slices, then one ticket per tile, which the launch zeroes (kernels/skinny.cu).
  static constexpr long long tiles(long long m, long long n) {
    return (SIDE == 0 ? (m + S - 1) / S * ((n + kLargeTile - 1) / kLargeTile)
                      : (n + S - 1) / S * ((m + kLargeTile - 1) / kLargeTile));
  }
  static constexpr std::size_t workspace_bytes(long long m, long long n) {
    return !kWorkspaceSplit
               ? 0
               : std::size_t(SPLITS) * std::size_t(m) * std::size_t(n) * sizeof(float) +
                     std::size_t(tiles(m, n)) * sizeof(unsigned);
  }
  __host__ __device__ static unsigned* tickets(const GemmArgs& p) {
    return reinterpret_cast<unsigned*>(p.workspace + std::size_t(SPLITS) * std::size_t(p.m) *
                                                         std::size_t(p.n));
  }
  __device__ static int small_size(const GemmArgs& p) { return SIDE == 0 ? p.m : p.n; }
  __device__ static int large_size(const GemmArgs& p) { return SIDE == 0 ? p.n : p.m; }
  __device__ static const float* large_base(const GemmArgs& p) { return SIDE == 0 ? p.b : p.a; }
  __device__ static int large_ld(const GemmArgs& p) { return SIDE == 0 ? p.ldb : p.lda; }

  // Element (s, k) of the small operand: op(A)[s][k] for SIDE 0, op(B)[k][s] for SIDE 1.
  __device__ static float small_at(const GemmArgs& p, int s, int k) {
    if constexpr (SIDE == 0)
      return transposes_a(L) ? load_readonly(p.a + std::size_t(k) * p.lda + s)
                             : load_readonly(p.a + std::size_t(s) * p.lda + k);
    else
      return transposes_b(L) ? load_readonly(p.b + std::size_t(s) * p.ldb + k)
                             : load_readonly(p.b + std::size_t(k) * p.ldb + s);
  }

  // Row-major index into C (and the dense workspace) of output (s, x).
  __device__ static std::size_t out_row(int s, int x) { return SIDE == 0 ? s : x; }
  __device__ static std::size_t out_col(int s, int x) { return SIDE == 0 ? x : s; }

  // Writes one finished output: straight into C, or into this split's workspace slice.
  __device__ static void emit(const GemmArgs& p, int s, int x, float v) {
    const std::size_t i = out_row(s, x), j = out_col(s, x);
    if constexpr (!kWorkspaceSplit) {
      float* c = p.c + i * std::size_t(p.ldc) + j;
      *c = scale_output(v, c, p.alpha, p.beta);
    } else {
      p.workspace[std::size_t(blockIdx.z) * std::size_t(p.m) * std::size_t(p.n) +
                  i * std::size_t(p.n) + j] = v;
    }
  }

  // The small operand's rows s0..s0+S-1 over k in [kt, kt + kKTile), zero outside the matrix
  // and past `ke`, as sm[s][kk] (along k: a lane reads four k of one row) or sm[kk][s] (along
  // x: a lane needs every row at one k, which S / 4 16-byte reads give).
  __device__ static void stage_small(const GemmArgs& p, float* sm, int s0, int small, int kt,
                                     int ke) {
    for (int e = int(threadIdx.x); e < S * kKTile; e += kSkinnyThreads) {
      const int s = kAlongX ? e % S : e / kKTile;
      const int kk = kAlongX ? e / S : e % kKTile;
      sm[e] = s0 + s < small && kt + kk < ke ? small_at(p, s0 + s, kt + kk) : 0.0f;
    }
  }

  // The small operand's S values at k offset kk of the staged tile (along x).
  __device__ static void small_column(const float* sm, int kk, float (&a)[S]) {
    if constexpr (S % 4 == 0) {
      OCCTUNE_SKINNY_UNROLL
      for (int s = 0; s < S; s += 4) {
        const float* at = sm + kk * S + s;
        OCCTUNE_EMU_CHECK_ALIGNED(at, 16);
        const float4 q = *reinterpret_cast<const float4*>(at);
        a[s] = q.x, a[s + 1] = q.y, a[s + 2] = q.z, a[s + 3] = q.w;
      }
    } else {
      OCCTUNE_SKINNY_UNROLL
      for (int s = 0; s < S; ++s) a[s] = sm[kk * S + s];  // one address per warp: a broadcast
    }
  }

  // acc[s][j] += A(s, kk) * v[j] for this lane's four columns v of the staged tile's row kk
  // (along x: the element-load and the realigned loops alike).
  __device__ __forceinline__ static void add_row(const float* sm, int kk, const float (&v)[4],
                                                 float (&acc)[S][4]) {
    float a[S];
    small_column(sm, kk, a);
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < S; ++s) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < 4; ++j) acc[s][j] = fmaf(a[s], v[j], acc[s][j]);
    }
  }

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    float* sm = reinterpret_cast<float*>(smem);
    const int small = small_size(p), large = large_size(p);
    const int s0 = int(SIDE == 0 ? blockIdx.y : blockIdx.x) * S;
    const int x0 = int(SIDE == 0 ? blockIdx.x : blockIdx.y) * kLargeTile;
    // Split z covers whole 128-deep tiles, so every tile starts 16-byte aligned.
    const int per_split = (p.k + SPLITS - 1) / SPLITS;
    const int chunk = (per_split + kSkinnyKTile - 1) / kSkinnyKTile * kSkinnyKTile;
    const int kb = int(blockIdx.z) * chunk;
    const int ke = kb + chunk < p.k ? kb + chunk : p.k;
    const float* l = large_base(p);
    const int ld = large_ld(p);
    const bool vec = (reinterpret_cast<std::uintptr_t>(l) & 15u) == 0 && ld % 4 == 0;
    if constexpr (kAlongX)
      run_along_x(p, sm, small, large, s0, x0, kb, ke, l, ld, vec);
    else
      run_along_k(p, sm, small, large, s0, x0, kb, ke, l, ld, vec);
    if constexpr (kWorkspaceSplit) finish_split(p, smem, small, large, s0, x0);
  }

  // The cluster's blocks (one per split, rank = blockIdx.z) hold their tile sums in shared
  // memory as sm[s * 128 + c]; cluster_sum_in_rank_order adds them and writes C.
  __device__ static void finish_cluster(const GemmArgs& p, float* sm, int small, int large,
                                        int s0, int x0) {
    cluster_sum_in_rank_order<SPLITS, S * kLargeTile>(
        sm,
        [&](int e) { return s0 + e / kLargeTile < small && x0 + e % kLargeTile < large; },
        [&](int e, float sum) { emit(p, s0 + e / kLargeTile, x0 + e % kLargeTile, sum); });
  }

  // Every block has written its slice of the tile; the one that takes the last ticket adds the
  // SPLITS slices in split order (whichever finished last) and applies the epilogue. The
  // workspace is poisoned between candidates, so the launch zeroes the tickets every time.
  __device__ static void finish_split(const GemmArgs& p, unsigned char* smem, int small,
                                      int large, int s0, int x0) {
    unsigned* flag = reinterpret_cast<unsigned*>(smem + kSmemBytes - 16);
    if (!skinny_last_of_tile(tickets(p), SPLITS, flag)) return;
    const std::size_t mn = std::size_t(p.m) * std::size_t(p.n);
    for (int e = int(threadIdx.x); e < S * kLargeTile; e += kSkinnyThreads) {
      const int s = s0 + e / kLargeTile, x = x0 + e % kLargeTile;
      if (s >= small || x >= large) continue;
      const std::size_t i = out_row(s, x), j = out_col(s, x);
      float sum = 0.0f;
      for (int z = 0; z < SPLITS; ++z)
        sum += skinny_load_slice(p.workspace + std::size_t(z) * mn + i * std::size_t(p.n) + j);
      float* c = p.c + i * std::size_t(p.ldc) + j;
      *c = scale_output(sum, c, p.alpha, p.beta);
    }
  }

  // Lane t of a group of LANES owns outputs x0 + 4t .. 4t + 3; group g of warp w takes rows
  // k = r, r + P, ... of each tile (r = w * kGroups + g, P = 8 * kGroups rows per pass), so a
  // warp's load is kGroups row segments of 16 * LANES bytes, kLoadsAlongX of them issued
  // before any is used (a memory-bound loop needs bytes in flight, not FMAs). The warps' sums
  // meet in shared memory in warp order, then each output adds its groups' sums in group order.
  __device__ static void run_along_x(const GemmArgs& p, float* sm, int small, int large, int s0,
                                     int x0, int kb, int ke, const float* l, int ld, bool vec) {
    constexpr int U = kLoadsAlongX;
    constexpr int P = kSkinnyWarps * kGroups;
    constexpr bool kEarlyBatch = S <= 8;
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int first_row = warp * kGroups + lane / LANES;
    const int x = x0 + 4 * (lane % LANES);
    const bool whole = vec && x + 3 < large;
    float acc[S][4];
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < S; ++s) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < 4; ++j) acc[s][j] = 0.0f;
    }
    // A realigning variant's misaligned rows take accumulate_realigned and skip the loop below.
    int k_end = ke;
    if constexpr (kRealign) {
      if (!vec) {
        accumulate_realigned(p, sm, small, large, s0, x0, kb, ke, l, ld, acc);
        k_end = kb;
      }
    }
    // Rows k0, k0 + P, ... (U of them) of tile kt into v: zero past kn.
    auto load_batch = [&](float (&v)[U][4], int kt, int k0, int kn) {
      OCCTUNE_SKINNY_UNROLL
      for (int u = 0; u < U; ++u) {
        const int kk = k0 + P * u;
        const float* row = l + std::size_t(kt + (kk < kn ? kk : 0)) * std::size_t(ld) + x;
        if (kk >= kn) {
          v[u][0] = v[u][1] = v[u][2] = v[u][3] = 0.0f;
        } else if (whole) {
          const float4 q = skinny_load4(row);
          v[u][0] = q.x, v[u][1] = q.y, v[u][2] = q.z, v[u][3] = q.w;
        } else {
          OCCTUNE_SKINNY_UNROLL
          for (int j = 0; j < 4; ++j) v[u][j] = x + j < large ? load_readonly(row + j) : 0.0f;
        }
      }
    };
    for (int kt = kb; kt < k_end; kt += kKTile) {
      const int kn = ke - kt < kKTile ? ke - kt : kKTile;
      // The tile's first batch of the large operand is issued before the barriers and the
      // staging of the small operand, so that staging overlaps the HBM round trip instead of
      // preceding it (the loads land in registers; nothing reads them before the barriers).
      // Not for S = 16: its 64 accumulators leave no registers to hold a batch across the
      // staging (ptxas spilled, and the H200 read 2.23 -> 2.01 TB/s at 16x8192x8192).
      float v[U][4];
      if constexpr (kEarlyBatch) {
        if (x < large) load_batch(v, kt, first_row, kn);
      }
      __syncthreads();  // the previous tile's reads are done
      stage_small(p, sm, s0, small, kt, ke);
      __syncthreads();
      if (x >= large) continue;
      for (int k0 = first_row; k0 < kn; k0 += P * U) {
        if (!kEarlyBatch || k0 != first_row) load_batch(v, kt, k0, kn);
        OCCTUNE_SKINNY_UNROLL
        for (int u = 0; u < U; ++u) {
          const int kk = k0 + P * u;
          if (kk >= kn) break;
          add_row(sm, kk, v[u], acc);
        }
      }
    }
    __syncthreads();
    float4* red = reinterpret_cast<float4*>(sm);  // [S][32] float4: conflict-free
    for (int w = 0; w < kSkinnyWarps; ++w) {
      if (warp == w) {
        OCCTUNE_SKINNY_UNROLL
        for (int s = 0; s < S; ++s) {
          float4 t = w == 0 ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : red[s * 32 + lane];
          t.x += acc[s][0], t.y += acc[s][1], t.z += acc[s][2], t.w += acc[s][3];
          red[s * 32 + lane] = t;
        }
      }
      __syncthreads();
    }
    if constexpr (CLUSTER) {
      finish_cluster(p, sm, small, large, s0, x0);  // 32 lanes: red is sm[s * 128 + c]
      return;
    }
    // Output column c of row s is component c % 4 of red[s][g * LANES + c / 4] for each group.
    const float* sums = sm;
    for (int e = int(threadIdx.x); e < S * kLargeTile; e += kSkinnyThreads) {
      const int s = e / kLargeTile, c = e % kLargeTile, xx = x0 + c;
      if (s0 + s >= small || xx >= large) continue;
      const float* at = sums + (s * 32 + c / 4) * 4 + c % 4;
      float sum = at[0];
      OCCTUNE_SKINNY_UNROLL
      for (int g = 1; g < kGroups; ++g) sum += at[g * LANES * 4];
      emit(p, s0 + s, xx, sum);
    }
  }

  // The realigned main loop (kRealign). A warp's batch is rows k0 + 8u of a tile (u < U); 8
  // rows apart, their starts are the same o floats past a 16-byte boundary at x0, so every row
  // of the batch has the same window: 33 float4s from column x0 - o (32 when o = 0). Lane t
  // holds window float4 (t - u) % 32 of row u in register u, and lanes u < U float4 32 of row u
  // in register U, so that each row is one coalesced 512-byte load plus a 16-byte piece.
  // Lane t's column x0 + 4t + j is element (j + o) % 4 of window float4 t + (j + o) / 4, which
  // lane (t + u + (j + o) / 4) % 32 holds (register U of lane u for float4 32): four shuffles
  // a row, the source register and element known at compile time for each o (gather_rows).
  // Every warp runs the same batches and shuffles (rows past the tile are zeros and skip
  // their FMAs), as the host emulator needs.
  __device__ static void accumulate_realigned(const GemmArgs& p, float* sm, int small,
                                              int large, int s0, int x0, int kb, int ke,
                                              const float* l, int ld, float (&acc)[S][4]) {
    constexpr int U = kRealignRows, P = kSkinnyWarps;
    static_assert(kGroups == 1 && P % 4 == 0 && U <= 32,
                  "one row per warp-pass, rows 8 apart share their 16-byte offset");
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    // Row r's floats past its 16-byte boundary at column x0 (x0 is a multiple of 4): only the
    // address modulo 4 floats matters, so 32-bit arithmetic does.
    const unsigned first = unsigned(reinterpret_cast<std::uintptr_t>(l) / sizeof(float)) & 3u;
    const unsigned step = unsigned(ld) & 3u;
    auto offset = [&](int r) { return int((first + unsigned(r) * step) & 3u); };
    float w[U + 1][4];
    // Window float4 i of tile kt's row kk into q: zero past the tile or the matrix.
    auto load = [&](float (&q)[4], int kt, int kk, int kn, int o, int i) {
      q[0] = q[1] = q[2] = q[3] = 0.0f;
      if (kk >= kn) return;
      const int c = x0 - o + 4 * i;  // the float4's first column
      const float* row = l + std::size_t(kt + kk) * std::size_t(ld);
      if (c >= 0 && c + 3 < large) {
        const float4 v = skinny_load4(row + c);
        q[0] = v.x, q[1] = v.y, q[2] = v.z, q[3] = v.w;
      } else {
        OCCTUNE_SKINNY_UNROLL
        for (int j = 0; j < 4; ++j)
          if (c + j >= 0 && c + j < large) q[j] = load_readonly(row + c + j);
      }
    };
    auto load_batch = [&](int kt, int k0, int kn, int o) {
      OCCTUNE_SKINNY_UNROLL
      for (int u = 0; u < U; ++u) load(w[u], kt, k0 + P * u, kn, o, (lane - u) & 31);
      load(w[U], kt, lane < U && o != 0 ? k0 + P * lane : kn, kn, o, 32);
    };
    for (int kt = kb; kt < ke; kt += kKTile) {
      const int kn = ke - kt < kKTile ? ke - kt : kKTile;
      load_batch(kt, warp, kn, offset(kt + warp));  // before the staging, as in the aligned loop
      __syncthreads();                     // the previous tile's reads are done
      stage_small(p, sm, s0, small, kt, ke);
      __syncthreads();
      for (int base = 0; base < kn; base += P * U) {
        const int k0 = base + warp;
        const int o = offset(kt + k0);  // the same in the whole warp
        if (base != 0) load_batch(kt, k0, kn, o);
        switch (o) {
          case 0: gather_rows<0>(w, sm, lane, k0, kn, acc); break;
          case 1: gather_rows<1>(w, sm, lane, k0, kn, acc); break;
          case 2: gather_rows<2>(w, sm, lane, k0, kn, acc); break;
          default: gather_rows<3>(w, sm, lane, k0, kn, acc); break;
        }
      }
    }
  }

  // The FMAs of a realigned batch whose rows start O floats past a 16-byte boundary at x0:
  // each row's four columns of this lane gathered by four shuffles (accumulate_realigned).
  template <int O>
  __device__ __forceinline__ static void gather_rows(const float (&w)[kRealignRows + 1][4],
                                                     const float* sm, int lane, int k0, int kn,
                                                     float (&acc)[S][4]) {
    constexpr int U = kRealignRows, P = kSkinnyWarps;
    OCCTUNE_SKINNY_UNROLL
    for (int u = 0; u < U; ++u) {
      float v[4];
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < 4; ++j) {
        const int q = (j + O) / 4, e = (j + O) % 4;
        // As a source, lane u gives float4 32 (register U) to lane 31 in place of its own.
        const float mine = q == 1 && lane == u ? w[U][e] : w[u][e];
        v[j] = skinny_shuffle(mine, (lane + u + q) & 31);
      }
      const int kk = k0 + P * u;
      if (kk >= kn) continue;
      add_row(sm, kk, v, acc);
    }
  }

  // Warp w owns outputs x0 + 4w .. 4w + 3; lane t takes k = 4t .. 4t + 3 of each tile (a
  // warp's load of one row is 512 contiguous bytes); each output's 32 lane sums are added in
  // lane order through shared memory.
  __device__ static void run_along_k(const GemmArgs& p, float* sm, int small, int large, int s0,
                                     int x0, int kb, int ke, const float* l, int ld, bool vec) {
    constexpr int R = kSkinnyRowsPerWarp;
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int kk = 4 * lane;
    float acc[R][S];
    OCCTUNE_SKINNY_UNROLL
    for (int r = 0; r < R; ++r) {
      OCCTUNE_SKINNY_UNROLL
      for (int s = 0; s < S; ++s) acc[r][s] = 0.0f;
    }
    for (int kt = kb; kt < ke; kt += kSkinnyKTile) {
      __syncthreads();
      stage_small(p, sm, s0, small, kt, ke);
      __syncthreads();
      const int kn = ke - kt < kSkinnyKTile ? ke - kt : kSkinnyKTile;
      if (kk >= kn) continue;
      const bool whole = vec && kk + 3 < kn;
      float v[R][4];
      OCCTUNE_SKINNY_UNROLL
      for (int r = 0; r < R; ++r) {
        const int x = x0 + warp * R + r;
        const float* row = l + std::size_t(x < large ? x : 0) * std::size_t(ld) + kt + kk;
        if (x >= large) {
          v[r][0] = v[r][1] = v[r][2] = v[r][3] = 0.0f;
        } else if (whole) {
          const float4 q = skinny_load4(row);
          v[r][0] = q.x, v[r][1] = q.y, v[r][2] = q.z, v[r][3] = q.w;
        } else {
          OCCTUNE_SKINNY_UNROLL
          for (int j = 0; j < 4; ++j) v[r][j] = kk + j < kn ? load_readonly(row + j) : 0.0f;
        }
      }
      OCCTUNE_SKINNY_UNROLL
      for (int s = 0; s < S; ++s) {
        const float* at = sm + s * kSkinnyKTile + kk;
        OCCTUNE_EMU_CHECK_ALIGNED(at, 16);
        const float4 a = *reinterpret_cast<const float4*>(at);
        OCCTUNE_SKINNY_UNROLL
        for (int r = 0; r < R; ++r) {
          acc[r][s] = fmaf(a.x, v[r][0], acc[r][s]);
          acc[r][s] = fmaf(a.y, v[r][1], acc[r][s]);
          acc[r][s] = fmaf(a.z, v[r][2], acc[r][s]);
          acc[r][s] = fmaf(a.w, v[r][3], acc[r][s]);
        }
      }
    }
    // One warp at a time puts its lanes' partial sums in shared memory (row stride 33: the
    // summing threads' reads are conflict-free), then R * S threads each add one output's 32
    // partials in lane order.
    float* part = sm;
    for (int w = 0; w < kSkinnyWarps; ++w) {
      __syncthreads();
      if (warp == w) {
        OCCTUNE_SKINNY_UNROLL
        for (int r = 0; r < R; ++r) {
          OCCTUNE_SKINNY_UNROLL
          for (int s = 0; s < S; ++s) part[(r * S + s) * 33 + lane] = acc[r][s];
        }
      }
      __syncthreads();
      const int t = int(threadIdx.x);
      if (t < R * S) {
        float sum = 0.0f;
        for (int from = 0; from < 32; ++from) sum += part[t * 33 + from];
        const int x = x0 + w * R + t / S, s = t % S;
        if (x < large && s0 + s < small) emit(p, s0 + s, x, sum);
      }
    }
  }
};

// The nn variants under their own names (gemm_entry.cuh: NT<>, TN<>, TT<> name the others):
// Skinny with the 128-column tile, SkinnyNarrow with a 4 * LANES-column one and no K split.
// Two names rather than a defaulted LANES, since the kernel manifest knows a kernel by its
// demangled name, which spells defaulted arguments out.
template <int S, int SIDE, int SPLITS>
struct Skinny : SkinnyIn<Layout::kNN, S, SIDE, SPLITS> {};
template <int S, int SIDE, int LANES>
struct SkinnyNarrow : SkinnyIn<Layout::kNN, S, SIDE, 1, LANES> {};
// The 128-column tile with its SPLITS blocks in a cluster (sm_90; kernels/skinny.cu launches it
// with the cluster dimension and registers it only for compute capability 9.0 and later).
template <int S, int SIDE, int SPLITS>
struct SkinnyCluster : SkinnyIn<Layout::kNN, S, SIDE, SPLITS, 32, true> {};

// Skinny and SkinnyCluster with REALIGN: misaligned rows through realigned float4 windows.
template <int S, int SIDE, int SPLITS>
struct SkinnyRealign : SkinnyIn<Layout::kNN, S, SIDE, SPLITS, 32, false, true> {};
template <int S, int SIDE, int SPLITS>
struct SkinnyClusterRealign : SkinnyIn<Layout::kNN, S, SIDE, SPLITS, 32, true, true> {};

}  // namespace occtune::kernels

#include "kernels/skinny_pipe.cuh"
#include "kernels/skinny_rowdot.cuh"

namespace occtune::kernels {

// The registered instantiations (kernels/skinny.cu): Skinny<S, SIDE, SPLITS>,
// SkinnyNarrow<S, SIDE, LANES>, SkinnyCluster<S, SIDE, SPLITS>, their realigning counterparts
// and the cp.async ring SkinnyPipe<S, COLS, ROWS, STAGES> (kernels/skinny_pipe.cuh) with its
// windowed twin SkinnyPipeWindow for rows of any alignment. nn has every S for both sides with
// 1, 8, 16 and 32 splits, the narrow S = 1 tiles (16 and 32 columns), S = 1 with 8 splits in a
// cluster, S = 1's split tiles and cluster realigning, the ring for S = 1 (16-, 32-, 64- and
// 128-column tiles), 4 (32 columns), 8 and 16 (32 and 64), the windowed ring for S = 1 (32-,
// 64- and 128-column windows), 4 (32), 8 (32 and 64) and 16 (32), and (sm_90) either ring with
// K split over a cluster of 4 or 8 blocks for narrow N (of 2 for S = 16 on 32 and 64 columns:
// 9-16 rows of C over too few column tiles to give every SM two blocks, wave 17's lab call J),
// and the ring for N <= 16 with a large A (16 rows by 16 or 8 columns, 8 by 4; in row groups:
// OCCTUNE_SKINNY_ROW_GROUP_VARIANTS); nt, tn and tt a subset (1, 8, 16 rows; 8 splits).
#define OCCTUNE_SKINNY_VARIANTS(X)   \
  X(Skinny<1, 0, 1>)                 \
  X(Skinny<1, 0, 8>)                 \
  X(Skinny<1, 0, 16>)                \
  X(Skinny<1, 0, 32>)                \
  X(SkinnyRealign<1, 0, 8>)          \
  X(SkinnyRealign<1, 0, 16>)         \
  X(SkinnyRealign<1, 0, 32>)         \
  X(SkinnyNarrow<1, 0, 4>)           \
  X(SkinnyNarrow<1, 0, 8>)           \
  X(SkinnyPipe<1, 16, 512, 4>)       \
  X(SkinnyPipe<1, 32, 256, 4>)       \
  X(SkinnyPipe<1, 32, 128, 4>)       \
  X(SkinnyPipe<1, 128, 64, 3>)       \
  X(SkinnyPipe<4, 32, 128, 4>)       \
  X(SkinnyPipe<8, 32, 128, 4>)       \
  X(SkinnyPipe<8, 64, 64, 4>)        \
  X(SkinnyPipe<1, 64, 128, 4>)       \
  X(SkinnyPipe<16, 32, 128, 4>)      \
  X(SkinnyPipe<16, 64, 64, 4>)       \
  X(SkinnyPipeSmallN<16, 16, 256, 3>) \
  X(SkinnyPipeSmallN<16, 8, 512, 2>) \
  X(SkinnyPipeSmallN<8, 4, 1024, 2>) \
  X(SkinnyPipeWindow<1, 32, 256, 4>) \
  X(SkinnyPipeWindow<1, 32, 128, 4>) \
  X(SkinnyPipeWindow<1, 64, 128, 4>) \
  X(SkinnyPipeWindow<1, 128, 64, 3>) \
  X(SkinnyPipeWindow<4, 32, 128, 4>) \
  X(SkinnyPipeWindow<8, 32, 128, 4>) \
  X(SkinnyPipeWindow<8, 64, 64, 4>)  \
  X(SkinnyPipeWindow<16, 32, 128, 4>) \
  X(Skinny<4, 0, 1>)                 \
  X(Skinny<4, 0, 8>)                 \
  X(Skinny<4, 0, 16>)                \
  X(Skinny<4, 0, 32>)                \
  X(Skinny<8, 0, 1>)                 \
  X(Skinny<8, 0, 8>)                 \
  X(Skinny<8, 0, 16>)                \
  X(Skinny<8, 0, 32>)                \
  X(Skinny<16, 0, 1>)                \
  X(Skinny<16, 0, 8>)                \
  X(Skinny<16, 0, 16>)               \
  X(Skinny<16, 0, 32>)               \
  X(Skinny<1, 1, 1>)                 \
  X(Skinny<1, 1, 8>)                 \
  X(Skinny<1, 1, 16>)                \
  X(Skinny<1, 1, 32>)                \
  X(Skinny<4, 1, 1>)                 \
  X(Skinny<4, 1, 8>)                 \
  X(Skinny<4, 1, 16>)                \
  X(Skinny<4, 1, 32>)                \
  X(Skinny<8, 1, 1>)                 \
  X(Skinny<8, 1, 8>)                 \
  X(Skinny<8, 1, 16>)                \
  X(Skinny<8, 1, 32>)                \
  X(Skinny<16, 1, 1>)                \
  X(Skinny<16, 1, 8>)                \
  X(Skinny<16, 1, 16>)               \
  X(Skinny<16, 1, 32>)
// Registered for sm_90 only, and not run by the host emulator (which runs a grid's blocks one
// after another, so no cluster barrier could complete there): the GPU tests and
// scripts/sanitize.sh cover them. The 64-column ring for M <= 16 split over 2 comes with four
// stages (wave 17) and five (wave 23, call J: with the lean copies, 16x8192x8192 68.6-69.6
// against 71.1 us, 16x16384x16384 253.7-254.4 against 260.8-261.3; docs/PERFORMANCE.md), and
// split over 3 and 4 (wave 25, call A: 16x10000x10000 119.4 against 121.7 us, 16x9000x14000
// 153.4 against 165.7; their column tiles make a fraction of a wave at 2). The windowed rings
// (B's rows of any alignment) for M <= 16 at 64 columns split over 2-4 (wave 26, call F, lab
// variants against the registered rings, twice: 16x9999x7777 125.7-126.2 us, 1.18x cuBLAS, where
// split-K had won at 0.97x in call E's bench; 12x8191x8191 113.4-113.5 against 130.5-130.6 for
// the best registered ring; 16x16383x16383 356.3-356.7, 16x4097x4097 34.5-34.6 over 3,
// 8x9999x7777 and 5x12001x12001 at 8 rows over 2: 103.9-104.0 and 172.7-172.9).
#define OCCTUNE_SKINNY_CLUSTER_VARIANTS(X)     \
  X(SkinnyCluster<1, 0, 8>)                    \
  X(SkinnyClusterRealign<1, 0, 8>)             \
  X(SkinnyPipeCluster<1, 64, 128, 4, 4>)       \
  X(SkinnyPipeCluster<8, 32, 128, 4, 4>)       \
  X(SkinnyPipeCluster<16, 32, 128, 4, 4>)      \
  X(SkinnyPipeWindowCluster<1, 32, 128, 4, 4>) \
  X(SkinnyPipeWindowCluster<1, 64, 128, 4, 4>) \
  X(SkinnyPipeWindowCluster<1, 64, 128, 4, 8>) \
  X(SkinnyPipeWindowCluster<8, 32, 128, 4, 4>) \
  X(SkinnyPipeCluster<16, 32, 128, 4, 2>)      \
  X(SkinnyPipeCluster<16, 64, 64, 4, 2>)       \
  X(SkinnyPipeCluster<16, 64, 64, 5, 2>)       \
  X(SkinnyPipeCluster<16, 64, 64, 4, 3>)       \
  X(SkinnyPipeCluster<16, 64, 64, 4, 4>)       \
  X(SkinnyPipeWindowCluster<16, 64, 64, 4, 2>) \
  X(SkinnyPipeWindowCluster<16, 64, 64, 4, 3>) \
  X(SkinnyPipeWindowCluster<16, 64, 64, 4, 4>) \
  X(SkinnyPipeWindowCluster<8, 64, 64, 4, 2>)
#define OCCTUNE_SKINNY_TRANSPOSED_VARIANTS(X) \
  X(Skinny<1, 0, 8>)                          \
  X(Skinny<8, 0, 8>)                          \
  X(Skinny<16, 0, 8>)                         \
  X(Skinny<1, 1, 8>)                          \
  X(Skinny<8, 1, 8>)                          \
  X(Skinny<16, 1, 8>)

}  // namespace occtune::kernels
