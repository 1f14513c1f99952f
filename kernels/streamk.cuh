// Family "streamk" (issue #18): a fixed grid of persistent blocks (BPS per SM, capped by the
// occupancy answer) shares the MAC-loop iterations (tile x BK slab) of all output tiles evenly,
// each block walking one contiguous range across tile boundaries with the pipelined block tile.
// A tile one block computes whole goes straight to C; the partial sums of a split tile go to a
// workspace slot and a second kernel adds them in block order (deterministic, no flags, no
// co-residency assumed). With DP = 1 whole waves of tiles run data-parallel first and only the
// last full wave plus the partial one is streamed. Plan arithmetic: kernels/streamk_plan.cuh.
#pragma once

#include "kernels/grid_dependency.cuh"
#include "kernels/streamk_fixup.cuh"
#include "kernels/streamk_plan.cuh"
#include "kernels/tile_core.cuh"

namespace occtune::kernels {

template <Layout L, int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG,
          int ORDER, int BPS, int DP, int FBUF>
struct StreamKIn {
  template <Layout L2>
  using In = StreamKIn<L2, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, ORDER, BPS, DP, FBUF>;
  // The tile is a point of the pipelined family's space (checked there at compile time).
  using Tile = tile::BlockTile<TileFamily::kPipelined, BM, BN, BK, TM, TN, WM, WN, STAGES, 1, AREG,
                               ORDER, FBUF, 0, L>;
  static_assert(BPS >= 1 && BPS <= 8, "blocks per SM: 1 to 8");
  static_assert(DP == 0 || DP == 1, "DP: 0 streams every tile, 1 is the data-parallel hybrid");
  static constexpr Layout kLayout = L;
  static constexpr TileParams kParams = Tile::kParams;
  static constexpr int kMaxThreads = Tile::kThreads;
  static constexpr int kMinBlocksPerSm = Tile::kMinBlocksPerSm;
  static constexpr std::size_t kSmemBytes = Tile::kSmemBytes;
  static constexpr int kBlocksPerSm = BPS;
  static constexpr int kHybrid = DP;
  static constexpr int kTileM = BM, kTileN = BN;  // the tile (the fix-up's grid)

  __host__ __device__ static StreamKPlan make_plan(int m, int n, int k, int blocks) {
    return StreamKPlan::make(m, n, k, BM, BN, BK, blocks, DP != 0);
  }

  // Iterations [j0, j1) of tile t: into C with the epilogue when slot < 0, else the raw sums
  // (clipped to the tile's part of C) into workspace slot `slot`, BN floats per row. The tile
  // grid is recomputed from the arguments (constant memory) rather than carried across the
  // main loop, which has no registers to spare.
  __device__ static void segment(const GemmArgs& p, float* stages, typename Tile::Coords at,
                                 long long t, long long j0, long long j1, int slot) {
    int m0, n0;
    Tile::tile_origin(int(t), (p.n + BN - 1) / BN, (p.m + BM - 1) / BM, m0, n0);
    const long long k_end = j1 * BK < p.k ? j1 * BK : p.k;
    float acc[TM][TN];
    Tile::zero(acc);
    Tile::pipelined_mainloop(p, stages, m0, n0, int(j0 * BK), int(k_end), at, acc);
    if (slot < 0) {
      Tile::template store<true>(acc, at, p.c, p.ldc, m0, n0, p.m, p.n, p.alpha, p.beta);
    } else {
      float* w = p.workspace + std::size_t(slot) * std::size_t(BM * BN);
      Tile::template store<false>(acc, at, w, BN, 0, 0, p.m - m0 < BM ? p.m - m0 : BM,
                                  p.n - n0 < BN ? p.n - n0 : BN);
    }
  }

