// Family "regblocked" (issue #3, variant 2): 2D register blocking. A block computes BM x BN of C
// from BK-deep slabs of A (transposed, padded) and B in two shared-memory buffers; each thread
// computes TM x TN outputs, optionally within a WM x WN warp tile. Slab t + 1 is loaded from
// global memory into registers (float4 where base and leading dimension allow, scalar
// otherwise) while slab t is computed, then stored to the other buffer: one barrier per slab,
// and the same code on every architecture. FBUF = 2 double-buffers the fragments in registers
// as well (the k + 1 fragments are read during k's FMAs, and the barrier comes before the
// slab's last k, so the next slab's first reads overlap it); LDK is the k of the slab whose
// FMAs the next slab's global loads are issued before.
#pragma once

#include "kernels/tile_core.cuh"

namespace occtune::kernels {

template <Layout L, int BM, int BN, int BK, int TM, int TN, int WM, int WN, int ORDER, int FBUF,
          int LDK>
struct RegBlockedIn {
  template <Layout L2>
  using In = RegBlockedIn<L2, BM, BN, BK, TM, TN, WM, WN, ORDER, FBUF, LDK>;
  using Tile = tile::BlockTile<TileFamily::kRegBlocked, BM, BN, BK, TM, TN, WM, WN, 2, 1, 0, ORDER,
                               FBUF, LDK, L>;
  static constexpr Layout kLayout = L;
  static constexpr TileFamily kFamily = TileFamily::kRegBlocked;
  static constexpr TileParams kParams = Tile::kParams;
  static constexpr int kMaxThreads = Tile::kThreads;
  static constexpr int kMinBlocksPerSm = Tile::kMinBlocksPerSm;
  static constexpr std::size_t kSmemBytes = Tile::kSmemBytes;

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    float* stages = reinterpret_cast<float*>(smem);
    int m0, n0;
    Tile::block_origin(m0, n0);
    const auto at = Tile::thread_coords();
    const auto loader = Tile::make_staged_loader(p, m0, n0);
    const bool vec_a = tile::aligned16(p.a) && p.lda % 4 == 0;
    const bool vec_b = tile::aligned16(p.b) && p.ldb % 4 == 0;
    float acc[TM][TN];
    Tile::zero(acc);
    const int slabs = (p.k + BK - 1) / BK;
    typename Tile::Staged staged;
    if (slabs > 0) {
      Tile::load_staged(p, loader, staged, 0, vec_a, vec_b);
      Tile::store_staged(loader, staged, stages);
    }
    __syncthreads();
    if constexpr (FBUF == 1) {
      for (int t = 0; t < slabs; ++t) {
        const bool more = t + 1 < slabs;
        float* current = stages + (t & 1) * Tile::kStageFloats;
        float* other = stages + ((t + 1) & 1) * Tile::kStageFloats;
        if (more) Tile::load_staged(p, loader, staged, (t + 1) * BK, vec_a, vec_b);
        Tile::compute_slab(current, at, acc);
        // `other` was last read while computing slab t - 1, before the previous barrier.
        if (more) Tile::store_staged(loader, staged, other);
        __syncthreads();
      }
    } else {
      float a[2][TM], b[2][TN];
      Tile::load_fragments(stages, at, 0, a[0], b[0]);
      for (int t = 0; t < slabs; ++t) {
        const bool more = t + 1 < slabs;
        const float* current = stages + (t & 1) * Tile::kStageFloats;
        float* other = stages + ((t + 1) & 1) * Tile::kStageFloats;
        OCCTUNE_UNROLL
        for (int kk = 0; kk < BK; ++kk) {
          if (kk == LDK && more) Tile::load_staged(p, loader, staged, (t + 1) * BK, vec_a, vec_b);
          const int next = (kk + 1) & 1;
          if (kk + 1 < BK) {
            Tile::load_fragments(current, at, kk + 1, a[next], b[next]);
          } else {
            // `other` was last read before the previous barrier, and every read of `current`
            // is done (its last fragments are in registers): one barrier per slab suffices.
            // After the last slab this reads a stale stage whose values are never used.
            if (more) Tile::store_staged(loader, staged, other);
            __syncthreads();
            Tile::load_fragments(other, at, 0, a[next], b[next]);
          }
          Tile::fma_fragments(a[kk & 1], b[kk & 1], acc);
        }
      }
    }
    Tile::template store<true>(acc, at, p.c, p.ldc, m0, n0, p.m, p.n, p.alpha, p.beta);
  }
};

