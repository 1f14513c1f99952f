// Family "repacked" (issue #18: the misaligned fast path). When K or a leading dimension is not
// a multiple of 4, or a base is not 16-byte aligned, the tile kernels load those operands
// element by element. A repacked variant first copies such operands into its workspace with
// the leading dimension padded to a multiple of 4 and K zero-padded to one, then launches an
// already registered variant (its "inner") on the copies, which takes its float4 paths.
// Why a copy pass rather than realigning loads inside the kernels: docs/PERFORMANCE.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/gemm_entry.cuh"
#include "kernels/tile_core.cuh"

namespace occtune::kernels::repack {

// Regions of the workspace start 256 bytes apart (cudaMalloc's alignment), so every copy and
// the inner variant's own workspace are 16-byte aligned whenever the workspace is.
inline constexpr std::size_t kRegionFloats = 64;

__host__ __device__ inline int round4(int v) { return (v + 3) / 4 * 4; }
// A copy's leading dimension: its row length rounded up to a multiple of 4, at least 4.
__host__ __device__ inline int padded_ld(int cols) { return cols > 4 ? round4(cols) : 4; }

// Whether an operand can stay where it is: 16-byte base and a leading dimension the float4
// paths of the tile kernels accept.
inline bool usable_in_place(const float* p, int ld) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0 && ld % 4 == 0;
}

// One stored operand (rows x cols at src, leading dimension ld) copied into dst (dst_rows x
// dst_ld, zero outside the source). dst == nullptr: the operand is used in place.
struct Job {
  const float* src = nullptr;
  float* dst = nullptr;
  int rows = 0, cols = 0, ld = 0;
  int dst_rows = 0, dst_ld = 0;
  __host__ __device__ long long items() const {  // float4 groups of dst
    return dst ? (long long)dst_rows * (dst_ld / 4) : 0;
  }
};

struct StoredDims {
  int rows, cols;
};
inline StoredDims stored_a(Layout l, int m, int k) {
  return transposes_a(l) ? StoredDims{k, m} : StoredDims{m, k};
}
inline StoredDims stored_b(Layout l, int n, int k) {
  return transposes_b(l) ? StoredDims{n, k} : StoredDims{k, n};
}
inline std::size_t copy_floats(StoredDims d) {
  const std::size_t f = std::size_t(d.rows) * std::size_t(padded_ld(d.cols));
  return (f + kRegionFloats - 1) / kRegionFloats * kRegionFloats;
}

// The bytes in front of the inner variant's workspace: room for copies of both operands with K
// rounded up to a multiple of 4 (what a launch of this shape may need, whatever its alignment).
inline std::size_t operand_bytes(Layout l, int m, int n, int k) {
  const int kp = round4(k);
  return (copy_floats(stored_a(l, m, kp)) + copy_floats(stored_b(l, n, kp))) * sizeof(float);
}

struct Plan {
  Job a, b;        // the copies to make first (either may be empty)
  GemmArgs inner;  // what the inner variant computes on: the copies, K padded, the rest of p
};

// The copies a launch of `p` needs and the arguments of the inner launch. When K is not a
// multiple of 4 both operands are copied, since the zero padding of K must exist in both (the
// inner variant runs with K rounded up: the extra products are 0 * 0); otherwise only an
// operand whose base or leading dimension is misaligned. p.workspace must hold
// operand_bytes(l, m, n, k) and be 16-byte aligned; the inner variant's workspace follows.
inline Plan plan(Layout l, const GemmArgs& p) {
  const int kp = round4(p.k);
  const bool pad_k = kp != p.k;
  Plan out;
  out.inner = p;
  out.inner.k = kp;
  float* at = p.workspace;
  const StoredDims a_src = stored_a(l, p.m, p.k), a_dst = stored_a(l, p.m, kp);
  if (pad_k || !usable_in_place(p.a, p.lda)) {
    out.a = {p.a, at, a_src.rows, a_src.cols, p.lda, a_dst.rows, padded_ld(a_dst.cols)};
    out.inner.a = at;
    out.inner.lda = out.a.dst_ld;
  }
  at += copy_floats(a_dst);
  const StoredDims b_src = stored_b(l, p.n, p.k), b_dst = stored_b(l, p.n, kp);
  if (pad_k || !usable_in_place(p.b, p.ldb)) {
    out.b = {p.b, at, b_src.rows, b_src.cols, p.ldb, b_dst.rows, padded_ld(b_dst.cols)};
    out.inner.b = at;
    out.inner.ldb = out.b.dst_ld;
  }
  const std::size_t front = operand_bytes(l, p.m, p.n, p.k);
  out.inner.workspace = p.workspace + front / sizeof(float);
  out.inner.workspace_bytes = p.workspace_bytes > front ? p.workspace_bytes - front : 0;
  return out;
}

