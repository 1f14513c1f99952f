// The row-dot kernel of family "skinny" (issue #18): C = A B for a small N (up to 16) with A
// large and contiguous along K (nn and nt), the shape of a GEMV with N right-hand sides. Lanes
// read A's rows straight into registers, 16 coalesced bytes a lane, and meet B in L1 rather than
// in a shared-memory ring: there is no barrier in the main loop, so nothing but registers limits
// the bytes in flight. LK lanes share a row (each takes every LK-th float4 of it, so that a
// warp's load is 32 / LK rows of 16 * LK bytes), a lane holds R rows, and KW warps split K
// between them; the LK lanes' sums meet by warp shuffles in a fixed order, the KW warps' sums in
// shared memory in warp order: the result is deterministic. NC columns of C a block (grid y
// covers wider N). Correct for any M, N, K, leading dimension and alignment: A's rows that are
// not 16-byte aligned, and K's last partial float4, are read element by element.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gemm_entry.cuh"
#include "kernels/skinny.cuh"
#include "kernels/tile_core.cuh"

namespace occtune::kernels {

// op(B)'s rows k .. k + 3 at columns n0 .. n0 + NC - 1, zero outside the matrix, as b[j][c].
// nn: 4 * N contiguous floats when B is dense (ldb = N) and one block covers N = NC, or N = 3
// on 4-column tiles (kDense3: three float4s; B's rows of 12 bytes are not 16-byte aligned, and
// element loads left 8192x3x8192 at 75% of HBM where N = 4 read 82%); NC / 4 float4s a row
// when rows are 16-byte aligned; nt (B stored N x K): a float4 a column when its stored rows are
// aligned; else element loads. All through L1: every lane of the block reads them, so that
// after the first warp they come from L1 (or L2), not HBM.
template <Layout L, int NC>
struct RowDotSmallOperand {
  enum class Path { kDense, kDense3, kRows, kElements };
  __device__ static Path path(const GemmArgs& p, int n0) {
    const bool aligned = (reinterpret_cast<std::uintptr_t>(p.b) & 15u) == 0;
    if constexpr (transposes_b(L))
      return aligned && p.ldb % 4 == 0 ? Path::kRows : Path::kElements;
    if (aligned && p.ldb == NC && p.n == NC) return Path::kDense;
    if (NC == 4 && aligned && p.ldb == 3 && p.n == 3) return Path::kDense3;
    if (NC % 4 == 0 && aligned && p.ldb % 4 == 0 && n0 + NC <= p.n) return Path::kRows;
    return Path::kElements;
  }
  __device__ __forceinline__ static void load(const GemmArgs& p, Path path, int k, int n0,
                                              float (&b)[4][NC]) {
    if constexpr (transposes_b(L)) {
      if (path == Path::kRows && k + 3 < p.k) {
        OCCTUNE_SKINNY_UNROLL
        for (int c = 0; c < NC; ++c) {
          // Columns past N read column n0 (inside the matrix) and are zeroed.
          const int col = n0 + c < p.n ? n0 + c : n0;
          const float4 v =
              ldg4(reinterpret_cast<const float4*>(p.b + std::size_t(col) * p.ldb + k));
          const bool in = n0 + c < p.n;
          b[0][c] = in ? v.x : 0.0f, b[1][c] = in ? v.y : 0.0f;
          b[2][c] = in ? v.z : 0.0f, b[3][c] = in ? v.w : 0.0f;
        }
        return;
      }
    } else if (path == Path::kDense && k + 3 < p.k) {
      load_dense<NC>(p, k, b);
      return;
    } else if (NC == 4 && path == Path::kDense3 && k + 3 < p.k) {
      load_dense<3>(p, k, b);
      return;
    } else if (NC % 4 == 0 && path == Path::kRows && k + 3 < p.k) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < 4; ++j) {
        const float4* q = reinterpret_cast<const float4*>(p.b + std::size_t(k + j) * p.ldb + n0);
        OCCTUNE_SKINNY_UNROLL
        for (int i = 0; i < NC / 4; ++i) {
          const float4 v = ldg4(q + i);
          b[j][4 * i] = v.x, b[j][4 * i + 1] = v.y, b[j][4 * i + 2] = v.z, b[j][4 * i + 3] = v.w;
        }
      }
      return;
    }
    OCCTUNE_SKINNY_UNROLL
    for (int j = 0; j < 4; ++j) {
      OCCTUNE_SKINNY_UNROLL
      for (int c = 0; c < NC; ++c) {
        const std::size_t at = transposes_b(L) ? std::size_t(n0 + c) * p.ldb + (k + j)
                                               : std::size_t(k + j) * p.ldb + (n0 + c);
        b[j][c] = k + j < p.k && n0 + c < p.n ? load_readonly(p.b + at) : 0.0f;
      }
    }
  }
  // B dense with N = DN <= NC columns (ldb = DN): rows k .. k + 3 are the 4 * DN floats from
  // k * DN, DN float4s (16-byte aligned: k is a multiple of 4); columns DN .. NC - 1 are zero.
  template <int DN>
  __device__ __forceinline__ static void load_dense(const GemmArgs& p, int k, float (&b)[4][NC]) {
    const float4* q = reinterpret_cast<const float4*>(p.b + std::size_t(k) * DN);
    OCCTUNE_SKINNY_UNROLL
    for (int j = 0; j < 4; ++j) {
      OCCTUNE_SKINNY_UNROLL
      for (int c = DN; c < NC; ++c) b[j][c] = 0.0f;
    }
    OCCTUNE_SKINNY_UNROLL
    for (int i = 0; i < DN; ++i) {
      const float4 v = ldg4(q + i);
      const float f[4] = {v.x, v.y, v.z, v.w};
      OCCTUNE_SKINNY_UNROLL
      for (int t = 0; t < 4; ++t) b[(4 * i + t) / DN][(4 * i + t) % DN] = f[t];
    }
  }
  __device__ __forceinline__ static float4 ldg4(const float4* q) {
    OCCTUNE_EMU_CHECK_ALIGNED(q, 16);
#ifdef __CUDA_ARCH__
    return __ldg(q);
#else
    return *q;
#endif
  }
};

