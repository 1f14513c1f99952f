// The stream-K decomposition (kernels/streamk_plan.cuh) over many tile counts, K depths and
// grid sizes, walked exactly as the kernel walks it: every (tile, K slab) iteration is computed
// by exactly one block; the blocks' loads differ by at most one iteration (plus whole tiles in
// the hybrid); a tile computed by one block is never given a slot; the partials of a split tile
// have distinct slots inside the workspace and are what the fix-up adds, in iteration order.
// The cursor of the tma family's stream-K kernel (StreamKPlan::Cursor), walked per segment as
// its consumers walk it and per iteration as its producer does, gives the same walk. The tail
// plan (StreamKPlan::make_tail: the whole waves in a data-parallel launch of their own, the
// partial wave streamed) covers every iteration together with that launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernels/streamk_plan.cuh"

namespace occtune {
namespace {

using kernels::StreamKPlan;

struct Segment {
  int block;
  long long tile;    // over all tiles
  long long j0, j1;  // iterations of the tile
  int slot;          // -1: written to C whole
};

// How the tiles are shared: all streamed, the hybrid (whole waves but the last data-parallel in
// the persistent kernel), or the tail (whole waves in a data-parallel launch of their own).
enum class Mode { kStreamed, kHybrid, kTail };

StreamKPlan make_plan(int m, int n, int k, int bm, int bn, int bk, int blocks, Mode mode) {
  if (mode == Mode::kTail) return StreamKPlan::make_tail(m, n, k, bm, bn, bk, blocks);
  return StreamKPlan::make(m, n, k, bm, bn, bk, blocks, mode == Mode::kHybrid);
}

// The kernel's walk (StreamKIn::run): data-parallel tiles g, g + blocks, ..., then the range
// [begin(g), begin(g + 1)) in the segments StreamKPlan::next cuts it into. A tail plan's blocks
// walk no data-parallel tile (another launch computes them).
std::vector<Segment> walk(const StreamKPlan& p) {
  std::vector<Segment> out;
  for (int g = 0; g < p.blocks; ++g) {
    for (long long t = g; t < p.walked_dp_tiles(); t += p.blocks)
      out.push_back({g, t, 0, p.iters, -1});
    const long long end = p.begin(g + 1);
    for (long long it = p.begin(g); it < end;) {
      const auto s = StreamKPlan::next(p.iters, p.dp_tiles, g, it, end);
      out.push_back({g, s.tile, s.j0, s.j1, s.slot});
      it += s.j1 - s.j0;
    }
  }
  return out;
}

// Block g's walk as the tma family's stream-K kernel takes it (kernels/tma.cuh): the consumers
// segment by segment (segment(), then advance() by its length), the producer one iteration at a
// time (advance() by 1), both from first() for steps(g) iterations. Both must be the walk above:
// the same segments, and iteration by iteration the same (tile, j), or the producer would fetch
// slabs of one tile while the consumers accumulate and store another.
void check_cursor(const StreamKPlan& p, const std::string& what) {
  const auto segments = walk(p);
  std::size_t next = 0;
  for (int g = 0; g < p.blocks; ++g) {
    const StreamKPlan::Cursor streamed = p.streamed(g);
    const long long steps = p.steps(g);
    StreamKPlan::Cursor at = p.first(g, streamed), one = at;
    long long iterations = 0;
    for (long long t = 0; t < steps;) {
      ASSERT_LT(next, segments.size()) << what << ": block " << g << " walks past the plan";
      const Segment& want = segments[next++];
      const kernels::StreamKSegment seg = p.segment(at, g);
      ASSERT_EQ(want.block, g) << what;
      ASSERT_EQ(seg.tile, want.tile) << what << ": block " << g << " step " << t;
      ASSERT_EQ(seg.j0, want.j0) << what << ": block " << g << " step " << t;
      ASSERT_EQ(seg.j1, want.j1) << what << ": block " << g << " step " << t;
      ASSERT_EQ(seg.slot, want.slot) << what << ": block " << g << " step " << t;
      for (long long j = seg.j0; j < seg.j1; ++j, ++iterations) {
        ASSERT_EQ(one.tile, seg.tile) << what << ": block " << g << " iteration " << iterations;
        ASSERT_EQ(one.j, j) << what << ": block " << g << " iteration " << iterations;
        p.advance(one, 1, streamed);
      }
      const int length = int(seg.j1 - seg.j0);
      ASSERT_GT(length, 0) << what;
      t += length;
      p.advance(at, length, streamed);
      ASSERT_EQ(at.tile, one.tile) << what;
      ASSERT_EQ(at.j, one.j) << what;
    }
    EXPECT_EQ(iterations, steps) << what << ": block " << g;
  }
  EXPECT_EQ(next, segments.size()) << what << ": segments no cursor walks";
}

const char* name(Mode mode) {
  return mode == Mode::kTail ? ", tail" : mode == Mode::kHybrid ? ", hybrid" : "";
}

std::string describe(int tiles_m, int tiles_n, int k, int blocks, Mode mode) {
  return std::to_string(tiles_m) + "x" + std::to_string(tiles_n) + " tiles, K " +
         std::to_string(k) + ", " + std::to_string(blocks) + " blocks" + name(mode);
}

void check(int tiles_m, int tiles_n, int k, int blocks, Mode mode) {
  constexpr int kBm = 64, kBn = 32, kBk = 8;
  const std::string what = describe(tiles_m, tiles_n, k, blocks, mode);
  const bool hybrid = mode == Mode::kHybrid;
  // Ragged edges: the last tile row and column are partial.
  const int m = tiles_m * kBm - 3, n = tiles_n * kBn - 1;
  const StreamKPlan p = make_plan(m, n, k, kBm, kBn, kBk, blocks, mode);
  ASSERT_EQ(p.tiles, (long long)tiles_m * tiles_n) << what;
  ASSERT_EQ(p.iters, k > 0 ? (k + kBk - 1) / kBk : 1) << what;
  ASSERT_EQ(p.dp_tiles % blocks, 0) << what;
  ASSERT_EQ(p.dp_elsewhere, mode == Mode::kTail) << what;

  auto segments = walk(p);
  // The tail's whole waves: the data-parallel launch's blocks (-1 here), a tile each, whole.
  if (mode == Mode::kTail)
    for (long long t = 0; t < p.dp_tiles; ++t) segments.push_back({-1, t, 0, p.iters, -1});
  // Every iteration of every tile exactly once.
  std::map<long long, std::vector<Segment>> by_tile;
  for (auto& s : segments) by_tile[s.tile].push_back(s);
  ASSERT_EQ((long long)by_tile.size(), p.tiles) << what;
  const long long floats = p.workspace_floats(kBm, kBn);
  std::set<int> slots;
  for (auto& [tile, parts] : by_tile) {
    // Segments come out block by block; the fix-up sums in block order, which must be the
    // order of the iterations.
    long long next = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      EXPECT_EQ(parts[i].j0, next) << what << ": tile " << tile << " has a gap or overlap";
      EXPECT_LT(parts[i].j0, parts[i].j1) << what << ": an empty segment";
      if (i > 0) {
        EXPECT_GT(parts[i].block, parts[i - 1].block) << what;
      }
      next = parts[i].j1;
    }
    EXPECT_EQ(next, p.iters) << what << ": tile " << tile << " is not covered to its last slab";
    const bool streamed = tile >= p.dp_tiles;
    if (parts.size() == 1) {
      EXPECT_EQ(parts[0].slot, -1) << what << ": a tile of one block goes straight to C";
      if (streamed) {
        EXPECT_FALSE(p.split(tile - p.dp_tiles)) << what;
      }
      continue;
    }
    ASSERT_TRUE(streamed) << what << ": a data-parallel tile was split";
    const long long s = tile - p.dp_tiles;
    EXPECT_TRUE(p.split(s)) << what;
    // The fix-up's view: the owners of the first and last iteration and every block between
    // them, each with the slot the plan gives it.
    const int g0 = p.owner(s * p.iters), g1 = p.owner((s + 1) * p.iters - 1);
    ASSERT_EQ(std::size_t(g1 - g0 + 1), parts.size()) << what;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      EXPECT_EQ(parts[i].block, g0 + int(i)) << what;
      EXPECT_EQ(parts[i].slot, p.slot(parts[i].block, s)) << what;
      EXPECT_GE(parts[i].slot, 0) << what;
      EXPECT_LT(parts[i].slot, p.slots()) << what;
      EXPECT_TRUE(slots.insert(parts[i].slot).second) << what << ": slot used twice";
      EXPECT_LE((long long)(parts[i].slot + 1) * kBm * kBn, floats) << what;
    }
  }
  if (slots.empty()) {
    EXPECT_EQ(floats, 0) << what << ": workspace asked for nothing split";
  }