// The copy pass (issue #18, docs/PERFORMANCE.md "repacked"): a block of kCopyWarps warps copies
// a tile of kCopyBlockRows rows x kCopySegment columns of dst, each warp kCopyRowsPerWarp rows
// of it. A warp reads a row segment with 4-byte loads at consecutive addresses (coalesced
// whatever the row's alignment), stages it in shared memory, and writes it back as 16-byte
// stores; its rows are independent loads in flight together. The tile's position is one
// division per block, not per element.
inline constexpr int kCopyWarps = 8;
inline constexpr int kCopyThreads = 32 * kCopyWarps;
inline constexpr int kCopyRowsPerWarp = 4;
inline constexpr int kCopySegment = 128;  // floats: one float4 per lane
inline constexpr int kCopyBlockRows = kCopyWarps * kCopyRowsPerWarp;
inline constexpr int kCopyTileFloats = kCopyBlockRows * kCopySegment;  // 16 KiB of shared memory

// The blocks of a copy: one per tile of dst, none when the operand is used in place.
__host__ __device__ inline long long copy_blocks(const Job& j) {
  if (!j.dst) return 0;
  return (long long)((j.dst_ld + kCopySegment - 1) / kCopySegment) *
         ((j.dst_rows + kCopyBlockRows - 1) / kCopyBlockRows);
}

// Tile `index` of a copy (row-major over dst's tiles) with block (32, kCopyWarps): every
// element of the tile inside dst is written, zero where the source has none. `smem` holds
// kCopyTileFloats floats, 16-byte aligned. Every thread reaches the one barrier.
__device__ inline void copy_tile(const Job& j, unsigned index, float* smem) {
  const unsigned segments = unsigned((j.dst_ld + kCopySegment - 1) / kCopySegment);
  const int c0 = int(index % segments) * kCopySegment;
  const int r0 = int(index / segments) * kCopyBlockRows + int(threadIdx.y);
  const int lane = int(threadIdx.x);
  float* staged = smem + int(threadIdx.y) * kCopyRowsPerWarp * kCopySegment;  // this warp's
  float v[kCopyRowsPerWarp][4];
  OCCTUNE_UNROLL
  for (int i = 0; i < kCopyRowsPerWarp; ++i) {
    const int r = r0 + i * kCopyWarps;
    const float* src = j.src + std::size_t(r < j.rows ? r : 0) * std::size_t(j.ld);
    OCCTUNE_UNROLL
    for (int q = 0; q < 4; ++q) {
      const int c = c0 + lane + 32 * q;
      v[i][q] = r < j.rows && c < j.cols ? load_readonly(src + c) : 0.0f;
    }
  }
  OCCTUNE_UNROLL
  for (int i = 0; i < kCopyRowsPerWarp; ++i) {
    OCCTUNE_UNROLL
    for (int q = 0; q < 4; ++q) staged[i * kCopySegment + lane + 32 * q] = v[i][q];
  }
  __syncthreads();
  OCCTUNE_UNROLL
  for (int i = 0; i < kCopyRowsPerWarp; ++i) {
    const int r = r0 + i * kCopyWarps, c = c0 + 4 * lane;
    if (r < j.dst_rows && c < j.dst_ld)
      tile::store4(j.dst + std::size_t(r) * std::size_t(j.dst_ld) + c,
                   tile::load4(staged + i * kCopySegment + 4 * lane));
  }
}

// One block of the copy kernel, which copies both operands in one launch: blocks
// [0, blocks_a) are a's tiles, the rest b's. Two calls rather than a selected reference: a
// reference to one of two kernel parameters puts both in local memory.
__device__ inline void copy_block(const Job& a, const Job& b, unsigned blocks_a, float* smem) {
  if (blockIdx.x < blocks_a)
    copy_tile(a, blockIdx.x, smem);
  else
    copy_tile(b, blockIdx.x - blocks_a, smem);
}

}  // namespace occtune::kernels::repack

