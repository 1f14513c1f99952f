// The skinny family's cp.async variants (issue #18): SkinnyPipe<S, COLS, ROWS, STAGES> streams
// the large operand B into a ring of STAGES shared-memory slabs of ROWS rows with cp.async
// instead of into registers, so that STAGES - 1 slabs stay in flight across the block's
// barriers; there is no K split, so no workspace and no second kernel (as cuBLAS's gemv runs:
// one block per column tile over all of K). Where the register kernels (kernels/skinny.cuh)
// expose one HBM round trip per batch, this ring does not: lab/gemv_pipe_lab.cu measured it on
// the H200 (docs/PERFORMANCE.md, "skinny"). SIDE 0 in nn only (B contiguous along the output's
// columns). Rows of B that are not 16-byte aligned are copied element by element (4-byte
// cp.async): correct, and slow, so the tuner picks the register kernels there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/gemm_entry.cuh"
#include "kernels/skinny.cuh"
#include "kernels/tile_core.cuh"

namespace occtune::kernels {

// cp.async of B with B's lines marked evict-first in L2, as skinny_load4 marks them: B is read
// once. Elsewhere (the host emulator, architectures before sm_80) tile::copy_async.
template <int kBytes>
__device__ __forceinline__ void skinny_copy_async(float* dst, const float* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (kBytes == 16) {
    asm volatile(
        "{\n .reg .b64 policy;\n createpolicy.fractional.L2::evict_first.b64 policy, 1.0;\n"
        " cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, policy;\n}" ::"r"(d),
        "l"(src), "r"(src_bytes)
        : "memory");
  } else {
    asm volatile(
        "{\n .reg .b64 policy;\n createpolicy.fractional.L2::evict_first.b64 policy, 1.0;\n"
        " cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 4, %2, policy;\n}" ::"r"(d),
        "l"(src), "r"(src_bytes)
        : "memory");
  }
#else
  tile::copy_async<kBytes>(dst, src, src_bytes);
#endif
}

// S rows of C (blockIdx.y) by a COLS-column tile (blockIdx.x) over all of K. COLS / 4 lanes
// share a row of B (four columns each), so a warp takes 128 / COLS rows of a slab at once and
// the block's 8 warps take 1024 / COLS; each slab also holds A's ROWS x S values. At the end
// the row slots' sums meet in shared memory and are added in slot order: deterministic.
template <Layout L, int S, int COLS, int ROWS, int STAGES>
struct SkinnyPipeIn {
  static_assert(L == Layout::kNN, "skinny pipe: nn only (B contiguous along the columns)");
  static_assert(S == 1 || S == 4 || S == 8, "skinny pipe: S is 1, 4 or 8");
  static_assert(COLS == 16 || COLS == 32 || COLS == 64 || COLS == 128,
                "skinny pipe: 16, 32, 64 or 128 columns");
  static_assert(STAGES >= 2, "skinny pipe: at least two stages");
  static constexpr Layout kLayout = L;
  static constexpr int kMaxThreads = kSkinnyThreads;
  // The registration's parameters (kernels/skinny.cu), named as the register kernels' are.
  static constexpr int kS = S, kSide = 0, kSplits = 1, kLanes = COLS / 4;
  static constexpr bool kCluster = false, kRealign = false, kWorkspaceSplit = false;
  static constexpr int kPipeRows = ROWS, kPipeStages = STAGES;
  static constexpr int kGroups = 32 / kLanes;           // rows a warp takes at once
  static constexpr int kSlots = kSkinnyWarps * kGroups;  // rows the block takes at once
  static_assert(ROWS % kSlots == 0, "skinny pipe: a slab is whole passes of the block");
  static constexpr int kKTile = ROWS;
  static constexpr int kTileM = S, kTileN = COLS;
  static constexpr int kStageFloats = ROWS * COLS + ROWS * S;
  static constexpr std::size_t kSmemBytes = std::size_t(STAGES) * kStageFloats * sizeof(float);
  // The final reduction reuses the ring: S x slots x COLS sums.
  static_assert(S * kSlots * COLS <= STAGES * kStageFloats, "skinny pipe: reduction fits");

  static constexpr long long tiles(long long m, long long n) {
    return (m + S - 1) / S * ((n + COLS - 1) / COLS);
  }
  static constexpr std::size_t workspace_bytes(long long, long long) { return 0; }
  __host__ __device__ static unsigned* tickets(const GemmArgs&) { return nullptr; }