  // Balance: stream-K shares differ by at most one iteration, data-parallel tiles are equal.
  std::vector<long long> load(std::size_t(p.blocks), 0);
  for (auto& s : segments)
    if (s.tile >= p.dp_tiles) load[std::size_t(s.block)] += s.j1 - s.j0;
  const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  EXPECT_LE(*hi - *lo, 1) << what;
  // The hybrid streams between one and two tiles per block once there is a full wave.
  if (hybrid && p.tiles >= blocks && p.tiles % blocks != 0) {
    EXPECT_GE(p.sk_tiles(), blocks) << what;
    EXPECT_LT(p.sk_tiles(), 2 * blocks) << what;
  }
  if (hybrid && p.tiles % blocks == 0) {
    EXPECT_EQ(p.sk_tiles(), 0) << what;
  }
  if (mode == Mode::kStreamed) {
    EXPECT_EQ(p.dp_tiles, 0) << what;
  }
  // The tail streams only the partial wave, every one of its blocks with work.
  if (mode == Mode::kTail) {
    EXPECT_EQ(p.dp_tiles, p.tiles / blocks * blocks) << what;
    EXPECT_LT(p.sk_tiles(), blocks) << what;
    EXPECT_LE(p.blocks, blocks) << what;
    for (int g = 0; g < p.blocks && p.sk_tiles() > 0; ++g) {
      EXPECT_GT(p.steps(g), 0) << what << ": block " << g << " idles";
    }
  }
  check_cursor(p, what);
}

