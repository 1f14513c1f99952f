// Family "coarsened" (issue #3, variant 1): thread coarsening after Volkov & Demmel. Each thread
// computes TM outputs of one column of C, so every B value it reads from shared memory feeds TM
// FMAs from registers; a block stages BM x BK of A and BK x BN of B in dynamic shared memory
// (one buffer, two barriers per slab). Fewer threads per output, more reuse, lower occupancy.
#pragma once

#include "kernels/tile_core.cuh"

namespace occtune::kernels {

template <Layout L, int BM, int BN, int BK, int TM>
struct CoarsenedIn {
  template <Layout L2>
  using In = CoarsenedIn<L2, BM, BN, BK, TM>;
  static constexpr Layout kLayout = L;
  static constexpr TileFamily kFamily = TileFamily::kCoarsened;
  static constexpr TileParams kParams{BM, BN, BK, TM, 1, BM, BN, 1, 1};
  static_assert(tile_valid(kFamily, kParams),
                "not a point of the family's space: see tile_violation() in kernel_space.hpp");
  static constexpr int kMaxThreads = tile_threads(kFamily, kParams);
  static constexpr int kMinBlocksPerSm = tile_min_blocks_per_sm(kFamily, kParams);
  static constexpr std::size_t kSmemBytes = tile_smem_bytes(kFamily, kParams);

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    constexpr int kThreads = kMaxThreads;
    float* as = reinterpret_cast<float*>(smem);  // As[m][k]: a warp reads one row (broadcast)
    float* bs = as + BM * BK;                    // Bs[k][n]: a warp reads 32 columns
    const int tid = int(threadIdx.x);
    const int col = tid % BN, rows = (tid / BN) * TM;
    const int m0 = int(blockIdx.y) * BM, n0 = int(blockIdx.x) * BN;
    float acc[TM];
    OCCTUNE_UNROLL
    for (int r = 0; r < TM; ++r) acc[r] = 0.0f;
    for (int k0 = 0; k0 < p.k; k0 += BK) {
      // Consecutive threads read consecutive addresses of the stored matrix in every layout:
      // along k for A nn and B^T, along m for A^T and n for B nn.
      OCCTUNE_UNROLL
      for (int it = 0; it < BM * BK / kThreads; ++it) {
        const int e = tid + it * kThreads;
        if constexpr (!transposes_a(L)) {
          const int gm = m0 + e / BK, gk = k0 + e % BK;
          as[e] = gm < p.m && gk < p.k ? p.a[std::size_t(gm) * std::size_t(p.lda) + gk] : 0.0f;
        } else {
          const int gk = k0 + e / BM, gm = m0 + e % BM;
          as[(e % BM) * BK + e / BM] =
              gm < p.m && gk < p.k ? p.a[std::size_t(gk) * std::size_t(p.lda) + gm] : 0.0f;
        }
      }
      OCCTUNE_UNROLL
      for (int it = 0; it < BK * BN / kThreads; ++it) {
        const int e = tid + it * kThreads;
        if constexpr (!transposes_b(L)) {
          const int gk = k0 + e / BN, gn = n0 + e % BN;
          bs[e] = gk < p.k && gn < p.n ? p.b[std::size_t(gk) * std::size_t(p.ldb) + gn] : 0.0f;
        } else {
          const int gn = n0 + e / BK, gk = k0 + e % BK;
          bs[(e % BK) * BN + e / BK] =
              gk < p.k && gn < p.n ? p.b[std::size_t(gn) * std::size_t(p.ldb) + gk] : 0.0f;
        }
      }
      __syncthreads();
      OCCTUNE_UNROLL
      for (int k4 = 0; k4 < BK; k4 += 4) {
        const float b0 = bs[(k4 + 0) * BN + col], b1 = bs[(k4 + 1) * BN + col];
        const float b2 = bs[(k4 + 2) * BN + col], b3 = bs[(k4 + 3) * BN + col];
        OCCTUNE_UNROLL
        for (int r = 0; r < TM; ++r) {
          const float4 a = tile::load4(as + (rows + r) * BK + k4);
          acc[r] = fmaf(a.x, b0, acc[r]);
          acc[r] = fmaf(a.y, b1, acc[r]);
          acc[r] = fmaf(a.z, b2, acc[r]);
          acc[r] = fmaf(a.w, b3, acc[r]);
        }
      }
      __syncthreads();
    }
    const int gn = n0 + col;
    OCCTUNE_UNROLL
    for (int r = 0; r < TM; ++r) {
      const int gm = m0 + rows + r;
      if (gm < p.m && gn < p.n) {
        float* c = p.c + std::size_t(gm) * std::size_t(p.ldc) + gn;
        *c = scale_output(acc[r], c, p.alpha, p.beta);
      }
    }
  }
};

// The nn variant under its own name (gemm_entry.cuh: NT<>, TN<>, TT<> name the others).
template <int BM, int BN, int BK, int TM>
struct Coarsened : CoarsenedIn<Layout::kNN, BM, BN, BK, TM> {};

// The registered instantiations (kernels/coarsened.cu), also run by the host emulator of the
// unit tests: 2, 4, 8 and 16 outputs per thread. Parameters: BM, BN, BK, TM.
#define OCCTUNE_COARSENED_VARIANTS(X) \
  X(Coarsened<64, 32, 32, 2>)         \
  X(Coarsened<64, 64, 16, 4>)         \
  X(Coarsened<64, 64, 8, 8>)          \
  X(Coarsened<128, 64, 8, 16>)        \
  X(Coarsened<128, 32, 16, 16>)

// The variant also registered as nt, tn and tt (issue #12, docs/architecture.md).
#define OCCTUNE_COARSENED_TRANSPOSED_VARIANTS(X) X(Coarsened<64, 64, 16, 4>)

}  // namespace occtune::kernels