// A's rows, R a lane (rows past M read row M - 1 and are never written), LK lanes a row, KW
// warps along K, NC columns of C, U float4s of each row a lane loads before it uses any.
// D = 0: those loads go into registers, so the registers bound the bytes in flight; D >= 2:
// they go by cp.async into a ring of D batches in shared memory, each lane's own slots, so
// that D - 1 batches stay in flight while the lane works on one and registers hold only that.
template <Layout L, int R, int LK, int NC, int KW, int U, int D = 0>
struct SkinnyRowDotIn {
  template <Layout L2>
  using In = SkinnyRowDotIn<L2, R, LK, NC, KW, U, D>;
  static_assert(!transposes_a(L), "row-dot: A contiguous along K (nn, nt)");
  static_assert(R >= 1 && (LK == 1 || LK == 2 || LK == 4 || LK == 8 || LK == 16 || LK == 32) &&
                    (KW == 1 || KW == 2 || KW == 4 || KW == 8) && NC >= 1 && NC <= 16 && U >= 1,
                "row-dot: LK lanes a row and KW warps along K divide a warp and a block");
  static_assert(D == 0 || D >= 2, "row-dot: no ring (D = 0) or a ring of at least 2 batches");
  static constexpr Layout kLayout = L;
  static constexpr int kMaxThreads = kSkinnyThreads;
  static constexpr int kRowLanes = 32 / LK;                // row groups in a warp
  static constexpr int kRowsPerWarp = kRowLanes * R;
  static constexpr int kTileM = kSkinnyWarps / KW * kRowsPerWarp;
  static constexpr int kTileN = NC;
  static constexpr int kOutputs = R * NC;  // a lane's sums
  static constexpr int kStep = 4 * LK * KW;  // K a pass of the row's lanes and warps covers
  // The template's arguments, for the registration (kernels/skinny.cu) to read from any layout,
  // and what the host emulator's harness reads of a skinny variant (no split, no workspace).
  static constexpr int kRows = R, kLanesPerRow = LK, kColumns = NC, kWarpsAlongK = KW, kUnroll = U,
                       kRing = D;
  static constexpr int kSplits = 1, kKTile = kStep;
  static constexpr bool kPipeVecA = false;
  static constexpr std::size_t workspace_bytes(long long, long long) { return 0; }
  // The KW warps' sums of a row group: [group][warp along K][row lane][output]; then (D > 0)
  // the ring, [batch][u][r][thread] float4s, so that a warp's copies and reads of one slot are
  // 512 consecutive bytes (no bank conflicts). The two never overlap: a lane may still read its
  // ring while another warp's lanes write their sums.
  static constexpr std::size_t kReduceBytes =
      KW == 1 ? 16 : std::size_t(kSkinnyWarps) * kRowLanes * kOutputs * sizeof(float);
  static constexpr std::size_t kRingOffset = (kReduceBytes + 15) / 16 * 16;
  static constexpr int kSlotFloat4s = U * R * kSkinnyThreads;  // one batch of the ring
  static constexpr std::size_t kSmemBytes =
      kRingOffset + std::size_t(D) * kSlotFloat4s * sizeof(float4);

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    using Small = RowDotSmallOperand<L, NC>;
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int kl = lane % LK, rl = lane / LK, group = warp / KW, along = warp % KW;
    const int row0 = int(blockIdx.y) * kTileM + (group * kRowLanes + rl) * R;
    const int n0 = int(blockIdx.x) * NC;
    const float* rows[R];
    OCCTUNE_SKINNY_UNROLL
    for (int r = 0; r < R; ++r)
      rows[r] = p.a + std::size_t(row0 + r < p.m ? row0 + r : p.m - 1) * std::size_t(p.lda);
    const bool vec = (reinterpret_cast<std::uintptr_t>(p.a) & 15u) == 0 && p.lda % 4 == 0;
    const auto path = Small::path(p, n0);
    float acc[R][NC];
    OCCTUNE_SKINNY_UNROLL
    for (int r = 0; r < R; ++r) {
      OCCTUNE_SKINNY_UNROLL
      for (int c = 0; c < NC; ++c) acc[r][c] = 0.0f;
    }
    // Whole batches (every float4 of U inside K) with 16-byte loads of A and B's loads of its
    // path fixed at compile time, then the rest one float4 at a time (a lane's last partial
    // batch, K's last partial float4, or rows that are not 16-byte aligned: element loads).
    int k0 = 4 * (kl + LK * along);
    if (vec) {
      using P = typename Small::Path;
      float4* ring = reinterpret_cast<float4*>(smem + kRingOffset);
      switch (path) {
        case P::kDense: k0 = whole_batches<P::kDense>(p, rows, k0, n0, acc, ring); break;
        case P::kDense3:
          if constexpr (NC == 4) k0 = whole_batches<P::kDense3>(p, rows, k0, n0, acc, ring);
          break;
        case P::kRows: k0 = whole_batches<P::kRows>(p, rows, k0, n0, acc, ring); break;
        default: k0 = whole_batches<P::kElements>(p, rows, k0, n0, acc, ring); break;
      }
    }
    for (; k0 < p.k; k0 += kStep) {
      float a[R][4];
      OCCTUNE_SKINNY_UNROLL
      for (int r = 0; r < R; ++r) {
        OCCTUNE_SKINNY_UNROLL
        for (int j = 0; j < 4; ++j) a[r][j] = k0 + j < p.k ? load_readonly(rows[r] + k0 + j) : 0.0f;
      }
      float b[4][NC];
      Small::load(p, path, k0, n0, b);
      add_quad(a, b, acc);
    }
    // The LK lanes of a row add their sums by a butterfly (lane ^ 1, ^ 2, ...): every lane ends
    // with the same sum, since each step adds the same two values in either lane.
    OCCTUNE_SKINNY_UNROLL
    for (int r = 0; r < R; ++r) {
      OCCTUNE_SKINNY_UNROLL
      for (int c = 0; c < NC; ++c) {
        OCCTUNE_SKINNY_UNROLL
        for (int o = 1; o < LK; o *= 2) acc[r][c] += skinny_shuffle(acc[r][c], lane ^ o);
      }
    }
    if constexpr (KW == 1) {
      emit_own(p, acc, kl, row0, n0);
    } else {
      float* part = reinterpret_cast<float*>(smem);
      float* mine = part + ((group * KW + along) * kRowLanes + rl) * kOutputs;
      OCCTUNE_SKINNY_UNROLL
      for (int e = 0; e < kOutputs; ++e)
        if (e % LK == kl) mine[e] = acc[e / NC][e % NC];
      __syncthreads();
      // Thread t of the block adds output e of row lane rl of group g over the KW warps, in
      // warp order.
      constexpr int kAll = kSkinnyWarps / KW * kRowLanes * kOutputs;
      for (int t = int(threadIdx.x); t < kAll; t += kSkinnyThreads) {
        const int e = t % kOutputs, slot = t / kOutputs;  // slot = g * kRowLanes + rl
        const int g = slot / kRowLanes, l = slot % kRowLanes;
        float sum = 0.0f;
        for (int w = 0; w < KW; ++w) sum += part[((g * KW + w) * kRowLanes + l) * kOutputs + e];
        emit(p, int(blockIdx.y) * kTileM + slot * R + e / NC, n0 + e % NC, sum);
      }
    }
  }

  // acc[r][c] += A(row r, k + j) * B(k + j, c) over the quad's four k.
  __device__ __forceinline__ static void add_quad(const float (&a)[R][4], const float (&b)[4][NC],
                                                  float (&acc)[R][NC]) {
    OCCTUNE_SKINNY_UNROLL
    for (int r = 0; r < R; ++r) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < 4; ++j) {
        OCCTUNE_SKINNY_UNROLL
        for (int c = 0; c < NC; ++c) acc[r][c] = fmaf(a[r][j], b[j][c], acc[r][c]);
      }
    }
  }

  // The main loop over batches whose U float4s of each row all lie inside K (A's rows 16-byte
  // aligned), through registers or the ring. Returns where the rest starts.
  template <typename RowDotSmallOperand<L, NC>::Path P>
  __device__ static int whole_batches(const GemmArgs& p, const float* const (&rows)[R], int k0,
                                      int n0, float (&acc)[R][NC], float4* ring) {
    if constexpr (D > 0)
      return ring_batches<P>(p, rows, k0, n0, acc, ring);
    else
      return register_batches<P>(p, rows, k0, n0, acc);
  }

  // D = 0: the loads of a batch issued before any is used.
  template <typename RowDotSmallOperand<L, NC>::Path P>
  __device__ static int register_batches(const GemmArgs& p, const float* const (&rows)[R], int k0,
                                         int n0, float (&acc)[R][NC]) {
    for (; k0 + kStep * (U - 1) + 3 < p.k; k0 += kStep * U) {
      float a[U][R][4];
      OCCTUNE_SKINNY_UNROLL
      for (int u = 0; u < U; ++u) {
        OCCTUNE_SKINNY_UNROLL
        for (int r = 0; r < R; ++r) {
          const float4 v = skinny_load4(rows[r] + k0 + kStep * u);
          a[u][r][0] = v.x, a[u][r][1] = v.y, a[u][r][2] = v.z, a[u][r][3] = v.w;
        }
      }
      OCCTUNE_SKINNY_UNROLL
      for (int u = 0; u < U; ++u) {
        float b[4][NC];
        RowDotSmallOperand<L, NC>::load(p, P, k0 + kStep * u, n0, b);
        add_quad(a[u], b, acc);
      }
    }
    return k0;
  }

  // D > 0: the same batches through the ring. Batch b goes into slot b % D, D - 1 batches ahead
  // of the one used; only this thread reads its slots, so its own wait is all the ordering
  // needed (no barrier), and a slot is refilled only after the FMAs that used it were issued.
  template <typename RowDotSmallOperand<L, NC>::Path P>
  __device__ static int ring_batches(const GemmArgs& p, const float* const (&rows)[R], int k0,
                                     int n0, float (&acc)[R][NC], float4* ring) {
    constexpr int kBatchK = kStep * U;
    const int last = p.k - 4 - kStep * (U - 1) - k0;  // batch b is whole if b * kBatchK <= last
    const int batches = last >= 0 ? last / kBatchK + 1 : 0;
    float4* mine = ring + threadIdx.x;
    const auto issue = [&](int b) {
      if (b < batches) {
        float4* slot = mine + (b % D) * kSlotFloat4s;
        OCCTUNE_SKINNY_UNROLL
        for (int u = 0; u < U; ++u) {
          OCCTUNE_SKINNY_UNROLL
          for (int r = 0; r < R; ++r)
            tile::copy_async<16, true, true>(
                reinterpret_cast<float*>(slot + (u * R + r) * kSkinnyThreads),
                rows[r] + k0 + b * kBatchK + kStep * u, 16);
        }
      }
      tile::copy_commit();  // an empty group past the last batch keeps the count in step
    };
    OCCTUNE_SKINNY_UNROLL
    for (int b = 0; b < D - 1; ++b) issue(b);
    for (int b = 0; b < batches; ++b) {
      issue(b + D - 1);
      tile::copy_wait<D - 1>();  // batch b has landed
      const float4* slot = mine + (b % D) * kSlotFloat4s;
      OCCTUNE_SKINNY_UNROLL
      for (int u = 0; u < U; ++u) {
        float a[R][4];
        OCCTUNE_SKINNY_UNROLL
        for (int r = 0; r < R; ++r) {
          const float4 v = slot[(u * R + r) * kSkinnyThreads];
          a[r][0] = v.x, a[r][1] = v.y, a[r][2] = v.z, a[r][3] = v.w;
        }
        float b4[4][NC];
        RowDotSmallOperand<L, NC>::load(p, P, k0 + b * kBatchK + kStep * u, n0, b4);
        add_quad(a, b4, acc);
      }
    }
    tile::copy_wait<0>();  // only empty groups are left
    return k0 + batches * kBatchK;
  }

  // KW = 1: lane kl writes its row group's outputs kl, kl + LK, ... (every lane holds them all).
  __device__ static void emit_own(const GemmArgs& p, const float (&acc)[R][NC], int kl, int row0,
                                  int n0) {
    OCCTUNE_SKINNY_UNROLL
    for (int e = 0; e < kOutputs; ++e)
      if (e % LK == kl) emit(p, row0 + e / NC, n0 + e % NC, acc[e / NC][e % NC]);
  }
  __device__ static void emit(const GemmArgs& p, int i, int j, float v) {
    if (i >= p.m || j >= p.n) return;
    float* c = p.c + std::size_t(i) * std::size_t(p.ldc) + j;
    *c = scale_output(v, c, p.alpha, p.beta);
  }
};

