// Family "splitk" (issue #3, variant 4: a small C with a long K, and skinny shapes): the
// pipelined block tile, with K cut into SPLITS slices of whole slabs, each computed by its own
// block (grid z) into a dense M x N slice of the workspace; a second kernel sums the slices in
// split order into C. Two passes instead of atomics, so the result is deterministic.
#pragma once

#include "kernels/tile_core.cuh"

namespace occtune::kernels {

template <Layout L, int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG,
          int SPLITS, int ORDER>
struct SplitKIn {
  template <Layout L2>
  using In = SplitKIn<L2, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, SPLITS, ORDER>;
  using Tile = tile::BlockTile<TileFamily::kSplitK, BM, BN, BK, TM, TN, WM, WN, STAGES, SPLITS,
                               AREG, ORDER, 1, 0, L>;
  static constexpr Layout kLayout = L;
  static constexpr TileFamily kFamily = TileFamily::kSplitK;
  static constexpr TileParams kParams = Tile::kParams;
  static constexpr int kMaxThreads = Tile::kThreads;
  static constexpr int kMinBlocksPerSm = Tile::kMinBlocksPerSm;
  static constexpr std::size_t kSmemBytes = Tile::kSmemBytes;

  // The K range [begin, end) of slice z: whole slabs, the last slices possibly empty.
  __device__ static void k_range(int k, int z, int& begin, int& end) {
    const int slabs = (k + BK - 1) / BK;
    const int per = (slabs + SPLITS - 1) / SPLITS;
    const long long b = (long long)z * per * BK;
    begin = b < k ? int(b) : k;
    end = b + (long long)per * BK < k ? int(b + (long long)per * BK) : k;
  }

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    int m0, n0;
    Tile::block_origin(m0, n0);
    const auto at = Tile::thread_coords();
    const int z = int(blockIdx.z);
    int k_begin, k_end;
    k_range(p.k, z, k_begin, k_end);
    float acc[TM][TN];
    Tile::zero(acc);
    Tile::pipelined_mainloop(p, reinterpret_cast<float*>(smem), m0, n0, k_begin, k_end, at, acc);
    float* slice = p.workspace + std::size_t(z) * std::size_t(p.m) * std::size_t(p.n);
    Tile::template store<false>(acc, at, slice, p.n, m0, n0, p.m, p.n);
  }

  // Second pass: whether it can go in float4 groups, and how many items it has.
  __device__ static bool reduce_vectorized(const GemmArgs& p) {
    return p.n % 4 == 0 && p.ldc % 4 == 0 && tile::aligned16(p.c) && tile::aligned16(p.workspace);
  }
  __device__ static long long reduce_items(const GemmArgs& p, bool vec) {
    const long long count = (long long)p.m * p.n;
    return vec ? count / 4 : count;
  }
  // C at item i (a float4 group or one element) = alpha * the sum of the slices, in split
  // order, + beta * C (C read only when beta != 0).
  __device__ static void reduce_item(const GemmArgs& p, long long i, bool vec) {
    const std::size_t slice = std::size_t(p.m) * std::size_t(p.n);
    if (vec) {
      const std::size_t e = std::size_t(i) * 4;
      float4 s = tile::load4(p.workspace + e);
      for (int z = 1; z < SPLITS; ++z) {
        const float4 v = tile::load4(p.workspace + std::size_t(z) * slice + e);
        s.x += v.x;
        s.y += v.y;
        s.z += v.z;
        s.w += v.w;
      }
      const std::size_t row = e / std::size_t(p.n), col = e % std::size_t(p.n);
      float* c = p.c + row * std::size_t(p.ldc) + col;
      tile::store4(c, Tile::scale4(s, c, p.alpha, p.beta));
    } else {
      const std::size_t e = std::size_t(i);
      float s = p.workspace[e];
      for (int z = 1; z < SPLITS; ++z) s += p.workspace[std::size_t(z) * slice + e];
      const std::size_t row = e / std::size_t(p.n), col = e % std::size_t(p.n);
      float* c = p.c + row * std::size_t(p.ldc) + col;
      *c = scale_output(s, c, p.alpha, p.beta);
    }
  }
};

// The nn variant under its own name (gemm_entry.cuh: NT<>, TN<>, TT<> name the others).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG, int SPLITS,
          int ORDER>
struct SplitK
    : SplitKIn<Layout::kNN, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, SPLITS, ORDER> {};

// The registered instantiations (kernels/splitk.cu), also run by the host emulator of the unit
// tests. Parameters: BM, BN, BK, TM, TN, WM, WN, STAGES, AREG (as Pipelined), SPLITS,
// ORDER (as RegBlocked).
#define OCCTUNE_SPLITK_VARIANTS(X)                  \
  X(SplitK<64, 64, 16, 4, 4, 16, 32, 3, 0, 4, 0>)   \
  X(SplitK<64, 64, 16, 4, 4, 16, 32, 3, 0, 8, 0>)   \
  X(SplitK<64, 64, 16, 4, 4, 16, 32, 3, 0, 16, 0>)  \
  X(SplitK<64, 64, 16, 4, 4, 16, 32, 3, 0, 32, 0>)  \
  X(SplitK<64, 64, 16, 8, 8, 32, 64, 3, 0, 8, 0>)   \
  X(SplitK<128, 128, 8, 8, 8, 32, 64, 3, 1, 2, 0>)  \
  X(SplitK<128, 128, 8, 8, 8, 32, 64, 3, 1, 4, 0>)  \
  X(SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 8, 0>)  \
  X(SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 16, 0>) \
  X(SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 32, 0>) \
  X(SplitK<128, 32, 16, 8, 4, 64, 16, 3, 0, 8, 0>)  \
  X(SplitK<64, 128, 8, 8, 8, 32, 64, 3, 1, 8, 0>)   \
  X(SplitK<64, 128, 8, 8, 8, 32, 64, 3, 1, 16, 0>)  \
  X(SplitK<128, 64, 8, 8, 8, 32, 64, 3, 1, 8, 0>)   \
  X(SplitK<128, 64, 8, 8, 8, 32, 64, 3, 1, 16, 0>)  \
  X(SplitK<128, 128, 8, 8, 8, 32, 64, 3, 1, 32, 0>) \
  X(SplitK<128, 128, 8, 8, 8, 32, 64, 3, 1, 64, 0>) \
  X(SplitK<64, 64, 16, 8, 8, 32, 64, 3, 0, 64, 0>)  \
  X(SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 64, 0>) \
  X(SplitK<64, 128, 8, 8, 8, 32, 64, 3, 1, 64, 0>) \
  X(SplitK<32, 128, 32, 4, 8, 16, 64, 4, 0, 32, 0>) \
  X(SplitK<64, 128, 16, 8, 8, 32, 64, 4, 1, 64, 0>) \
  X(SplitK<32, 128, 32, 4, 8, 16, 64, 4, 0, 128, 0>) \
  X(SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 128, 0>) \
  X(SplitK<32, 32, 16, 4, 4, 16, 32, 4, 0, 128, 0>)

// The variants also registered as nt, tn and tt (issue #12, docs/architecture.md): long K on a
// small square C and on a skinny C.
#define OCCTUNE_SPLITK_TRANSPOSED_VARIANTS(X)      \
  X(SplitK<64, 64, 16, 4, 4, 16, 32, 3, 0, 8, 0>) \
  X(SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 16, 0>)

}  // namespace occtune::kernels
