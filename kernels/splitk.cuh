// Family "splitk" (issue #3, variant 4: a small C with a long K, and skinny shapes): the
// pipelined block tile, with K cut into SPLITS slices of whole slabs, each computed by its own
// block (grid z) into a dense M x N slice of the workspace; a second kernel sums the slices in
// split order into C. Two passes instead of atomics, so the result is deterministic.
#pragma once

#include <type_traits>

#include "kernels/grid_dependency.cuh"
#include "kernels/tile_core.cuh"

namespace occtune::kernels {

template <Layout L, int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG,
          int SPLITS, int ORDER, int FBUF>
struct SplitKIn {
  template <Layout L2>
  using In = SplitKIn<L2, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, SPLITS, ORDER, FBUF>;
  using Tile = tile::BlockTile<TileFamily::kSplitK, BM, BN, BK, TM, TN, WM, WN, STAGES, SPLITS,
                               AREG, ORDER, FBUF, 0, L>;
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
    // The second pass may be scheduled now (kernels/splitk.cu): its blocks take what SM room
    // this grid leaves or frees and wait there until it has completed.
    allow_dependents();
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
  // The sum of slices [z0, z1) at item i (a float4 group, or one element in .x), in split order.
  __device__ static float4 sum_slices(const GemmArgs& p, long long i, bool vec, int z0, int z1) {
    const std::size_t slice = std::size_t(p.m) * std::size_t(p.n);
    float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (vec) {
      const std::size_t e = std::size_t(i) * 4;
      OCCTUNE_UNROLL
      for (int z = z0; z < z1; ++z) {
        const float4 v = tile::load4(p.workspace + std::size_t(z) * slice + e);
        s.x += v.x;
        s.y += v.y;
        s.z += v.z;
        s.w += v.w;
      }
    } else {
      OCCTUNE_UNROLL
      for (int z = z0; z < z1; ++z) s.x += p.workspace[std::size_t(z) * slice + std::size_t(i)];
    }
    return s;
  }
  // C at item i = alpha * s + beta * C (C read only when beta != 0).
  __device__ static void store_item(const GemmArgs& p, long long i, bool vec, float4 s) {
    const std::size_t e = vec ? std::size_t(i) * 4 : std::size_t(i);
    const std::size_t row = e / std::size_t(p.n), col = e % std::size_t(p.n);
    float* c = p.c + row * std::size_t(p.ldc) + col;
    if (vec)
      tile::store4(c, Tile::scale4(s, c, p.alpha, p.beta));
    else
      *c = scale_output(s.x, c, p.alpha, p.beta);
  }
  // One block of the grouped second pass (kernels/splitk.cu): kReduceThreads threads hold
  // kReduceThreads / G items x G groups of splits. Group g sums splits [g S/G, (g+1) S/G) in
  // order, then group 0 adds the groups' sums in group order: a fixed order for a given G, and
  // G depends on the output's size alone (reduce_groups), so the result is deterministic.
  // With few items (a small output, long K) the G groups keep G times as many loads in flight
  // as one thread per item could: 96x96x65536 with 128 splits went from 0.86x to 1.01x cuBLAS
  // on the H100 (docs/PERFORMANCE.md, "splitk"). `part` holds kReduceThreads float4s.
  static constexpr int kReduceThreads = 256;
  template <int G>
  __device__ static void reduce_block(const GemmArgs& p, float4* part) {
    static_assert(G >= 1 && SPLITS % G == 0 && kReduceThreads % G == 0, "split groups");
    constexpr int kItems = kReduceThreads / G, kPer = SPLITS / G;
    const bool vec = reduce_vectorized(p);
    const long long items = reduce_items(p, vec);
    const int lane = int(threadIdx.x) % kItems, g = int(threadIdx.x) / kItems;
    // Every thread runs the same number of iterations: the barriers are uniform.
    for (long long base = (long long)blockIdx.x * kItems; base < items;
         base += (long long)gridDim.x * kItems) {
      const long long i = base + lane;
      float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (i < items) s = sum_slices(p, i, vec, g * kPer, (g + 1) * kPer);
      if constexpr (G > 1) {
        part[threadIdx.x] = s;
        __syncthreads();
        if (g == 0) {
          OCCTUNE_UNROLL
          for (int q = 1; q < G; ++q) {
            const float4 v = part[q * kItems + lane];
            s.x += v.x;
            s.y += v.y;
            s.z += v.z;
            s.w += v.w;
          }
        }
        __syncthreads();
      }
      if (g == 0 && i < items) store_item(p, i, vec, s);
    }
  }
};

// Split groups of the second pass for an m x n output: enough that items x G threads fill an
// H100-sized GPU (2^18 threads), at most 8 and at most the splits, where the items are float4
// groups when n allows them (elements otherwise). A function of the shape only (not of the
// operands' addresses or the device), so a shape always sums its slices in the same order.
constexpr int splitk_reduce_groups(int m, int n, int splits) {
  const long long count = (long long)m * n, items = n % 4 == 0 ? count / 4 : count;
  int g = 1;
  while (g < 8 && splits % (2 * g) == 0 && items * g < (1LL << 18)) g *= 2;
  return g;
}

// f(std::integral_constant<int, G>{}) with the second pass's G for an m x n output (the launch
// in kernels/splitk.cu and the host emulator of the unit tests dispatch the same way).
template <int SPLITS, class F>
auto with_reduce_groups(int m, int n, F&& f) {
  switch (splitk_reduce_groups(m, n, SPLITS)) {
    case 8:
      if constexpr (SPLITS % 8 == 0) return f(std::integral_constant<int, 8>{});
      break;
    case 4:
      if constexpr (SPLITS % 4 == 0) return f(std::integral_constant<int, 4>{});
      break;
    case 2:
      if constexpr (SPLITS % 2 == 0) return f(std::integral_constant<int, 2>{});
      break;
    default:
      break;
  }
  return f(std::integral_constant<int, 1>{});
}

// The nn variant under its own name (gemm_entry.cuh: NT<>, TN<>, TT<> name the others).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG, int SPLITS,
          int ORDER>
struct SplitK
    : SplitKIn<Layout::kNN, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, SPLITS, ORDER, 1> {};
// The same tile with its fragments double-buffered in registers (fbuf 2, wave 8; a name of its
// own for the reason given at PipelinedFb in kernels/pipelined.cuh).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG, int SPLITS,
          int ORDER>
struct SplitKFb
    : SplitKIn<Layout::kNN, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, SPLITS, ORDER, 2> {};

// The registered instantiations (kernels/splitk.cu), also run by the host emulator of the unit
// tests. Parameters: BM, BN, BK, TM, TN, WM, WN, STAGES, AREG (as Pipelined), SPLITS,
// ORDER (as RegBlocked). Wave 8 added the 64x64 tile of four warps (8x4 per thread: 1025^3,
// cuBLAS's tile there) and the fbuf-2 64x128 tile on 2 and 4 slices (the misaligned mid sizes:
// docs/PERFORMANCE.md, "fbuf in the cp.async pipeline"). The 256x128 tile on 64 slices (215
// registers, one block per SM) is cuBLAS's own tile for the long-K small outputs
// (256x256x16384: 0.905x in the H200 lab against 0.87x for the 64x128 tile).
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
  X(SplitK<32, 32, 16, 4, 4, 16, 32, 4, 0, 128, 0>) \
  X(SplitK<64, 64, 8, 8, 4, 32, 32, 3, 1, 2, 0>)     \
  X(SplitKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 2, 0>) \
  X(SplitKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 4, 0>) \
  X(SplitK<256, 128, 8, 16, 8, 64, 64, 3, 1, 64, 0>)

// The variants also registered as nt, tn and tt (issue #12, docs/architecture.md): long K on a
// small square C and on a skinny C.
#define OCCTUNE_SPLITK_TRANSPOSED_VARIANTS(X)      \
  X(SplitK<64, 64, 16, 4, 4, 16, 32, 3, 0, 8, 0>) \
  X(SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 16, 0>)

}  // namespace occtune::kernels