TEST(StreamKPlan, EveryIterationOnceSlotsDistinctFixupInOrder) {
  for (Mode mode : {Mode::kStreamed, Mode::kHybrid, Mode::kTail})
    for (int tm : {1, 2, 3, 7, 12})
      for (int tn : {1, 2, 5, 11})
        for (int k : {0, 1, 8, 9, 64, 100, 1000})
          for (int blocks : {1, 2, 3, 4, 7, 13, 132, 264}) check(tm, tn, k, blocks, mode);
}

// The wave-quantisation case the family is for: 144 tiles of 128 x 128 on 132 SMs (1536^2),
// where a data-parallel launch runs a second wave of 12 tiles on 12 SMs.
TEST(StreamKPlan, OneAndANineteenthWavesAreSharedEvenly) {
  const StreamKPlan pure = StreamKPlan::make(1536, 1536, 1536, 128, 128, 8, 132, false);
  EXPECT_EQ(pure.tiles, 144);
  EXPECT_EQ(pure.iters, 192);
  EXPECT_EQ(pure.dp_tiles, 0);
  EXPECT_EQ(pure.per, 144 * 192 / 132);  // 209 or 210 slabs each, 1.09 tiles
  const StreamKPlan hybrid = StreamKPlan::make(1536, 1536, 1536, 128, 128, 8, 132, true);
  EXPECT_EQ(hybrid.dp_tiles, 0);  // one full wave only: it joins the partial one
  const StreamKPlan big = StreamKPlan::make(4096, 4096, 4096, 128, 128, 8, 132, true);
  EXPECT_EQ(big.tiles, 1024);                 // 7 full waves and 100 tiles
  EXPECT_EQ(big.dp_tiles, 6 * 132);           // six waves data-parallel
  EXPECT_EQ(big.sk_tiles(), 132 + 100);       // the seventh and the rest streamed
  EXPECT_EQ(StreamKPlan::grid(1, 1, 1, 128, 128, 8, 264), 1);  // never more blocks than work
  EXPECT_EQ(StreamKPlan::grid(1536, 1536, 1536, 128, 128, 8, 264), 264);
}