namespace occtune::kernels {

// The registered repacked variants (kernels/repacked.cu): each names an inner variant, which
// must be registered by its own family. Chosen for the shapes of issue #18 that are misaligned:
// the large-square register-blocked winner (4097^3), its medium 64x128 tile, the split-K tile
// that wins 1000-1024^3 and 3001x1000x4097, and the stream-K tile that wins 1025^3, 2049^3 and
// 698x2077x4461; wave 8's mid-size tiles (the fbuf-2 64x128 tile, data-parallel and on 2 and 4
// slices, and the 64x64 tile on 2 slices: 0.91-1.03x cuBLAS at 1024^3, 0.60-0.77x at 1025^3
// with element loads; docs/PERFORMANCE.md "repacked"); the two stream-K tiles of the late
// session (64x64, and 64x128 with fbuf 2) for the misaligned mid sizes; on sm_90 the tma
// configurations that win 4096^3-8192^3, 2048^3 and the under-filled mid sizes (their
// architecture rule carried over); in nt, tn and tt the two register-blocked tiles registered
// there. No kernel is compiled for them: a repacked variant launches the inner variant's kernel.
#define OCCTUNE_REPACKED_VARIANTS(X) \
  OCCTUNE_REPACKED_TILE_VARIANTS(X)  \
  OCCTUNE_REPACKED_TMA_VARIANTS(X)

// The inner variants the host emulator of the unit tests can also run (every one but tma's).
#define OCCTUNE_REPACKED_TILE_VARIANTS(X)                   \
  X(RegBlocked<128, 256, 8, 16, 8, 64, 64, 0, 2, 2>)        \
  X(RegBlocked<64, 128, 8, 8, 8, 32, 64, 0, 2, 2>)          \
  X(SplitK<128, 128, 8, 8, 8, 32, 64, 3, 1, 4, 0>)          \
  X(StreamK<128, 128, 8, 8, 8, 32, 64, 3, 1, 0, 2, 1>)      \
  X(PipelinedFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 0>)        \
  X(SplitKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 2, 0>)        \
  X(SplitKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 4, 0>)        \
  X(SplitK<64, 64, 8, 8, 4, 32, 32, 3, 1, 2, 0>)            \
  X(StreamK<64, 64, 8, 8, 4, 32, 32, 3, 1, 0, 8, 1>)        \
  X(StreamKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 0, 4, 1>)    \
  X(NT<RegBlocked<128, 256, 8, 16, 8, 64, 64, 0, 2, 2>>)    \
  X(TN<RegBlocked<128, 256, 8, 16, 8, 64, 64, 0, 2, 2>>)    \
  X(TT<RegBlocked<128, 256, 8, 16, 8, 64, 64, 0, 2, 2>>)    \
  X(NT<RegBlocked<64, 128, 8, 8, 8, 32, 64, 0, 2, 2>>)      \
  X(TN<RegBlocked<64, 128, 8, 8, 8, 32, 64, 0, 2, 2>>)      \
  X(TT<RegBlocked<64, 128, 8, 8, 8, 32, 64, 0, 2, 2>>)

// sm_90 only (kernels/tma.cuh): the two unrolled data-parallel tiles, the stream-K hybrid that
// wins the under-filled mid-size shapes and the whole waves with the partial one streamed
// (squares just past a multiple of the waves, 4097^3; docs/PERFORMANCE.md "tma"); their GPU
// test: tests/gpu/test_tma_family.cu.
#define OCCTUNE_REPACKED_TMA_VARIANTS(X)                                              \
  X(TmaUnroll<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>, 16>)               \
  X(TmaUnroll<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>, 8>)                \
  X(TmaStreamK<TmaUnroll<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>, 8>, 1>) \
  X(TmaWavesThenStreamK<TmaUnroll<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>, 16>, 8>)

// The symbol of the repacked variant of `inner` (inner's symbol, as registered).
inline std::string repacked_symbol(const std::string& inner) { return "Repacked<" + inner + ">"; }

}  // namespace occtune::kernels