  // Issues the copies of slab st (rows st * ROWS ...) into its stage, then commits the group
  // (an empty one past the last slab, so that every thread's group count stays in step).
  __device__ static void issue(const GemmArgs& p, float* sm, int st, int slabs, int x0, int s0,
                               bool vec) {
    if (st < slabs) {
      float* buf = sm + (st % STAGES) * kStageFloats;
      const int k0 = st * ROWS;
      if (vec) {
        for (int i = int(threadIdx.x); i < ROWS * kLanes; i += kSkinnyThreads) {
          const int r = i / kLanes, q = i % kLanes, kk = k0 + r, c = x0 + 4 * q;
          const int left = 4 * (p.n - c);
          const int bytes = kk < p.k ? (left < 0 ? 0 : left < 16 ? left : 16) : 0;
          const float* src = bytes ? p.b + std::size_t(kk) * std::size_t(p.ldb) + c : p.b;
          skinny_copy_async<16>(buf + r * COLS + 4 * q, src, bytes);
        }
      } else {
        for (int i = int(threadIdx.x); i < ROWS * COLS; i += kSkinnyThreads) {
          const int r = i / COLS, c = x0 + i % COLS, kk = k0 + r;
          const bool in = kk < p.k && c < p.n;
          const float* src = in ? p.b + std::size_t(kk) * std::size_t(p.ldb) + c : p.b;
          skinny_copy_async<4>(buf + i, src, in ? 4 : 0);
        }
      }
      // A is read by every column tile: plain copies, no evict-first.
      for (int i = int(threadIdx.x); i < ROWS * S; i += kSkinnyThreads) {
        const int r = i / S, s = i % S, kk = k0 + r;
        const bool in = kk < p.k && s0 + s < p.m;
        const float* src = in ? p.a + std::size_t(s0 + s) * std::size_t(p.lda) + kk : p.a;
        tile::copy_async<4>(buf + ROWS * COLS + i, src, in ? 4 : 0);
      }
    }
    tile::copy_commit();
  }

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    float* sm = reinterpret_cast<float*>(smem);
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int x0 = int(blockIdx.x) * COLS, s0 = int(blockIdx.y) * S;
    const int slabs = (p.k + ROWS - 1) / ROWS;
    const bool vec = tile::aligned16(p.b) && p.ldb % 4 == 0;
    float acc[S][4];
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < S; ++s) acc[s][0] = acc[s][1] = acc[s][2] = acc[s][3] = 0.0f;
    OCCTUNE_SKINNY_UNROLL
    for (int st = 0; st < STAGES - 1; ++st) issue(p, sm, st, slabs, x0, s0, vec);
    const int slot = warp * kGroups + lane / kLanes, q = lane % kLanes;
    for (int st = 0; st < slabs; ++st) {
      tile::copy_wait<STAGES - 2>();  // slab st has landed (this thread's copies)
      __syncthreads();  // everyone's copies of slab st, and everyone is done with slab st - 1
      issue(p, sm, st + STAGES - 1, slabs, x0, s0, vec);  // into slab st - 1's stage
      const float* buf = sm + (st % STAGES) * kStageFloats;
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < ROWS / kSlots; ++j) {
        const int r = slot + kSlots * j;
        const float4 v = tile::load4(buf + r * COLS + 4 * q);
        float a[S];
        if constexpr (S % 4 == 0) {
          OCCTUNE_SKINNY_UNROLL
          for (int s = 0; s < S; s += 4) {
            const float4 w = tile::load4(buf + ROWS * COLS + r * S + s);
            a[s] = w.x, a[s + 1] = w.y, a[s + 2] = w.z, a[s + 3] = w.w;
          }
        } else {
          a[0] = buf[ROWS * COLS + r];  // one address per warp-row: a broadcast
        }
        OCCTUNE_SKINNY_UNROLL
        for (int s = 0; s < S; ++s) {
          acc[s][0] = fmaf(a[s], v.x, acc[s][0]);
          acc[s][1] = fmaf(a[s], v.y, acc[s][1]);
          acc[s][2] = fmaf(a[s], v.z, acc[s][2]);
          acc[s][3] = fmaf(a[s], v.w, acc[s][3]);
        }
      }
    }
    tile::copy_wait<0>();  // only empty groups are left; the ring is reused below
    __syncthreads();
    float* red = sm;  // red[s][slot][column]
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < S; ++s) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < 4; ++j) red[(s * kSlots + slot) * COLS + 4 * q + j] = acc[s][j];
    }
    __syncthreads();
    for (int e = int(threadIdx.x); e < S * COLS; e += kSkinnyThreads) {
      const int s = e / COLS, c = e % COLS, x = x0 + c;
      if (s0 + s >= p.m || x >= p.n) continue;
      float sum = 0.0f;
      for (int g = 0; g < kSlots; ++g) sum += red[(s * kSlots + g) * COLS + c];
      float* out = p.c + std::size_t(s0 + s) * std::size_t(p.ldc) + x;
      *out = scale_output(sum, out, p.alpha, p.beta);
    }
  }
};

// The nn variants under their own name (the kernel manifest knows a kernel by its name).
template <int S, int COLS, int ROWS, int STAGES>
struct SkinnyPipe : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES> {};

}  // namespace occtune::kernels
