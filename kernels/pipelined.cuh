// Family "pipelined" (issue #3, variant 3): the block tile of the register-blocked family, fed
// by a STAGES-deep ring of shared-memory slabs filled with cp.async (sm_80+; synchronous copies
// before) while the oldest landed slab is computed, and a WM x WN warp tile. A is copied element
// by element into its transposed layout, B in 16-byte vectors where aligned; no registers hold
// data in flight, so the whole register budget serves the accumulators.
#pragma once

#include "kernels/tile_core.cuh"

namespace occtune::kernels {

template <Layout L, int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG,
          int ORDER, int FBUF>
struct PipelinedIn {
  template <Layout L2>
  using In = PipelinedIn<L2, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, ORDER, FBUF>;
  using Tile = tile::BlockTile<TileFamily::kPipelined, BM, BN, BK, TM, TN, WM, WN, STAGES, 1, AREG,
                               ORDER, FBUF, 0, L>;
  static constexpr Layout kLayout = L;
  static constexpr TileFamily kFamily = TileFamily::kPipelined;
  static constexpr TileParams kParams = Tile::kParams;
  static constexpr int kMaxThreads = Tile::kThreads;
  static constexpr int kMinBlocksPerSm = Tile::kMinBlocksPerSm;
  static constexpr std::size_t kSmemBytes = Tile::kSmemBytes;

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    int m0, n0;
    Tile::block_origin(m0, n0);
    const auto at = Tile::thread_coords();
    float acc[TM][TN];
    Tile::zero(acc);
    Tile::pipelined_mainloop(p, reinterpret_cast<float*>(smem), m0, n0, 0, p.k, at, acc);
    Tile::template store<true>(acc, at, p.c, p.ldc, m0, n0, p.m, p.n, p.alpha, p.beta);
  }
};

// The nn variant under its own name (gemm_entry.cuh: NT<>, TN<>, TT<> name the others).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG, int ORDER>
struct Pipelined : PipelinedIn<Layout::kNN, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, ORDER, 1> {};
// The same tile with its fragments double-buffered in registers (fbuf 2, wave 8): a name of its
// own rather than an eleventh argument of Pipelined, so the symbols already stored stay those
// of the same kernels (the manifest reads symbols from the demangled kernels, default
// arguments included).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG, int ORDER>
struct PipelinedFb
    : PipelinedIn<Layout::kNN, BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, ORDER, 2> {};

// The registered instantiations (kernels/pipelined.cu), also run by the host emulator of the
// unit tests. Parameters: BM, BN, BK, TM, TN, WM, WN, STAGES, AREG (1: A through registers),
// ORDER (FMA loop: 0 rows outside, measured faster here; 1 columns outside). The fbuf-2 tile
// (PipelinedFb) won 3001x1000x4097 (0.91x) and 16384x128x4096 (0.96x) in the wave-8 lab
// (docs/PERFORMANCE.md, "fbuf in the cp.async pipeline").
#define OCCTUNE_PIPELINED_VARIANTS(X)                \
  X(Pipelined<128, 128, 8, 8, 8, 32, 64, 2, 1, 0>)   \
  X(Pipelined<128, 128, 8, 8, 8, 32, 64, 3, 0, 0>)   \
  X(Pipelined<128, 128, 8, 8, 8, 32, 64, 3, 1, 0>)   \
  X(Pipelined<128, 128, 8, 8, 8, 32, 64, 4, 1, 0>)   \
  X(Pipelined<128, 128, 16, 8, 8, 32, 64, 3, 0, 0>)  \
  X(Pipelined<128, 128, 16, 8, 8, 32, 64, 3, 1, 0>)  \
  X(Pipelined<128, 128, 8, 8, 8, 64, 32, 3, 1, 0>)   \
  X(Pipelined<128, 128, 8, 8, 8, 128, 128, 3, 1, 0>) \
  X(Pipelined<128, 256, 8, 8, 16, 32, 128, 3, 1, 0>) \
  X(Pipelined<256, 128, 8, 16, 8, 64, 64, 3, 1, 0>)  \
  X(Pipelined<256, 128, 16, 16, 8, 64, 64, 3, 1, 0>) \
  X(Pipelined<256, 128, 8, 16, 8, 128, 32, 3, 1, 0>) \
  X(Pipelined<128, 64, 8, 8, 8, 32, 64, 3, 1, 0>)    \
  X(Pipelined<64, 128, 8, 8, 8, 32, 64, 3, 1, 0>)    \
  X(Pipelined<64, 64, 16, 8, 8, 32, 64, 3, 0, 0>)    \
  X(Pipelined<64, 64, 16, 4, 4, 16, 32, 3, 0, 0>)    \
  X(Pipelined<32, 128, 16, 4, 8, 16, 64, 3, 0, 0>)   \
  X(Pipelined<128, 32, 16, 8, 4, 64, 16, 3, 0, 0>)   \
  X(PipelinedFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 0>)

// The variants also registered as nt, tn and tt (issue #12, docs/architecture.md): small
// shapes and a skinny (small M) tile; A goes by cp.async (areg 0), which a transposed A needs.
#define OCCTUNE_PIPELINED_TRANSPOSED_VARIANTS(X)    \
  X(Pipelined<64, 64, 16, 4, 4, 16, 32, 3, 0, 0>)  \
  X(Pipelined<32, 128, 16, 4, 8, 16, 64, 3, 0, 0>)

}  // namespace occtune::kernels