// The nn variant under its own name (gemm_entry.cuh: NT<>, TN<>, TT<> name the others).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int ORDER, int FBUF, int LDK>
struct RegBlocked : RegBlockedIn<Layout::kNN, BM, BN, BK, TM, TN, WM, WN, ORDER, FBUF, LDK> {};

// The registered instantiations (kernels/regblocked.cu), also run by the host emulator of the
// unit tests. Parameters: BM, BN, BK, TM, TN, WM, WN (WM = BM and WN = BN: no warp tiling),
// ORDER (FMA loop: 0 rows outside, 1 columns outside; 1 measured 8% faster for 8x16 tiles),
// FBUF and LDK (fragment double-buffering and where the next slab's loads go; the lab runs of
// docs/results/2026-11-23-h100-fbuf/ chose these points).
#define OCCTUNE_REGBLOCKED_VARIANTS(X)                \
  X(RegBlocked<128, 128, 8, 8, 8, 32, 64, 0, 1, 0>)   \
  X(RegBlocked<128, 128, 8, 8, 8, 128, 128, 0, 1, 0>) \
  X(RegBlocked<128, 128, 16, 8, 8, 32, 64, 0, 1, 0>)  \
  X(RegBlocked<128, 256, 8, 8, 16, 32, 128, 1, 1, 0>) \
  X(RegBlocked<128, 256, 8, 8, 16, 64, 64, 1, 1, 0>)  \
  X(RegBlocked<128, 256, 8, 16, 8, 64, 64, 0, 1, 0>)  \
  X(RegBlocked<256, 128, 8, 16, 8, 64, 64, 0, 1, 0>)  \
  X(RegBlocked<256, 128, 8, 16, 8, 64, 64, 1, 1, 0>)  \
  X(RegBlocked<128, 64, 8, 8, 8, 32, 64, 0, 1, 0>)    \
  X(RegBlocked<64, 128, 8, 8, 8, 32, 64, 0, 1, 0>)    \
  X(RegBlocked<64, 64, 16, 4, 4, 16, 32, 0, 1, 0>)    \
  X(RegBlocked<32, 128, 8, 4, 8, 16, 64, 0, 1, 0>)    \
  X(RegBlocked<128, 256, 8, 16, 8, 64, 64, 0, 2, 2>)  \
  X(RegBlocked<128, 256, 8, 16, 8, 128, 32, 0, 2, 2>) \
  X(RegBlocked<128, 256, 16, 16, 8, 64, 64, 0, 2, 0>) \
  X(RegBlocked<256, 128, 8, 16, 8, 64, 64, 0, 2, 0>)  \
  X(RegBlocked<128, 128, 8, 16, 8, 64, 64, 1, 2, 2>)  \
  X(RegBlocked<64, 128, 8, 8, 8, 32, 64, 0, 2, 2>)

// The variants also registered as nt, tn and tt (NT<>, TN<>, TT<>; issue #12, choice in
// docs/architecture.md): the large-square winner and a medium 64x128 tile.
#define OCCTUNE_REGBLOCKED_TRANSPOSED_VARIANTS(X)    \
  X(RegBlocked<128, 256, 8, 16, 8, 64, 64, 0, 2, 2>) \
  X(RegBlocked<64, 128, 8, 8, 8, 32, 64, 0, 2, 2>)

}  // namespace occtune::kernels
