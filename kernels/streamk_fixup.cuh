// The fix-up of a split stream-K tile, shared by the streamk (kernels/streamk.cuh) and tma
// (kernels/tma.cuh) families: the partial sums of its blocks' workspace slots added in block
// order (deterministic; no flags, no co-residency assumed), then the GEMM epilogue into C. Each
// family passes the tile's origin from its own tile order.
#pragma once

#include "kernels/streamk_plan.cuh"
#include "kernels/tile_core.cuh"

namespace occtune::kernels {

// Threads of one fix-up block, and the blocks that share one split tile: one float4 of the
// tile per thread. One 256-thread block per tile made each thread walk up to 32 float4s of a
// 128x256 tile, each a chain of dependent L2 reads across the tile's partials, on as few
// blocks as there are split tiles (a mid-size shape has tens), which held stream-K back
// wherever tiles were few (docs/PERFORMANCE.md, "streamk", calls O-Q).
inline constexpr int kFixupThreads = 256;
__host__ __device__ constexpr int fixup_blocks_per_tile(int tile_floats) {
  return (tile_floats / 4 + kFixupThreads - 1) / kFixupThreads;
}

// Thread `t` of block `part` (of `parts`) among the fix-up blocks of one tile: its index in the
// tile's fix-up and their count, as fixup_split_tile takes them. The kernel (blockIdx.y,
// gridDim.y, threadIdx.x) and the host emulator of the unit tests map threads through this one
// function.
struct FixupThread {
  int index, count;
};
__host__ __device__ constexpr FixupThread fixup_thread(int part, int parts, int t) {
  return {part * kFixupThreads + t, parts * kFixupThreads};
}

// A stream-K tile's contributors and place, worked out once per fix-up block (thread 0, into
// shared memory) rather than by every thread: owner() is a 64-bit division and the tile's
// origin two more, hundreds of instructions a thread against the few loads and adds of its
// float4 (docs/PERFORMANCE.md, "streamk", calls T and U). Blocks g0..g1 computed the tile, in
// the order of their iterations; g0 == g1: one block computed it whole, straight into C.
// (No member initialisers: the kernel keeps one in __shared__, which takes no constructor.)
struct FixupTile {
  int g0, g1;
  int m0, n0;  // the tile's origin in C (set only when it is split)
  __host__ __device__ bool split() const { return g0 != g1; }
};

// g0 and g1 of stream-K tile s; the family adds the origin from its own tile order.
__host__ __device__ inline FixupTile fixup_contributors(const StreamKPlan& plan, long long s) {
  return {plan.owner(s * plan.iters), plan.owner((s + 1) * plan.iters - 1), 0, 0};
}

// Split stream-K tile s of `plan` (BM x BN at split_tile.m0, .n0 in C) by `threads` threads,
// this one `thread`: C = alpha * (its partials summed in block order) + beta * C. A slot holds
// the tile row-major, BN floats a row, so its rows are float4-aligned whenever the workspace
// is: the partials are read as float4 whatever C's alignment, and only the stores into a C
// whose base or ldc is not a multiple of 4 go element by element. (Reading the partials by
// elements there, as before, fetched every 32-byte sector four times: call U's fix-up at
// 1025^3 took 12-14 us, L2 59% busy, docs/PERFORMANCE.md, "streamk".) A float4 that crosses
// C's last column is read by elements, so nothing outside C's part of a slot is read.
// slot() is a multiply and a compare: no division is left on this path.
template <int BM, int BN>
__device__ void fixup_split_tile(const GemmArgs& p, const StreamKPlan& plan,
                                 const FixupTile& split_tile, long long s, int thread,
                                 int threads) {
  const int g0 = split_tile.g0, g1 = split_tile.g1;
  const bool vec_w = tile::aligned16(p.workspace);
  const bool vec_c = tile::aligned16(p.c) && p.ldc % 4 == 0;
  const std::size_t kSlot = std::size_t(BM) * std::size_t(BN);
  for (int i = thread; i < BM * BN / 4; i += threads) {
    const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
    const int row = split_tile.m0 + r, col = split_tile.n0 + c;
    if (row >= p.m || col >= p.n) continue;
    const float* w = p.workspace + std::size_t(r) * BN + c;
    float* out = p.c + std::size_t(row) * std::size_t(p.ldc) + col;
    if (vec_w && col + 3 < p.n) {
      float4 sum = tile::load4(w + std::size_t(plan.slot(g0, s)) * kSlot);
      // Unrolled so that several partials' loads are in flight at once; the adds stay in
      // block order (the result does not depend on the unrolling).
      OCCTUNE_UNROLL_4
      for (int g = g0 + 1; g <= g1; ++g) {
        const float4 v = tile::load4(w + std::size_t(plan.slot(g, s)) * kSlot);
        sum.x += v.x;
        sum.y += v.y;
        sum.z += v.z;
        sum.w += v.w;
      }
      if (vec_c) {
        tile::store4(out, tile::scale4(sum, out, p.alpha, p.beta));
      } else {
        out[0] = scale_output(sum.x, out, p.alpha, p.beta);
        out[1] = scale_output(sum.y, out + 1, p.alpha, p.beta);
        out[2] = scale_output(sum.z, out + 2, p.alpha, p.beta);
        out[3] = scale_output(sum.w, out + 3, p.alpha, p.beta);
      }
      continue;
    }
    for (int q = 0; q < 4 && col + q < p.n; ++q) {
      float sum = w[std::size_t(plan.slot(g0, s)) * kSlot + q];
      OCCTUNE_UNROLL_4
      for (int g = g0 + 1; g <= g1; ++g) sum += w[std::size_t(plan.slot(g, s)) * kSlot + q];
      out[q] = scale_output(sum, out + q, p.alpha, p.beta);
    }
  }
}

// Thread t of fix-up block `part` (of `parts`) of stream-K tile s, whose FixupTile the block
// worked out: the kernel (kernels/streamk_launch.cuh) and the host emulator of the unit tests
// both run this.
template <class Variant>
__device__ void fixup_block_thread(const GemmArgs& p, const StreamKPlan& plan,
                                   const FixupTile& split_tile, long long s, int part, int parts,
                                   int t) {
  if (!split_tile.split()) return;
  const FixupThread f = fixup_thread(part, parts, t);
  fixup_split_tile<Variant::kTileM, Variant::kTileN>(p, plan, split_tile, s, f.index, f.count);
}

}  // namespace occtune::kernels