  // The persistent block: its data-parallel tiles, then its stream-K range, tile by tile.
  // Every branch depends on blockIdx only, so the barriers are uniform. Only the loop
  // counters live across a segment (StreamKPlan::next).
  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    // The fix-up kernel may be scheduled now (kernels/streamk_launch.cuh): its blocks take
    // what SM room this grid leaves or frees and wait there until it has completed.
    allow_dependents();
    const int g = int(blockIdx.x);
    float* stages = reinterpret_cast<float*>(smem);
    const auto at = Tile::thread_coords();
    int tile = g, dp_tiles;  // tiles fit an int: tile_origin takes one
    long long it, end;
    {
      const StreamKPlan plan = StreamKIn::make_plan(p.m, p.n, p.k, int(gridDim.x));
      dp_tiles = int(plan.dp_tiles);
      it = plan.begin(g);
      end = plan.begin(g + 1);
    }
    // One call site of the main loop for both kinds of work (two would be two inlined copies,
    // each with its own register allocation).
    for (bool used = false;; used = true) {
      const long long iters = p.k > 0 ? (p.k + BK - 1) / BK : 1;
      StreamKSegment work;
      if (tile < dp_tiles) {
        work = {tile, 0, iters, -1};
        tile += int(gridDim.x);
      } else if (it < end) {
        work = StreamKPlan::next(iters, dp_tiles, g, it, end);
        it += work.j1 - work.j0;
      } else {
        break;
      }
      // The stages hold the previous segment's slabs, which slow threads may still be
      // reading when the next prologue refills them.
      if (used) __syncthreads();
      segment(p, stages, at, work.tile, work.j0, work.j1, work.slot);
    }
  }

  // Stream-K tile s's contributors and, when it is split, its origin (the fix-up block's
  // once-per-block work, kernels/streamk_fixup.cuh).
  __device__ static FixupTile fixup_tile(const StreamKPlan& plan, long long s) {
    FixupTile t = fixup_contributors(plan, s);
    if (t.split())
      Tile::tile_origin(int(plan.dp_tiles + s), plan.tiles_n, plan.tiles_m, t.m0, t.n0);
    return t;
  }
};

// The nn variant under its own name (gemm_entry.cuh: NT<>, TN<>, TT<> name the others).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG, int ORDER,
          int BPS, int DP>
struct StreamK
    : StreamKIn<Layout::kNN, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, ORDER, BPS, DP, 1> {};
// The same with the tile's fragments double-buffered in registers (fbuf 2; a name of its own
// for the reason given at PipelinedFb in kernels/pipelined.cuh).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG, int ORDER,
          int BPS, int DP>
struct StreamKFb
    : StreamKIn<Layout::kNN, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, ORDER, BPS, DP, 2> {};

// The registered instantiations (kernels/streamk.cu), also run by the host emulator of the unit
// tests. Parameters: BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, ORDER (as Pipelined), BPS
// (persistent blocks per SM, capped by the occupancy answer), DP (1: data-parallel hybrid).
// The 64x64 8x4 tile asks for 8 blocks per SM and gets what its registers allow: the mid sizes
// with tens of tiles, which 2-5 blocks per SM of whole tiles or two K slices leave unbalanced.
// The fbuf-2 64x128x16 tile (the 1024^3 winner on two K slices), 3 blocks per SM, for the same
// reason where its tiles leave some SMs a block more than others (1025^3-1028^3: 17 x 9 = 153
// tiles for 132 SMs, 306 blocks on two slices).
#define OCCTUNE_STREAMK_VARIANTS(X)                     \
  X(StreamK<128, 128, 8, 8, 8, 32, 64, 3, 1, 0, 1, 1>)   \
  X(StreamK<128, 128, 8, 8, 8, 32, 64, 3, 1, 0, 2, 1>)   \
  X(StreamK<128, 128, 8, 8, 8, 32, 64, 3, 1, 0, 2, 0>)   \
  X(StreamK<64, 128, 8, 8, 8, 32, 64, 3, 1, 0, 2, 1>)    \
  X(StreamK<64, 128, 8, 8, 8, 32, 64, 3, 1, 0, 4, 1>)    \
  X(StreamK<64, 64, 8, 8, 4, 32, 32, 3, 1, 0, 8, 1>)     \
  X(StreamKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 0, 4, 1>)

// The variants also registered as nt, tn and tt: A goes by cp.async (areg 0), which a
// transposed A needs.
#define OCCTUNE_STREAMK_TRANSPOSED_VARIANTS(X) \
  X(StreamK<128, 128, 8, 8, 8, 32, 64, 3, 0, 0, 2, 1>)

}  // namespace occtune::kernels
