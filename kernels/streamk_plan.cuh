// The work decomposition of the stream-K family (kernels/streamk.cuh): which block computes
// which MAC-loop iterations (output tile x BK-deep K slab) and where its partial sums go. Plain
// arithmetic on (M, N, K, grid size), the same on the host (launch, workspace size, unit tests)
// and on the device (both kernels), so the three cannot disagree. docs/PERFORMANCE.md, "streamk".
#pragma once

#include <cuda_runtime.h>

namespace occtune::kernels {

// A block's work on one tile: iterations [j0, j1) of tile `tile` (numbered over all tiles),
// and where the sums go: -1 for C (the whole tile), else a workspace slot.
struct StreamKSegment {
  long long tile, j0, j1;
  int slot;
};

struct StreamKPlan {
  int tiles_m = 0, tiles_n = 0;  // output tiles along M and N
  long long tiles = 0;           // tiles_m * tiles_n, in launch order (BlockTile::tile_origin)
  long long iters = 0;           // MAC-loop iterations per tile: ceil(K / BK), at least 1
  int blocks = 1;                // persistent blocks (the grid)
  long long dp_tiles = 0;        // tiles [0, dp_tiles): whole, tile t by block t % blocks
  long long sk_iters = 0;        // iterations of tiles [dp_tiles, tiles), shared out evenly
  long long per = 0, extra = 0;  // block g gets per + (g < extra) stream-K iterations
  // Tiles [0, dp_tiles) are computed by a data-parallel launch of their own (make_tail): this
  // plan's blocks walk only their stream-K ranges.
  bool dp_elsewhere = false;

  // hybrid: whole waves of tiles data-parallel except the last full one, which joins the
  // partial wave in the stream-K part (so every block's stream-K share is 1 to 2 tiles: fewer
  // split tiles than streaming everything, the same balance). Without it every tile is
  // stream-K. K = 0 still has one (empty) iteration per tile, so C = beta C is written.
  __host__ __device__ static StreamKPlan make(int m, int n, int k, int bm, int bn, int bk,
                                              int blocks, bool hybrid) {
    StreamKPlan p;
    p.tiles_m = (m + bm - 1) / bm;
    p.tiles_n = (n + bn - 1) / bn;
    p.tiles = (long long)p.tiles_m * p.tiles_n;
    p.iters = k > 0 ? (k + bk - 1) / bk : 1;
    p.blocks = blocks > 0 ? blocks : 1;
    const long long waves = p.tiles / p.blocks, rest = p.tiles % p.blocks;
    p.dp_tiles = hybrid && waves >= 1 ? (rest == 0 ? p.tiles : (waves - 1) * p.blocks) : 0;
    p.share_streamed(false);
    return p;
  }

  // tail: every whole wave of tiles goes to a data-parallel launch of its own, before this
  // plan's persistent one (the tma family's sk 3: its data-parallel kernel runs those waves
  // faster than the persistent kernel would); only the partial wave's tiles are streamed, over
  // at most as many blocks as they have iterations. No partial wave: nothing is streamed.
  __host__ __device__ static StreamKPlan make_tail(int m, int n, int k, int bm, int bn, int bk,
                                                   int blocks) {
    StreamKPlan p = make(m, n, k, bm, bn, bk, blocks, false);
    p.dp_tiles = p.tiles / p.blocks * p.blocks;
    p.dp_elsewhere = true;
    p.share_streamed(true);
    return p;
  }

  // Shares the iterations of the tiles past dp_tiles out over the blocks: `per` each, the first
  // `extra` one more. With `trim_blocks`, fewer blocks than iterations are kept (make_tail: a
  // block without an iteration would only be launched to exit).
  __host__ __device__ void share_streamed(bool trim_blocks) {
    sk_iters = (tiles - dp_tiles) * iters;
    if (trim_blocks && sk_iters > 0 && sk_iters < blocks) blocks = int(sk_iters);
    per = sk_iters / blocks;
    extra = sk_iters % blocks;
  }

  // The grid for a device that keeps `resident` blocks at once: no more blocks than there are
  // iterations (a block with nothing to do would only be launched to exit).
  __host__ __device__ static int grid(int m, int n, int k, int bm, int bn, int bk, int resident) {
    const StreamKPlan p = make(m, n, k, bm, bn, bk, 1, false);
    const long long all = p.tiles * p.iters;
    return int(all < resident ? all : resident);
  }

  // First stream-K iteration of block g (g = blocks: the end); iterations are numbered over
  // the stream-K tiles, tile s's being [s * iters, (s + 1) * iters).
  __host__ __device__ long long begin(int g) const { return per * g + (g < extra ? g : extra); }
  // The block whose range holds stream-K iteration `it`.
  __host__ __device__ int owner(long long it) const {
    const long long split = extra * (per + 1);
    return int(it < split ? it / (per + 1) : extra + (it - split) / per);
  }