// The tma family's stream-K configurations (kernels/tma.cu: 128 x 256 tiles, BK 32 or 16, one
// block per SM) on an H100's 132 SMs, at the shapes whose data-parallel launch leaves SMs idle
// (docs/PERFORMANCE.md "tma"): every SM gets work, stream-K shares differ by at most one slab,
// and the cursors walk the plan.
TEST(StreamKPlan, TmaShapesFillAnH100) {
  const int shapes[][3] = {{1536, 1536, 4096}, {1024, 1024, 1024}, {2048, 2048, 2048},
                           {3000, 1000, 4096}, {700, 2076, 4460},  {4096, 4096, 4096},
                           {1, 4, 4},          {17, 20, 36},       {4100, 4100, 0}};
  for (const auto& s : shapes)
    for (int bk : {32, 16})
      for (Mode mode : {Mode::kStreamed, Mode::kHybrid, Mode::kTail}) {
        const std::string what = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                                 std::to_string(s[2]) + " bk " + std::to_string(bk) + name(mode);
        const int blocks = StreamKPlan::grid(s[0], s[1], s[2], 128, 256, bk, 132);
        const StreamKPlan p = make_plan(s[0], s[1], s[2], 128, 256, bk, blocks, mode);
        EXPECT_EQ(blocks, std::min<long long>(132, p.tiles * p.iters)) << what;
        long long lo = p.steps(0), hi = lo, all = 0;
        for (int g = 0; g < p.blocks && (mode != Mode::kTail || p.sk_tiles() > 0); ++g) {
          EXPECT_GT(p.steps(g), 0) << what << ": block " << g << " idles";
          lo = std::min(lo, p.steps(g));
          hi = std::max(hi, p.steps(g));
          all += p.steps(g);
        }
        // The tail's blocks walk what the waves' launch (dp_tiles whole tiles) leaves.
        const long long waves = mode == Mode::kTail ? p.dp_tiles * p.iters : 0;
        EXPECT_EQ(all + waves, p.tiles * p.iters) << what;
        EXPECT_LE(hi - lo, 1) << what;  // the hybrid's whole waves are the same for all
        check_cursor(p, what);
      }
  // 1536 x 1536 x 4096: 72 tiles of 128 x 256 for 132 SMs, so no whole wave: the hybrid streams
  // everything too, 128 slabs a tile shared as 69 or 70 slabs a block.
  const StreamKPlan p = StreamKPlan::make(1536, 1536, 4096, 128, 256, 32, 132, true);
  EXPECT_EQ(p.tiles, 72);
  EXPECT_EQ(p.dp_tiles, 0);
  EXPECT_EQ(p.per, 72 * 128 / 132);
  EXPECT_EQ(p.workspace_floats(128, 256), (2 * 132 - 2) * 128 * 256);
  // 4096^3: 512 tiles, 3 full waves and 116: two waves data-parallel, 248 tiles streamed;
  // the tail streams the 116 only, 112 or 113 slabs a block, after three waves of their own.
  const StreamKPlan big = StreamKPlan::make(4096, 4096, 4096, 128, 256, 32, 132, true);
  EXPECT_EQ(big.dp_tiles, 2 * 132);
  EXPECT_EQ(big.sk_tiles(), 248);
  const StreamKPlan tail = StreamKPlan::make_tail(4096, 4096, 4096, 128, 256, 32, 132);
  EXPECT_EQ(tail.dp_tiles, 3 * 132);
  EXPECT_EQ(tail.sk_tiles(), 116);
  EXPECT_EQ(tail.blocks, 132);
  EXPECT_EQ(tail.per, 116 * 128 / 132);
  EXPECT_EQ(tail.steps(0), 113);
  // Whole waves only (132 tiles of 1536 x 2816): nothing is streamed, no workspace; a tail of
  // fewer iterations than SMs (K = 32: 116 iterations) runs on as many blocks.
  const StreamKPlan whole = StreamKPlan::make_tail(1536, 2816, 4096, 128, 256, 32, 132);
  EXPECT_EQ(whole.dp_tiles, 132);
  EXPECT_EQ(whole.sk_tiles(), 0);
  EXPECT_EQ(whole.workspace_floats(128, 256), 0);
  const StreamKPlan shallow = StreamKPlan::make_tail(4096, 4096, 32, 128, 256, 32, 132);
  EXPECT_EQ(shallow.blocks, 116);
  EXPECT_EQ(shallow.workspace_floats(128, 256), 0);  // one iteration a block: no tile split
}

}  // namespace
}  // namespace occtune