// The nn variants under their own name (gemm_entry.cuh: NT<> names the nt ones).
template <int R, int LK, int NC, int KW, int U>
struct SkinnyRowDot : SkinnyRowDotIn<Layout::kNN, R, LK, NC, KW, U> {};
// The same with A's batches through a ring of D in shared memory (D above).
template <int R, int LK, int NC, int KW, int U, int D>
struct SkinnyRowDotRing : SkinnyRowDotIn<Layout::kNN, R, LK, NC, KW, U, D> {};

// The registered instantiations (kernels/skinny.cu), SkinnyRowDot<R, LK, NC, KW, U>: for N = 1,
// 2 and 4 (wider N goes to the rings for N <= 16, whose B is staged once per block in shared
// memory: here every lane would read its own B through L1, 8 and 16 columns took 2-5x the
// rings' time in lab/rowdot_lab.cu, and 1-4 lanes a row, whose B loads are near broadcasts,
// did not close it); 16-32 rows a block with the K split over 1-4 warps, and 1-16 rows with 8
// warps along K for shapes with few rows; nt two 16-row ones. Deeper batches (U = 3, 4),
// register bounds for more blocks an SM and 4 lanes a row were slower (docs/PERFORMANCE.md).
// SkinnyRowDotRing<..., D>: two N = 4 tiles with A through the ring, 1-4% ahead of the
// register ones at N = 3 and 4 on A of 64-256 MiB (lab, wave 17's calls C and D).
#define OCCTUNE_SKINNY_ROWDOT_VARIANTS(X) \
  X(SkinnyRowDot<4, 16, 1, 4, 2>)         \
  X(SkinnyRowDot<4, 16, 1, 8, 2>)         \
  X(SkinnyRowDot<4, 32, 1, 2, 2>)         \
  X(SkinnyRowDot<4, 32, 1, 8, 2>)         \
  X(SkinnyRowDot<1, 32, 1, 8, 8>)         \
  X(SkinnyRowDot<4, 32, 2, 1, 2>)         \
  X(SkinnyRowDot<4, 16, 2, 4, 2>)         \
  X(SkinnyRowDot<4, 16, 4, 4, 2>)         \
  X(SkinnyRowDot<4, 16, 4, 2, 2>)         \
  X(SkinnyRowDot<4, 32, 4, 8, 2>)         \
  X(SkinnyRowDot<4, 8, 4, 8, 2>)
#define OCCTUNE_SKINNY_ROWDOT_NT_VARIANTS(X) \
  X(SkinnyRowDot<4, 16, 1, 4, 2>)            \
  X(SkinnyRowDot<4, 16, 4, 4, 2>)
#define OCCTUNE_SKINNY_ROWDOT_RING_VARIANTS(X) \
  X(SkinnyRowDotRing<4, 16, 4, 2, 1, 4>)       \
  X(SkinnyRowDotRing<4, 16, 4, 4, 1, 3>)

}  // namespace occtune::kernels