  // Block g's stream-K segment from iteration `it` of its range [.., end): up to the end of
  // the tile or of the range. Static, from the few numbers it needs, so the kernel can call it
  // without keeping a whole plan alive across its main loop. Its slot agrees with slot().
  __host__ __device__ static StreamKSegment next(long long iters, long long dp_tiles, int g,
                                                 long long it, long long end) {
    const long long s = it / iters;
    return next_in(iters, dp_tiles, g, s, it - s * iters, end);
  }
  // The same from iteration j of stream-K tile s.
  __host__ __device__ static StreamKSegment next_in(long long iters, long long dp_tiles, int g,
                                                    long long s, long long j, long long end) {
    const long long first = s * iters;
    const long long stop = end < first + iters ? end : first + iters;
    const bool whole = j == 0 && stop == first + iters;
    return {dp_tiles + s, j, stop - first, whole ? -1 : j > 0 ? 2 * g - 1 : 2 * g};
  }

  // Workspace slot of block g's partial sums of stream-K tile s: 2g - 1 for the segment its
  // range starts with in the middle of a tile, 2g for a segment that starts at a tile's first
  // iteration and stops short of its last (only a block's last segment can). A block has at
  // most one of each, block 0 never the first kind and block blocks - 1 never the second.
  __host__ __device__ int slot(int g, long long s) const {
    return begin(g) > s * iters ? 2 * g - 1 : 2 * g;
  }
  __host__ __device__ int slots() const { return 2 * blocks - 2; }

  // Whether stream-K tile s is computed by more than one block (its partials then meet in the
  // fix-up kernel, in the order of the blocks: the order of the iterations).
  __host__ __device__ bool split(long long s) const {
    return owner(s * iters) != owner((s + 1) * iters - 1);
  }
  __host__ __device__ long long sk_tiles() const { return tiles - dp_tiles; }

  // Block g's walk one iteration at a time, for a kernel whose pipeline runs on across
  // segments (the tma family, kernels/tma.cuh): its data-parallel tiles g, g + blocks, ...
  // whole, then its stream-K range [begin(g), begin(g + 1)), the same segments in the same order
  // as next() cuts them. Two ints, moved on without a division: where the stream-K range starts
  // (one division) is worked out once and passed in, so that a warpgroup with few registers can
  // keep a cursor.
  struct Cursor {
    int tile, j;  // iteration j of tile `tile` (over all tiles)
  };
  // The data-parallel tiles this plan's blocks walk: none when another launch computes them.
  __host__ __device__ long long walked_dp_tiles() const { return dp_elsewhere ? 0 : dp_tiles; }
  // Iterations in block g's walk.
  __host__ __device__ long long steps(int g) const {
    const long long walked = walked_dp_tiles();
    const long long dp = g < walked ? (walked - g + blocks - 1) / blocks : 0;
    return dp * iters + begin(g + 1) - begin(g);
  }
  // Where block g's stream-K range starts.
  __host__ __device__ Cursor streamed(int g) const {
    const long long it = begin(g);
    return {int(dp_tiles + it / iters), int(it % iters)};
  }
  // The walk's first iteration; `streamed` is streamed(g).
  __host__ __device__ Cursor first(int g, Cursor streamed) const {
    return g < walked_dp_tiles() ? Cursor{g, 0} : streamed;
  }
  // By n iterations, at most to the end of the cursor's tile.
  __host__ __device__ void advance(Cursor& c, int n, Cursor streamed) const {
    c.j += n;
    if (c.j < iters) return;
    if (c.tile >= dp_tiles)
      c = {c.tile + 1, 0};
    else
      c = c.tile + blocks < walked_dp_tiles() ? Cursor{c.tile + blocks, 0} : streamed;
  }
  // The segment that starts at the cursor (a segment's first iteration).
  __host__ __device__ StreamKSegment segment(const Cursor& c, int g) const {
    if (c.tile < dp_tiles) return {c.tile, 0, iters, -1};
    return next_in(iters, dp_tiles, g, c.tile - dp_tiles, c.j, begin(g + 1));
  }

  // Floats of workspace the launch needs: a slot of bm x bn per possible partial, or none when
  // no tile is split.
  __host__ __device__ long long workspace_floats(int bm, int bn) const {
    for (long long s = 0; s < sk_tiles(); ++s)
      if (split(s)) return (long long)slots() * bm * bn;
    return 0;
  }
};

}  // namespace occtune::kernels
