// The skinny family's cp.async variants (issue #18): SkinnyPipe<S, COLS, ROWS, STAGES> streams the
// large operand B into a ring of STAGES shared-memory slabs of ROWS rows with cp.async instead of
// into registers, so that STAGES - 1 slabs stay in flight across the block's barriers; there is no
// K split (outside a cluster: SPLITS below), so no workspace and no second kernel (as cuBLAS's gemv
// runs: one block per column tile over all of K). Where the register kernels (kernels/skinny.cuh)
// expose one HBM round trip per batch, this ring does not: lab/gemv_pipe_lab.cu measured it on the
// H200 (docs/PERFORMANCE.md, "The cp.async ring"). nn only: B contiguous along the output's
// columns (side 0), or, with SMALL_N (below), N <= 16 and A the operand streamed (side 1). Rows of
// B that are not 16-byte aligned are copied element by element (4-byte cp.async): correct, and
// slow. SkinnyPipeWindow reads such rows as aligned windows instead (WINDOW below).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cluster_inbox.cuh"
#include "kernels/gemm_entry.cuh"
#include "kernels/skinny.cuh"
#include "kernels/tile_core.cuh"

namespace occtune::kernels {

// S rows of C (blockIdx.y) by a COLS-column tile (blockIdx.x) over all of K. COLS / 4 lanes
// share a row of B (four columns each), so a warp takes 128 / COLS rows of a slab at once and
// the block's 8 warps take 1024 / COLS; each slab also holds A's ROWS x S values. At the end
// the row slots' sums meet in shared memory and are added in slot order: deterministic.
// WINDOW: any alignment of B's rows. A block's tile is COLS - 4 columns, and each row is copied
// as the COLS / 4 float4s that start at the 16-byte boundary at or before the tile's first
// column: every copy is 16 bytes, whatever the row's offset o (0-3 floats) past that boundary.
// The offset of row k is (B's offset + k * ldb) mod 4, so rows four apart share it; every row a
// thread copies or reads is its first plus a multiple of 4, so its offset is fixed per thread:
// the copies and the FMA loop are the aligned ones', and only the final reduction places a
// thread's four sums at the columns they hold (4q - o ... 4q + 3 - o of the tile).
// SPLITS > 1 (sm_90): K split over the SPLITS blocks of a thread block cluster (grid z), each
// a whole number of slabs, their sums added in rank order through distributed shared memory:
// for narrow N, whose column tiles alone are too few blocks to keep HBM busy.
// A's rows: for S >= 4 without WINDOW (kPipeVecA), a slab's S rows of A are copied as 16-byte
// vectors along k into [s][k] (A is contiguous along k), and a thread takes four consecutive
// rows of the slab at a time (one float4 of A per s covers them), so the shared-memory loads
// per row stay those of [k][s]. Otherwise (S = 1, or WINDOW, whose threads' rows must be four
// apart) A goes into [k][s] by 4-byte copies, with which 8x4096x4096 took 17% longer and
// 16x8192x8192 70% (docs/PERFORMANCE.md, "A's rows as vectors").
// SMALL_N: the ring for N <= 16 with a large A (its "side 1"): the same kernel, A now the
// operand read once (its vector copies evict-first) and B the one every block reads (plain
// copies, kept in L2), on 16-column tiles whose B rows are swizzled (kBSwizzle), or 8-column
// tiles for N <= 8 and 4-column ones (8 rows of C a block) for N <= 4 (a half or a quarter of
// the FMAs a row of A).
// H = 2 or 4 (SMALL_N): the block's S = 16 H rows of C split between H groups of its warps
// (warp w takes rows 16 * (w % H) ...), 16 each, so that each slab of B, which every block reads
// from L2, serves H times the rows of A: at N = 16 the 16-row ring reads as many bytes of B
// from L2 as of A from HBM, and L2, not HBM, was its bound (docs/PERFORMANCE.md, "The rings
// for N <= 16 in row groups").
// Dense B (SMALL_N): where B is dense (ldb = N, B itself aligned) and N below the tile's width,
// a slab's ROWS rows of B are one stretch of ROWS * N floats whose start is 16-byte aligned
// (ROWS is a multiple of 4): it is copied by 16-byte cp.async as it lies, unpadded, and the FMA
// loop reads a row's four columns as four floats (one float4 where N is a multiple of 4),
// instead of COLS 4-byte copies a row of which COLS - N only fill zeros (B's rows misaligned),
// or 16-byte ones whose 32-byte pieces of B land in two rows of the slab (N = 12: 21 shared-
// memory wavefronts a warp's copy, wave 24 call C). Columns past N then hold the next row's
// values: their sums are never written. The dense path is a kernel of its own (DENSE, the
// variant's `Dense`), which kernels/skinny.cu launches where dense_b_applies: built into every
// ring for N <= 16, its branch cost the aligned N = 16 rings 4-6% (wave 18, call J).
// WS: K split over SPLITS blocks (grid z) that are not a cluster: each block writes its sums of
// the tile to its slice of a workspace and the tile's last block adds the slices in split order
// (finish_split, below). Splits past a cluster's eight, and blocks the GPU need not hold at
// once, for few tiles over a long K: the clusters of eight fill one wave only from about 33 tiles
// (the H100 holds 30 clusters of 8 and 62 of 4 at two blocks an SM, wave 30's call B).
template <Layout L, int S, int COLS, int ROWS, int STAGES, bool WINDOW = false, int SPLITS = 1,
          bool SMALL_N = false, int H = 1, int DENSE = 0, bool AWIN = false, bool WS = false>
struct SkinnyPipeIn {
  static_assert(L == Layout::kNN, "skinny pipe: nn only (B contiguous along the columns)");
  static_assert(S == 1 || S == 4 || S == 8 || S == 16 || (S == 16 * H && H > 1),
                "skinny pipe: S is 1, 4, 8 or 16, or 16 rows a group of warps");
  static_assert(H == 1 || ((H == 2 || H == 4) && SMALL_N),
                "skinny pipe: rows in 2 or 4 groups of warps for N small only");
  static_assert(COLS == 4 || COLS == 8 || COLS == 16 || COLS == 32 || COLS == 64 || COLS == 128,
                "skinny pipe: 4, 8, 16, 32, 64 or 128 columns");
  static_assert(STAGES >= 2, "skinny pipe: at least two stages");
  static_assert(SPLITS >= 1 && SPLITS <= (WS ? 256 : 8),
                "skinny pipe: 1-8 splits (a portable cluster), or up to 256 through a workspace");
  static_assert(!WS || SPLITS > 1, "skinny pipe: a workspace split has two splits or more");
  static constexpr Layout kLayout = L;
  static constexpr int kMaxThreads = kSkinnyThreads;
  static constexpr int kRowsPerThread = S / H;  // rows of C a thread's sums cover
  // 16 rows a thread hold 64 sums: capped at 128 registers, so that two blocks share an SM.
  static constexpr int kMinBlocksPerSm = kRowsPerThread == 16 ? 2 : 0;
  // The registration's parameters (kernels/skinny.cu), named as the register kernels' are.
  static constexpr int kS = S, kSide = SMALL_N ? 1 : 0, kSplits = SPLITS, kLanes = COLS / 4;
  static constexpr bool kCluster = SPLITS > 1 && !WS, kRealign = false, kWorkspaceSplit = WS;
  // Row tiles of even height (tile_rows, below): the workspace split for N <= 16, whose few row
  // tiles over a long K otherwise wait on the tallest.
  static constexpr bool kBalancedRows = WS && SMALL_N;
  // A's copies marked evict-first in L2 (SMALL_N: A is the operand read once), except in the
  // workspace splits' A-window kernels (rows of A not 16-byte aligned). Wave 35's call A (H100,
  // docs/PERFORMANCE.md, skinny, "Evict-first and A's windows"): without the hint in every
  // workspace split, the held-out few-row and few-tile shapes with K not a multiple of 4 ran
  // 0.5-3% faster (interleaved medians), the two with K a multiple of 4 and a K of 4-12 million
  // 0.6-2% slower, so the hint stays where the rows are aligned.
  static constexpr bool kAEvictFirst = SMALL_N && !(WS && AWIN);
  static constexpr int kPipeRows = ROWS, kPipeStages = STAGES;
  static constexpr bool kPipeWindow = WINDOW, kPipeVecA = !WINDOW && S >= 4;
  static constexpr int kRowGroups = H;
  // Whole slabs copied without a test a copy (issue): at S = 16, whose FMAs and copies share
  // the issue slots, 7-13% faster; the S <= 8 rings of side 0, bound by HBM, took 2-8% longer
  // with them and keep the tested copies (docs/PERFORMANCE.md, "Copies without tests"). The
  // rings for N <= 16 all take them.
  static constexpr bool kUntestedCopies = S == 16 || SMALL_N;
  static_assert(DENSE == 0 || (DENSE <= 2 && SMALL_N), "skinny pipe: dense B for N small only");
  static_assert(DENSE < 2 || AWIN, "skinny pipe: B dense as float4s in the A-window kernel only");
  static constexpr bool kDenseTwin = SMALL_N;  // has a dense-B kernel (Dense, above)
  static constexpr bool kDenseB = DENSE != 0;  // is that kernel
  static constexpr bool kDenseVec = DENSE == 2;  // DenseWindowVec (below)
  using Dense = SkinnyPipeIn<L, S, COLS, ROWS, STAGES, WINDOW, SPLITS, SMALL_N, H, 1, false, WS>;
  // The A-window kernel (kAWindowCapable, below), where the variant has one (kWindowTwin), and
  // the same with B dense (run_a_window), for operands where dense_b_applies too.
  using Window = SkinnyPipeIn<L, S, COLS, ROWS, STAGES, WINDOW, SPLITS, SMALL_N, H, 0, true, WS>;
  using DenseWindow =
      SkinnyPipeIn<L, S, COLS, ROWS, STAGES, WINDOW, SPLITS, SMALL_N, H, 1, true, WS>;
  // DenseWindow where N is a multiple of 4 (DENSE = 2): B's dense rows read as float4s, as the
  // dense-B kernel's lean loop reads them (DENSE_VEC), not as four turned floats. A kernel of its
  // own: both reads in DenseWindow spilled 60-88 bytes in the 32-row rings' kernels. Wave 28's
  // call A (an H100): the 16-row rings' (four offset classes, each reading B's four rows) 4-21%
  // ahead of their DenseWindow in 41 of 43 pairs (1000x12x100001 over 7: 185.5 against 208.3
  // us); the 64-row rings' from 5% behind (a long K on few rows: 2000x12x50001) to 5% ahead,
  // each shape's best 64-row kernel within 1% or a DenseWindowVec. Not in the 32-row rings
  // (H = 2, kDenseVecTwin): their DenseWindowVec kernels spill 132-148 bytes (ptxas, sm_90) and
  // ran up to 57% behind their DenseWindow (10000x12x9999: 337.4 against 215.4 us).
  static constexpr bool kDenseVecTwin = H != 2;
  using DenseWindowVec =
      SkinnyPipeIn<L, S, COLS, ROWS, STAGES, WINDOW, SPLITS, SMALL_N, H, 2, true, WS>;
  // Whether the dense-B kernel copies B dense for these operands (else it runs as the variant):
  // B dense and aligned, N below the tile's width, and where N is a multiple of 4 (B's rows
  // aligned, so the variant's own copies are whole float4s too) at least kDenseMinSlabs slabs a
  // block: the dense kernel's lean loop gains 6-30% at N = 12 from 16 slabs a block up, and its
  // tested copies lose 4-15% at 2-6 (wave 24, calls E and F).
  static constexpr int kDenseMinSlabs = 8;
  __host__ __device__ static bool dense_b_applies(const GemmArgs& p) {
    const bool aligned = tile::aligned16(p.b);
    const bool long_k = (p.k + SPLITS - 1) / SPLITS >= kDenseMinSlabs * ROWS;
    return SMALL_N && aligned && p.ldb == p.n && p.n < COLS && (p.n % 4 != 0 || long_k);
  }
  // Whether an A-window launch with B dense runs DenseWindowVec (N a multiple of 4, in rings
  // that have it) rather than DenseWindow: with_twin_for's rule, which lab/rowdot_lab.cu keeps too.
  __host__ __device__ static bool dense_vec_applies(const GemmArgs& p) {
    return kDenseVecTwin && dense_b_applies(p) && p.n % 4 == 0;
  }
  // Whether launches run the A-window kernel (Window) in the variant's place: A's rows
  // misaligned (kAWindowCapable, below); before the dense-B kernel, whose B copies it keeps.
  __host__ __device__ static bool a_window_applies(const GemmArgs& p) {
    return kWindowTwin && !(tile::aligned16(p.a) && p.lda % 4 == 0);
  }
  // The kernel a launch of the variant runs in its place for these operands, handed to f as
  // f.template operator()<Kernel>() (kernels/skinny.cu's launch, and the emulator's): the
  // A-window kernel where a_window_applies (DenseWindow where dense_b_applies too,
  // DenseWindowVec where N is also a multiple of 4 and the ring has it), else the dense-B kernel
  // where dense_b_applies. False, f not called, where the variant runs itself.
  template <class F>
  static bool with_twin_for(const GemmArgs& p, F&& f) {
    if constexpr (kWindowTwin) {
      if (a_window_applies(p)) {
        if (!dense_b_applies(p)) {
          f.template operator()<Window>();
          return true;
        }
        if constexpr (kDenseVecTwin) {  // instantiated only in rings that have it
          if (dense_vec_applies(p)) {
            f.template operator()<DenseWindowVec>();
            return true;
          }
        }
        f.template operator()<DenseWindow>();
        return true;
      }
    }
    if constexpr (kDenseTwin) {
      if (dense_b_applies(p)) {
        f.template operator()<Dense>();
        return true;
      }
    }
    return false;
  }
  // Every kernel with_twin_for may pick, each handed to f as above (the registration lists them
  // as the configuration's twin_functions).
  template <class F>
  static void for_each_twin(F&& f) {
    if constexpr (kDenseTwin) f.template operator()<Dense>();
    if constexpr (kWindowTwin) {
      f.template operator()<Window>();
      f.template operator()<DenseWindow>();
      if constexpr (kDenseVecTwin) f.template operator()<DenseWindowVec>();
    }
  }
  static constexpr int kGroups = 32 / kLanes;               // rows a warp takes at once
  static constexpr int kSlots = kSkinnyWarps / H * kGroups;  // rows the block takes at once
  static_assert(ROWS % kSlots == 0, "skinny pipe: a slab is whole passes of the block");
  // kPipeVecA: four rows a thread at a time, so a quarter-warp's loads of B take rows four
  // apart; narrower than 32 columns (kBSwizzle), 128 / (4 COLS) such rows would share its banks.
  // B's rows lie dense, kBLine to a 128-byte line, and their places inside a line are swizzled
  // by the bits above the row's lowest two (b_row): rows four apart then lie on other banks, and
  // a warp's 16-byte copies of consecutive rows still write whole lines. Rows padded apart
  // instead (20 floats at 16 columns, a gap every fourth row at 8 and 4, wave 14 to 23) cost the
  // copies: at 8192x16x8192 a warp's copy of its eight 64-byte rows took 15 shared-memory
  // wavefronts, not 4 (Nsight Compute, wave 24 call A). b_at(row) is where a row starts.
  static_assert(!kPipeVecA || ROWS / kSlots % 4 == 0,
                "skinny pipe: A's vectors need four rows a thread");
  static_assert(!SMALL_N || kPipeVecA, "skinny pipe: N small on A's vectors");
  static constexpr bool kBSwizzle = kPipeVecA && COLS < 32;
  static constexpr int kBLine = COLS < 32 ? 32 / COLS : 1;  // rows a 128-byte line
  __host__ __device__ static constexpr int b_row(int row) {  // the place of a row in the slab
    return kBSwizzle ? row ^ ((row >> 2) & (kBLine - 1)) : row;
  }
  __host__ __device__ static constexpr int b_at(int row) { return b_row(row) * COLS; }
  // Offsets of whole groups of 4 kBLine rows add (b_at(r + 4 kBLine j) = b_at(r) + ...).
  static_assert(!kBSwizzle || ROWS % (4 * kBLine) == 0, "skinny pipe: whole swizzled groups");
  static constexpr int kBFloats = ROWS * COLS;  // B's part of a stage; A's follows
  // kPipeVecA: A's float4s per row of a slab (a thread's first k is 4 * (t % kAQuads)).
  static constexpr int kAQuads = ROWS / 4;
  static_assert(!kPipeVecA || kSkinnyThreads % kAQuads == 0, "skinny pipe: whole rows of A");
  // kPipeVecA: rows of A a pass of the block's copies covers (a thread's rows that far apart).
  static constexpr int kARowsPerPass = kSkinnyThreads / kAQuads;
  static constexpr int kKTile = ROWS;
  static constexpr int kTileM = S, kTileN = WINDOW ? COLS - 4 : COLS;
  static constexpr int kStageFloats = kBFloats + ROWS * S;
  // A's rows misaligned (lda not a multiple of 4, or A itself not 16-byte aligned: K odd, say):
  // the rings for N <= 16 (kAWindowCapable) copy each row of A as the aligned float4s from the
  // 16-byte boundary at or before the block's first k, instead of 4-byte copies (run_a_window: a
  // kernel of its own, Window, AWIN; inside the dense-B kernel its registers put 4-12 bytes of
  // spills into that kernel's other paths). Row s of A then holds k at slab position
  // p = k - k0 + o, o its offset (0-3 floats past the boundary), the same for rows four apart:
  // group h takes rows h, h + H, ..., which fall into kOffsetClasses = 4 / H classes of rows
  // four apart (one offset a class: rows h + H c + 4 u), and a thread pairs position p of a row
  // of class c with B's row k0 + p - o_c (B's four rows read once per class and step: at H = 4
  // one class, at H = 2 two, at H = 1 four). Each stage holds B's rows k0 - 4 ... k0 - 1 too, in
  // kLead rows before its slab (the last four used; kLead keeps the swizzle's whole groups). A
  // thread's copies of A must keep one offset too: its rows four apart or more (kARowsPerPass).
  static constexpr int kOffsetClasses = 4 / H;
  static constexpr bool kAWindowCapable =
      SMALL_N && kPipeVecA && !WINDOW && kARowsPerPass % 4 == 0;
  static constexpr bool kAWindow = kAWindowCapable && AWIN;            // is that kernel
  static constexpr bool kWindowTwin = kAWindowCapable && DENSE == 0 && !AWIN;  // has them
  static_assert(!AWIN || kAWindowCapable,
                "skinny pipe: A's windows for N small, slabs of 256 rows at most");
  static constexpr int kLead = kAWindowCapable ? 4 * kBLine : 0;
  static constexpr int kStageFloatsAW = kStageFloats + kLead * COLS;  // a stage with kLead
  static_assert(!kAWindowCapable || (kSlots % (4 * kBLine) == 0 && ROWS / kSlots % 4 == 0),
                "skinny pipe: A's windows need whole swizzled groups a pass of the slots");
  // A cluster's sums go through an inbox after the stages (ClusterInbox); none without one.
  using Inbox = ClusterInbox<kCluster ? SPLITS : 1, S * kTileN, kSkinnyThreads>;
  static constexpr std::size_t kRingBytes = std::size_t(STAGES) * kStageFloatsAW * sizeof(float);
  static constexpr std::size_t kSmemBytes = kRingBytes + Inbox::kBytes;
  // The final reduction reuses the ring: S x slots x COLS sums, then (a window ring in a
  // cluster) S x COLS.
  // Without WINDOW the sums go and come back as float4s (sum_slots below), and each row of C's
  // slots is followed by kRedPad floats: narrower than 32 columns, a quarter-warp's float4 loads
  // then take two rows whose starts lie half a bank line apart, instead of on the same banks.
  static constexpr int kRedPad = !WINDOW && COLS < 32 ? COLS : 0;
  static constexpr int kRedRow = kSlots * COLS + kRedPad;  // floats between rows of C's sums
  static_assert(S * (kRedRow + COLS) <= STAGES * kStageFloats, "skinny pipe: reduction fits");

  static constexpr long long tiles(long long m, long long n) {
    return (m + S - 1) / S * ((n + kTileN - 1) / kTileN);
  }
  // WS: SPLITS dense M x N slices, then one ticket a tile, which the launch zeroes
  // (kernels/skinny.cu), as the register kernels' split has them (kernels/skinny.cuh).
  static constexpr std::size_t workspace_bytes(long long m, long long n) {
    return !WS ? 0
               : std::size_t(SPLITS) * std::size_t(m) * std::size_t(n) * sizeof(float) +
                     std::size_t(tiles(m, n)) * sizeof(unsigned);
  }
  // A split's slice of the workspace: M x N floats of the whole operands (not a tile's view).
  __host__ __device__ static std::size_t slice_floats(const GemmArgs& p) {
    return std::size_t(p.m) * std::size_t(p.n);
  }
  __host__ __device__ static unsigned* tickets(const GemmArgs& p) {
    return !WS ? nullptr
               : reinterpret_cast<unsigned*>(p.workspace + std::size_t(SPLITS) * slice_floats(p));
  }

  // Copies per thread and slab, and the rows between a thread's copies: a block's 256 threads
  // cover 256 / W consecutive rows per pass of W copies a row (B: COLS / 4 float4s or COLS
  // floats; A: S floats), so a thread's column and its first row are fixed.
  static constexpr int kVecRowsPerPass = kSkinnyThreads / kLanes;
  static constexpr int kElemRowsPerPass = kSkinnyThreads / COLS;
  static constexpr int kSmallRowsPerPass = kSkinnyThreads / S;
  static_assert(kSkinnyThreads % COLS == 0 && kSkinnyThreads % S == 0 &&
                    ROWS % kVecRowsPerPass == 0 && ROWS % kElemRowsPerPass == 0,
                "skinny pipe: whole passes of the block's copies");
  static_assert(!kBSwizzle || (kVecRowsPerPass % (4 * kBLine) == 0 &&
                                kElemRowsPerPass % (4 * kBLine) == 0),
                "skinny pipe: a pass of B's copies is whole swizzled groups of rows");
  // Passes of the block's threads over `copies` copies of A a slab, and whether the last one
  // leaves threads out (ptxas does not know that t < 256); always tested without
  // kUntestedCopies, whose rings keep wave 14's SASS.
  __host__ __device__ static constexpr int passes(int copies) {
    return (copies + kSkinnyThreads - 1) / kSkinnyThreads;
  }
  __host__ __device__ static constexpr bool partial_pass(int copies) {
    return !kUntestedCopies || copies % kSkinnyThreads != 0;
  }

  // What one thread copies, worked out once from the launch's arguments (run): the copies of a
  // slab are then a pointer step and a row test each. Issued from the arguments directly, ptxas
  // re-read them per copy: occtune's build ran 6-18% slower than the same kernel built with its
  // arguments known (docs/PERFORMANCE.md, "The cp.async ring").
  struct Copies {
    const float* b;        // this thread's first element of B in slab 0 (or B, if none)
    const float* a;        // this thread's first element of A in slab 0 (or A, if none)
    const float* b_any;    // a valid source for zero-filled copies
    const float* a_any;
    std::size_t b_slab;    // elements between a thread's copies of consecutive slabs
    std::size_t b_pass;    // elements between its copies of one slab
    int b_row, b_bytes;    // first row; bytes of its column (0 past N)
    int a_row;             // first k of its A copies; -1 past M (kPipeVecA: its first s)
    int k;
    bool vec;
    // kDenseB: B's slabs copied dense (above); this thread's first float4 of slab 0, and the
    // floats of B from there to K's end (b_dense_left, from slab 0's start: ROWS * N a slab).
    bool dense;
    const float* b_dense;
    long long b_dense_left;
    // WINDOW: the element offset from B of this thread's first copy (row b_row), negative for
    // a first window that starts before B (head), which goes element by element. B's last row
    // is not copied (k_b, one less than k, where the block holds it): a window past its last
    // column would read past B (memcheck counts a partial copy's 16 bytes); run() adds it.
    std::ptrdiff_t head_at;
    const float* b_first;  // B itself
    int col;               // the column (of the tile's row) of the window's first float
    int n, k_b;
    bool head;
    // kPipeVecA: rows of A left from s0 (M - s0); whether A is 16-byte aligned with lda % 4 = 0
    // (else element copies); elements between a thread's copies of one slab.
    int a_rows;
    bool a_vec;
    std::size_t a_pass;
    int a_shift;  // kAWindow: its rows of A from their windows' starts (a_window_shift), else 0
  };

  // The lean copies (wave 23; the rings with kUntestedCopies): where A and B are 16-byte
  // aligned with leading dimensions a multiple of 4, the block's columns inside N or N a
  // multiple of 4, and its rows inside M or copied in one pass, a slab inside K is copied from
  // two pointers that step a slab at a time: B's ROWS / kVecRowsPerPass 16-byte copies a
  // thread, and A's float4s of one or two rows a thread (kLeanTpr threads a row) at constant
  // distances, instead of Copies' per-slab addresses and tests: the 8192x16x8192 ring spent
  // about 73 of its 370 instructions a warp and slab on its copies (docs/PERFORMANCE.md, "The
  // lean copies"). At least 8 threads a row, so that a warp's copy writes 128 bytes of each of
  // its rows: with 4 (64 rows of C) a copy's eight 64-byte pieces, rows 256 bytes apart, fell on
  // the same 16 banks, and the 8192x16x8192 ring took 7% longer than with Copies (wave 23,
  // call C).
  static constexpr int kLeanTpr = kSkinnyThreads / S > 8 ? kSkinnyThreads / S : 8;
  static constexpr int kLeanRows = kSkinnyThreads / kLeanTpr;  // rows of A a pass of the block
  // kDenseB (where dense_b_applies): B's slab copied dense (above) by the lean copies too, float4
  // t + kSkinnyThreads j of the slab's stretch by thread t, at most kDensePasses a thread.
  static constexpr bool kLean = kUntestedCopies && kPipeVecA && !WINDOW &&
                                S % kLeanRows == 0 && kAQuads % kLeanTpr == 0;
  static constexpr int kDensePasses = (ROWS * COLS / 4 + kSkinnyThreads - 1) / kSkinnyThreads;
  struct Lean {
    const float* a;      // this thread's first float4 of A in the next slab to issue
    const float* b;      // its first float4 of B there
    std::size_t a_pass;  // elements between its rows of A (kLeanRows rows apart)
    std::size_t b_slab;  // elements of B a slab
    std::size_t b_pass;  // elements between its copies of B in one slab
    int b_bytes;         // 16, or 0 past N (zero-filled copies from B itself, which never moves)
    int a_bytes;         // 16, or 0 past M (zero-filled copies from A's first row)
    int dense_passes;    // kDenseB: its float4s of B's dense slab
  };
  // N a multiple of 4 (the tile's float4s of B whole or past N) where the tile passes N; where
  // it passes M, a thread's copies of A one row (one pass of the block over the rows). The
  // dense-B kernel's where B goes dense, whatever N: a slab's stretch of B starts 16-byte aligned
  // (ROWS and every block's first row of K multiples of 4).
  __device__ static bool lean_applies(const GemmArgs& p, int x0, int s0) {
    const bool b = kDenseB ? dense_b_applies(p)
                           : tile::aligned16(p.b) && p.ldb % 4 == 0 &&
                                 (x0 + kTileN <= p.n || p.n % 4 == 0);
    return tile::aligned16(p.a) && p.lda % 4 == 0 && b && (s0 + S <= p.m || S == kLeanRows);
  }
  __device__ __forceinline__ static Lean plan_lean(const GemmArgs& p, int x0, int s0, int kb) {
    const int t = int(threadIdx.x);
    const int col = x0 + 4 * (t % kLanes), row = s0 + t / kLeanTpr;
    const std::size_t ldb = col < p.n ? std::size_t(p.ldb) : 0;
    const float* a =
        p.a + std::size_t(row < p.m ? row : 0) * std::size_t(p.lda) + kb + 4 * (t % kLeanTpr);
    const std::size_t a_pass = std::size_t(kLeanRows) * std::size_t(p.lda);
    if constexpr (kDenseB) {  // B dense (lean_applies: ldb = N)
      constexpr int kPass = 4 * kSkinnyThreads;  // floats of the stretch a pass of the block
      const int floats = ROWS * p.n - 4 * t;      // of the slab's stretch from this thread's first
      return {a, p.b + std::size_t(kb) * std::size_t(p.n) + 4 * t, a_pass,
              std::size_t(ROWS) * std::size_t(p.n), std::size_t(kPass), 16, row < p.m ? 16 : 0,
              floats > 0 ? (floats + kPass - 1) / kPass : 0};
    }
    return {a, p.b + std::size_t(kb + t / kLanes) * ldb + (col < p.n ? col : 0), a_pass,
            std::size_t(ROWS) * ldb, std::size_t(kVecRowsPerPass) * ldb, col < p.n ? 16 : 0,
            row < p.m ? 16 : 0, 0};
  }
  // Slab st into its stage (the slab l points at), then l steps to the next.
  __device__ __forceinline__ static void issue_lean(Lean& l, float* sm, int st) {
    const int t = int(threadIdx.x);
    float* buf = sm + (st % STAGES) * kStageFloats;
    const float* b = l.b;
    if constexpr (kDenseB) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < kDensePasses; ++j, b += l.b_pass)
        if (j < l.dense_passes)
          tile::copy_async<16, false, true>(buf + 4 * (t + kSkinnyThreads * j), b, 16);
    } else {
      float* b_dst = buf + b_at(t / kLanes) + 4 * (t % kLanes);
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < ROWS / kVecRowsPerPass; ++j, b += l.b_pass)
        tile::copy_async<16, !SMALL_N, true>(b_dst + j * b_at(kVecRowsPerPass), b, l.b_bytes);
    }
    float* a_dst = buf + kBFloats + (t / kLeanTpr) * ROWS + 4 * (t % kLeanTpr);
    OCCTUNE_SKINNY_UNROLL
    for (int i = 0; i < S / kLeanRows; ++i) {
      const float* a = l.a + i * l.a_pass;
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < kAQuads / kLeanTpr; ++j)
        tile::copy_async<16, kAEvictFirst, true>(
            a_dst + i * kLeanRows * ROWS + 4 * kLeanTpr * j, a + 4 * kLeanTpr * j, l.a_bytes);
    }
    tile::copy_commit();
    l.a += ROWS;
    l.b += l.b_slab;
  }

  // WINDOW: how many floats past a 16-byte boundary B's element (row, x0) lies: the same for
  // every row that differs from `row` by a multiple of 4 (x0 is a multiple of 4).
  __device__ static int window_offset(const GemmArgs& p, int row, int x0) {
    const unsigned base = unsigned(reinterpret_cast<std::uintptr_t>(p.b) >> 2);
    return int((base + unsigned(row) * unsigned(p.ldb) + unsigned(x0)) & 3u);
  }

  // Rows kb <= k < ke of B (and columns of A): all of K, or this block's share in a cluster.
  __device__ __forceinline__ static Copies plan_copies(const GemmArgs& p, int x0, int s0, int kb,
                                                       int ke) {
    Copies c;
    const int t = int(threadIdx.x);
    c.vec = WINDOW || (tile::aligned16(p.b) && p.ldb % 4 == 0);
    c.dense = kDenseB && dense_b_applies(p);
    if constexpr (kDenseB) {
      c.b_dense = p.b + std::size_t(kb) * std::size_t(p.n) + 4 * t;
      c.b_dense_left = (long long)(ke - kb) * p.n - 4 * t;
    }
    c.head = false;
    c.k = ke - kb;  // rows are counted from kb below
    c.k_b = WINDOW && ke == p.k ? c.k - 1 : c.k;  // the rows of B copied
    c.n = p.n;
    // A zero-filled copy reads nothing, but its source must be aligned like a real one: for a
    // window, B's first 16-byte boundary (inside B unless B holds fewer than four floats).
    c.b_any = WINDOW ? p.b + ((4u - unsigned(reinterpret_cast<std::uintptr_t>(p.b) >> 2)) & 3u)
                     : p.b;
    c.a_any = p.a;
    c.b_first = p.b;
    const std::size_t ldb = std::size_t(p.ldb);
    int col;
    if (WINDOW) {
      // Rows a pass apart (kVecRowsPerPass, a multiple of 4) share the offset.
      c.b_row = t / kLanes;
      col = x0 - window_offset(p, kb + c.b_row, x0) + 4 * (t % kLanes);
      const int left = 4 * (p.n - col);
      c.b_bytes = left <= 0 ? 0 : left < 16 ? left : 16;
      c.b_pass = std::size_t(kVecRowsPerPass) * ldb;
      c.head_at = std::ptrdiff_t(kb + c.b_row) * std::ptrdiff_t(ldb) + col;
      c.col = col;
      c.head = c.b_bytes && c.head_at < 0;  // only at x0 = 0 = kb, in the first row or three
    } else if (c.vec) {
      col = x0 + 4 * (t % kLanes);
      c.b_row = t / kLanes;
      const int left = 4 * (p.n - col);
      c.b_bytes = left <= 0 ? 0 : left < 16 ? left : 16;
      c.b_pass = std::size_t(kVecRowsPerPass) * ldb;
    } else {
      col = x0 + t % COLS;
      c.b_row = t / COLS;
      c.b_bytes = col < p.n ? 4 : 0;
      c.b_pass = std::size_t(kElemRowsPerPass) * ldb;
    }
    c.b_slab = std::size_t(ROWS) * ldb;
    if constexpr (WINDOW)  // formed before B for a head, whose first copy goes element-wise
      c.b = c.b_bytes ? p.b + c.head_at : p.b;
    else
      c.b = c.b_bytes ? p.b + std::size_t(kb + c.b_row) * ldb + col : p.b;
    c.a_shift = 0;
    if constexpr (kPipeVecA) {
      c.a_row = t / kAQuads;
      c.a_rows = p.m - s0;
      c.a_vec = tile::aligned16(p.a) && p.lda % 4 == 0;
      c.a_pass = std::size_t(kARowsPerPass) * std::size_t(p.lda);
      c.a = c.a_row < c.a_rows
                ? p.a + std::size_t(s0 + c.a_row) * std::size_t(p.lda) + kb + 4 * (t % kAQuads)
                : p.a;
      return c;
    }
    const int s = t % S;
    c.a_row = s0 + s < p.m ? t / S : -1;
    c.a = c.a_row >= 0 ? p.a + std::size_t(s0 + s) * std::size_t(p.lda) + kb + c.a_row : p.a;
    return c;
  }

  // WINDOW: the window at element offset `at` from B, element by element: the floats before B
  // or past the row's last column zero (none read), the others 4-byte copies.
  __device__ static void copy_elements(float* dst, const Copies& c, std::ptrdiff_t at, int bytes) {
    OCCTUNE_SKINNY_UNROLL
    for (int e = 0; e < 4; ++e) {
      const bool in = bytes && at + e >= 0 && c.col + e < c.n;
      tile::copy_async<4>(dst + e, in ? c.b_first + (at + e) : c.b_any, in ? 4 : 0);
    }
  }

  // Issues the copies of slab st (rows st * ROWS ...) into its stage, then commits the group
  // (an empty one past the last slab, so that every thread's group count stays in step).
  // AW (kAWindow): A through windows (a_shift), B's four rows before the slab too (issue_b_lead),
  // into stages of kStageFloatsAW floats whose slab follows kLead rows; with kDenseB
  // (DenseWindow) B dense there, its stretch starting four rows before the slab
  // (issue_b_dense<4>), so the lead rows come with it.
  template <bool AW = false>
  __device__ __forceinline__ static void issue(const Copies& c, float* sm, int st, int slabs) {
    if (st < slabs) {
      float* buf = AW ? sm + (st % STAGES) * kStageFloatsAW + kLead * COLS
                      : sm + (st % STAGES) * kStageFloats;
      const int t = int(threadIdx.x);
      const int k0 = st * ROWS;
      const float* b = c.b + std::size_t(st) * c.b_slab;
      if constexpr (AW && kDenseB) {
        issue_b_dense<4>(c, buf, st);
      } else if (kDenseB && c.dense) {
        issue_b_dense(c, buf, st);
      } else if (c.vec) {
        float* dst = buf + b_at(c.b_row) + 4 * (t % kLanes);
        // WINDOW: a first window that starts before B (slab 0's first copy) goes element by
        // element, and B's last row is left to run() (k_b).
        const bool head = WINDOW && c.head && st == 0;
        // kUntestedCopies: a slab whose rows all lie inside K, of a thread whose column is whole
        // (every slab but the last, of all but the tile's last lanes), without a test a copy.
        if (kUntestedCopies && c.b_bytes == 16 && k0 + ROWS <= c.k_b && !head) {
          OCCTUNE_SKINNY_UNROLL
          for (int j = 0; j < ROWS / kVecRowsPerPass; ++j)
            tile::copy_async<16, !SMALL_N, true>(dst + j * b_at(kVecRowsPerPass),
                                                 b + j * c.b_pass, 16);
        } else {
          OCCTUNE_SKINNY_UNROLL
          for (int j = 0; j < ROWS / kVecRowsPerPass; ++j) {
            const int bytes = k0 + c.b_row + j * kVecRowsPerPass < c.k_b ? c.b_bytes : 0;
            if (j == 0 && head) {
              copy_elements(dst, c, c.head_at, bytes);
              continue;
            }
            const float* src = bytes ? b + j * c.b_pass : c.b_any;
            tile::copy_async<16, !SMALL_N>(dst + j * b_at(kVecRowsPerPass), src, bytes);
          }
        }
      } else {
        float* dst = buf + b_at(c.b_row) + t % COLS;
        OCCTUNE_SKINNY_UNROLL
        for (int j = 0; j < ROWS / kElemRowsPerPass; ++j) {
          const int bytes = k0 + c.b_row + j * kElemRowsPerPass < c.k ? c.b_bytes : 0;
          const float* src = bytes ? b + j * c.b_pass : c.b_any;
          tile::copy_async<4, !SMALL_N>(dst + j * b_at(kElemRowsPerPass), src, bytes);
        }
      }
      // A is read by every column tile: plain copies, no evict-first (SMALL_N: A is the operand
      // read once, and its copies are evict-first).
      if constexpr (AW && !kDenseB) issue_b_lead(c, buf, k0, b);
      if constexpr (kPipeVecA) {
        issue_a_vectors<AW>(c, buf + kBFloats, k0);
      } else {
        // Row r of the slab holds A's S values at k0 + r ([k][s]), 4 bytes a copy.
        float* a_dst = buf + kBFloats + t;
        const float* a = c.a + k0;
        constexpr int kPasses = passes(ROWS * S);
        constexpr bool kPartialPass = partial_pass(ROWS * S);
        if (kUntestedCopies && c.a_row >= 0 && k0 + ROWS <= c.k) {  // the slab inside K
          OCCTUNE_SKINNY_UNROLL
          for (int j = 0; j < kPasses; ++j) {
            if (kPartialPass && t + j * kSkinnyThreads >= ROWS * S) break;
            tile::copy_async<4>(a_dst + j * kSkinnyThreads, a + j * kSmallRowsPerPass, 4);
          }
        } else {
          OCCTUNE_SKINNY_UNROLL
          for (int j = 0; j < kPasses; ++j) {
            if (kPartialPass && t + j * kSkinnyThreads >= ROWS * S) break;
            const int row = c.a_row + j * kSmallRowsPerPass;
            const bool in = c.a_row >= 0 && k0 + row < c.k;
            tile::copy_async<4>(a_dst + j * kSkinnyThreads,
                                in ? a + j * kSmallRowsPerPass : c.a_any, in ? 4 : 0);
          }
        }
      }
    }
    tile::copy_commit();
  }

  // kDenseB: slab st's ROWS * N floats of B, as they lie, into the stage's first ROWS * N
  // floats: 16-byte copies, zero past K (a zero row of A meets every row of B past K, which must
  // not be NaN), and element by element for a last float4 that B's end cuts (a 16-byte copy
  // would be counted as reading past B). LEAD (kAWindow's lead rows): the LEAD rows before the
  // slab too, LEAD N floats before b_sm, zero before the block's first row of K (a multiple of
  // 4 floats: LEAD is 4).
  template <int LEAD = 0>
  __device__ __forceinline__ static void issue_b_dense(const Copies& c, float* b_sm, int st) {
    const int t = int(threadIdx.x), n = c.n;
    const long long left = c.b_dense_left - (long long)st * ROWS * n;
    const float* src = c.b_dense + std::size_t(st) * ROWS * std::size_t(n);  // the slab's start
    // LEAD (the A-window kernels, which have no lean loop): a slab past slab 0 and inside the
    // block's rows of K, every copy whole and none tested. The tests and their 64-bit sums were
    // about 30 PTX instructions a copy, three copies a thread and slab, against 256 FMAs. (The
    // dense-B kernel's lean loop copies its inner slabs so already.)
    if (LEAD && st > 0 && (st + 1) * ROWS <= c.k) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < passes((ROWS + LEAD) * COLS / 4); ++j) {
        const int pass = 4 * j * kSkinnyThreads - LEAD * n;
        if (4 * t + pass >= ROWS * n) break;
        tile::copy_async<16>(b_sm + 4 * t + pass, src + pass, 16);
      }
      return;
    }
    OCCTUNE_SKINNY_UNROLL
    for (int j = 0; j < passes((ROWS + LEAD) * COLS / 4); ++j) {
      const int pass = 4 * j * kSkinnyThreads - LEAD * n;  // floats from src to this copy's first
      const int at = 4 * t + pass;                 // the float of the slab this copy starts at
      if (at >= ROWS * n) break;
      // Floats of B from here (none before the block's first row of K: LEAD, slab 0).
      const long long in = LEAD && st == 0 && at < 0 ? 0 : left - pass;
      if (in >= 4 || in <= 0) {
        tile::copy_async<16>(b_sm + at, in > 0 ? src + pass : c.b_any, in > 0 ? 16 : 0);
        continue;
      }
      OCCTUNE_SKINNY_UNROLL
      for (int e = 0; e < 4; ++e)
        tile::copy_async<4>(b_sm + at + e, e < in ? src + pass + e : c.b_any, e < in ? 4 : 0);
    }
  }

  // kAWindow: B's rows k0 - 4 ... k0 - 1 (zero before the block's first row of K) into the lead
  // rows before the slab at b_sm, by the threads that copy the slab's rows 0-3, each from four
  // rows before its own (b: its copy's source in row k0).
  __device__ __forceinline__ static void issue_b_lead(const Copies& c, float* b_sm, int k0,
                                                      const float* b) {
    if (c.b_row >= 4) return;
    const int t = int(threadIdx.x), k = k0 - 4 + c.b_row;
    const int bytes = k >= 0 && k < c.k ? c.b_bytes : 0;
    const float* src = bytes ? b - 4 * (c.b_slab / ROWS) : c.b_any;
    float* dst = b_sm + b_at(kLead - 4 + c.b_row) - kLead * COLS;
    if (c.vec)
      tile::copy_async<16, !SMALL_N>(dst + 4 * (t % kLanes), src, bytes);
    else
      tile::copy_async<4, !SMALL_N>(dst + t % COLS, src, bytes);
  }

  // kPipeVecA: A's rows s of the slab at k0 into a_sm[s][k], a float4 of k per copy: 16 bytes where
  // A is aligned and the four k are inside K, else element by element (zero past K or M).
  // Issued only where the slab is (st < slabs), so no copy reads past A's rows.
  // AW: the windows (kAWindow): each float4 from c.a, shifted back by a_shift, whole or element
  // by element where it holds k before the block's first (zero) or past its last.
  template <bool AW = false>
  __device__ __forceinline__ static void issue_a_vectors(const Copies& c, float* a_sm, int k0) {
    const int t = int(threadIdx.x), kk = k0 + 4 * (t % kAQuads) - (AW ? c.a_shift : 0);
    constexpr int kPasses = passes(kAQuads * S);
    constexpr bool kPartialPass = partial_pass(kAQuads * S);
    float* dst = a_sm + c.a_row * ROWS + 4 * (t % kAQuads);
    // kUntestedCopies: every row of the block's S inside M, A aligned, the slab inside K.
    if (kUntestedCopies && c.a_vec && c.a_rows >= S && (!AW || k0 > 0) && k0 + ROWS <= c.k) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < kPasses; ++j) {
        if (kPartialPass && t + j * kSkinnyThreads >= kAQuads * S) break;
        tile::copy_async<16, kAEvictFirst, true>(dst + j * kARowsPerPass * ROWS,
                                                 c.a + j * c.a_pass + k0, 16);
      }
      return;
    }
    OCCTUNE_SKINNY_UNROLL
    for (int j = 0; j < kPasses; ++j) {
      if (kPartialPass && t + j * kSkinnyThreads >= kAQuads * S) break;
      const bool row = c.a_row + j * kARowsPerPass < c.a_rows;
      const float* src = row ? c.a + j * c.a_pass + k0 : c.a_any;
      float* to = dst + j * kARowsPerPass * ROWS;
      if (row && c.a_vec && (!AW || kk >= 0) && kk + 4 <= c.k) {
        tile::copy_async<16, kAEvictFirst>(to, src, 16);
        continue;
      }
      OCCTUNE_SKINNY_UNROLL
      for (int e = 0; e < 4; ++e) {
        const bool in = row && (!AW || kk + e >= 0) && kk + e < c.k;
        tile::copy_async<4, kAEvictFirst>(to + e, in ? src + e : c.a_any, in ? 4 : 0);
      }
    }
  }

  // kPipeVecA: a thread's four consecutive rows base ... base + 3 of the slab: B's four float4s,
  // then one float4 of A per s (A's values at those rows; the thread's rows of C from s0) and
  // sixteen FMAs.
  // dense_n: B's rows dense, dense_n floats apart (kDenseB), else 0; DENSE_VEC: dense_n is a
  // multiple of 4 (the dense-B kernel's lean loop there), so a row's four columns are one float4.
  // Read as floats, a row's columns come turned by `turn` (dense_turn, below).
  template <bool DENSE_VEC>
  __device__ __forceinline__ static void fma_rows4(float (&acc)[kRowsPerThread][4],
                                                   const float* buf, int base, int q, int s0,
                                                   int dense_n, int turn) {
    float4 v[4];
    if constexpr (DENSE_VEC) {
      OCCTUNE_SKINNY_UNROLL
      for (int i = 0; i < 4; ++i) v[i] = tile::load4(buf + (base + i) * dense_n + 4 * q);
    } else if (kDenseB && dense_n) {
      OCCTUNE_SKINNY_UNROLL
      for (int i = 0; i < 4; ++i) {
        v[i] = load_turned(buf + (base + i) * dense_n + 4 * q, turn);
      }
    } else {
      // base is a multiple of 4: row base + i lies at b_row(base) ^ i (kBSwizzle).
      const int at = b_row(base);
      OCCTUNE_SKINNY_UNROLL
      for (int i = 0; i < 4; ++i) v[i] = tile::load4(buf + (at ^ i) * COLS + 4 * q);
    }
    fma_a_rows<1>(acc, v, buf + kBFloats + s0 * ROWS, base);
  }

  // B's rows dense, read as floats (the dense-B kernel's at N not a multiple of 4, the A-window
  // kernel's at any N): the e-th floats of a warp's lanes' fours lie at addresses that differ by
  // multiples of 4 (rows 4 N apart, columns 4 apart), on eight of the 32 banks, four lanes a
  // bank: each load took 4 shared-memory wavefronts (wave 24, call K). So a lane reads its four
  // columns from the turn-th on (column 4q + (e + turn) % 4 as its e-th), turn its rank among
  // the warp's lanes whose fours start on the same four banks: four such lanes read four
  // different banks. Its sums are then turned too (unturn, below). At 8192x10x8192 the dense-B
  // kernel took 72.2 us, 82.7 before (wave 26, call A).
  __device__ static int dense_turn(int n, int lane) {
    const auto banks = [n](int l) { return (n * (l / kLanes) + l % kLanes) & 7; };
    int turn = 0;
    for (int l = 0; l < lane; ++l) turn += banks(l) == banks(lane);
    return turn & 3;
  }
  // The four floats from r, turned: its e-th is r[(e + turn) % 4].
  __device__ __forceinline__ static float4 load_turned(const float* r, int turn) {
    return make_float4(r[turn & 3], r[(turn + 1) & 3], r[(turn + 2) & 3], r[(turn + 3) & 3]);
  }
  // A thread's sums back in column order (acc[s][e] held column 4q + (e + turn) % 4).
  __device__ static void unturn(float (&acc)[kRowsPerThread][4], int turn) {
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < kRowsPerThread; ++s) {
      const float v[4] = {acc[s][0], acc[s][1], acc[s][2], acc[s][3]};
      OCCTUNE_SKINNY_UNROLL
      for (int c = 0; c < 4; ++c)
        acc[s][c] = turn == 1 ? v[(c + 3) & 3] : turn == 2 ? v[(c + 2) & 3]
                  : turn == 3 ? v[(c + 1) & 3] : v[c];
    }
  }

  // B's rows v (four consecutive of the slab, base ...) times A's values at them in the thread's
  // rows of a_sm (every ROW_STEP-th from its first), into its sums; EVERY > 1 (run_a_window's
  // offset classes): only its sums first, first + EVERY, ... (rows ROW_STEP EVERY apart).
  template <int ROW_STEP, int EVERY = 1>
  __device__ __forceinline__ static void fma_a_rows(float (&acc)[kRowsPerThread][4],
                                                    const float4 (&v)[4], const float* a_sm,
                                                    int base, int first = 0) {
    OCCTUNE_SKINNY_UNROLL
    for (int s = first; s < kRowsPerThread; s += EVERY) {
      const float4 w = tile::load4(a_sm + ROW_STEP * s * ROWS + base);
      const float a[4] = {w.x, w.y, w.z, w.w};
      OCCTUNE_SKINNY_UNROLL
      for (int i = 0; i < 4; ++i) {
        acc[s][0] = fmaf(a[i], v[i].x, acc[s][0]);
        acc[s][1] = fmaf(a[i], v[i].y, acc[s][1]);
        acc[s][2] = fmaf(a[i], v[i].z, acc[s][2]);
        acc[s][3] = fmaf(a[i], v[i].w, acc[s][3]);
      }
    }
  }

  // This block's rows kb <= k < ke of K: all of it, or a cluster's block's (rank blockIdx.z)
  // whole slabs, ceil(K / SPLITS) rounded up.
  __device__ __forceinline__ static void k_range(const GemmArgs& p, int& kb, int& ke) {
    const int chunk = SPLITS == 1 ? p.k : ((p.k + SPLITS - 1) / SPLITS + ROWS - 1) / ROWS * ROWS;
    kb = SPLITS == 1 ? 0 : int(blockIdx.z) * chunk;
    ke = SPLITS == 1 ? p.k : (kb + chunk < p.k ? kb + chunk : p.k);
  }

  // The block's first row of C (s0) and the operands as its tile sees them: M ends at the
  // tile's last row, so every row test below (copies, sums) stops there. kBalancedRows: the
  // ceil(M / S) row tiles share M's rows evenly, ceil(M / tiles) each (at most S), so that no
  // tile's blocks read many more rows of A than another's: 18 rows go as 9 and 9, not 16 and 2,
  // where each block of the tall tile (K split over SPLITS each) read 8 times the bytes of the
  // short tile's (docs/PERFORMANCE.md, skinny, "Row tiles of even height"). The workspace's
  // layout keeps the full M (sum_slots, finish_split).
  __device__ __forceinline__ static GemmArgs tile_rows(const GemmArgs& p, int& s0) {
    GemmArgs q = p;
    if constexpr (kBalancedRows) {
      const int tiles = (p.m + S - 1) / S, rows = (p.m + tiles - 1) / tiles;
      s0 = int(blockIdx.y) * rows;
      q.m = s0 + rows < p.m ? s0 + rows : p.m;
    } else {
      s0 = int(blockIdx.y) * S;
    }
    return q;
  }

  // The kernel: the A-window kernel's ring (correct for any A: offset 0 where A is aligned), or
  // the others' (only the one a kernel runs is instantiated).
  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    if constexpr (kAWindow)
      run_a_window(p, smem);
    else
      run_ring(p, smem);
  }

  __device__ __forceinline__ static void run_ring(const GemmArgs& full, unsigned char* smem) {
    float* sm = reinterpret_cast<float*>(smem);
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    int s0;
    const GemmArgs p = tile_rows(full, s0);
    const int x0 = int(blockIdx.x) * kTileN;
    int kb, ke;
    k_range(p, kb, ke);
    const int slabs = ke > kb ? (ke - kb + ROWS - 1) / ROWS : 0;
    float* inbox = sm + kRingBytes / sizeof(float);
    if constexpr (kCluster) Inbox::open(inbox);
    float acc[kRowsPerThread][4];
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < kRowsPerThread; ++s) acc[s][0] = acc[s][1] = acc[s][2] = acc[s][3] = 0.0f;
    // H > 1: warp w takes the block's rows of C from 16 * (w % H), over all of the slab's rows
    // (so a warp's shared-memory reads are those of H = 1).
    const int slot = warp / H * kGroups + lane / kLanes, q = lane % kLanes;
    const int my_s0 = warp % H * kRowsPerThread;
    int st = 0;  // the next slab to consume
    bool issued = false;  // whether the first STAGES - 1 slabs are issued
    const int turn = kDenseB && p.n % 4 != 0 && dense_b_applies(p) ? dense_turn(p.n, lane) : 0;
    if constexpr (kLean) {
      // The slabs whose copies are whole, by the lean copies (Lean); the others below. The
      // dense-B kernel reads B's rows as float4s where N is a multiple of 4, else as floats.
      const int whole = (ke - kb) / ROWS;
      if (lean_applies(p, x0, s0) && whole >= STAGES - 1) {
        issued = true;
        if (kDenseB && p.n % 4 == 0)
          st = lean_slabs<true>(p, acc, sm, x0, s0, kb, whole, slot, q, my_s0, turn);
        else
          st = lean_slabs<false>(p, acc, sm, x0, s0, kb, whole, slot, q, my_s0, turn);
      }
    }
    // Planned here, after the lean loop, so that none of it is held across that loop.
    const Copies copies = plan_copies(p, x0, s0, kb, ke);
    if (!issued) {
      OCCTUNE_SKINNY_UNROLL
      for (int i = 0; i < STAGES - 1; ++i) issue(copies, sm, i, slabs);
    }
    const int dense_n = kDenseB && copies.dense ? p.n : 0;
    for (; st < slabs; ++st) {
      tile::copy_wait<STAGES - 2>();  // slab st has landed (this thread's copies)
      __syncthreads();  // everyone's copies of slab st, and everyone is done with slab st - 1
      issue(copies, sm, st + STAGES - 1, slabs);  // into slab st - 1's stage
      consume<false>(acc, sm + (st % STAGES) * kStageFloats, slot, q, my_s0, dense_n, turn);
    }
    tile::copy_wait<0>();  // only empty groups are left; the ring is reused below
    __syncthreads();
    if constexpr (kDenseB)
      if (turn) unturn(acc, turn);
    if constexpr (!WINDOW) {
      sum_slots(p, acc, sm, inbox, slot, q, my_s0, s0, x0, slice_floats(full));
    } else {
      sum_slots_window(p, acc, sm, slot, q, my_s0, s0, x0, kb, ke, slice_floats(full));
    }
    if constexpr (kCluster) finish_cluster(p, sm + S * kRedRow, inbox, s0, x0);
    if constexpr (WS) finish_split(full, sm, s0, x0, p.m);
  }

  // A's element (row, kb) lies this many floats past a 16-byte boundary: the same for rows four
  // apart (kAWindow).
  __device__ static int a_offset(const GemmArgs& p, int row, int kb) {
    const unsigned base = unsigned(reinterpret_cast<std::uintptr_t>(p.a) >> 2);
    return int((base + unsigned(row) * unsigned(p.lda) + unsigned(kb)) & 3u);
  }
  // The floats from the 16-byte boundary at or before a (an element of A) to a: where its window
  // starts (a copy that starts there reads nothing before A: it is zero-filled or element-wise).
  __device__ static int a_window_shift(const float* a) {
    return int((reinterpret_cast<std::uintptr_t>(a) >> 2) & 3u);
  }
  // run_a_window's Copies: A's from its windows' starts (B's as plan_copies has them: dense in
  // DenseWindow).
  __device__ __forceinline__ static Copies plan_window_copies(const GemmArgs& p, int x0, int s0,
                                                             int kb, int ke) {
    Copies c = plan_copies(p, x0, s0, kb, ke);
    c.a_vec = true;
    c.a_shift = a_window_shift(c.a);
    c.a -= c.a_shift;
    return c;
  }

  // kAWindow (launched where a_window_applies): run's ring over A's windows. Every row's
  // positions cover k from kb - o (o <= 3), so up to three rows more than K's; B's lead rows and
  // A's positions before kb are zero (a row of A before the block's first k is another block's,
  // or another row's, and may hold an infinity), as are those past ke. DenseWindow (launched
  // where dense_b_applies too, and only there) copies B's slabs and lead rows dense and reads
  // them as turned floats (kDenseB), as the dense-B kernel does: at 8192x14x8192 (A aligned) the
  // dense-B kernel took 72.5 us, the variant 85.4 (wave 26, call A); DenseWindowVec (N a
  // multiple of 4) as float4s. A kernel of its own: with both paths the window kernels spilled
  // 4-24 bytes.
  __device__ static void run_a_window(const GemmArgs& full, unsigned char* smem) {
    float* sm = reinterpret_cast<float*>(smem);
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    int s0;
    const GemmArgs p = tile_rows(full, s0);
    const int x0 = int(blockIdx.x) * kTileN;
    int kb, ke;
    k_range(p, kb, ke);
    const int slabs = ke > kb ? (ke - kb + 3 + ROWS - 1) / ROWS : 0;
    float* inbox = sm + kRingBytes / sizeof(float);
    if constexpr (kCluster) Inbox::open(inbox);
    float acc[kRowsPerThread][4];
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < kRowsPerThread; ++s) acc[s][0] = acc[s][1] = acc[s][2] = acc[s][3] = 0.0f;
    const int slot = warp / H * kGroups + lane / kLanes, q = lane % kLanes, h = warp % H;
    // Position 4 slot + i (plus whole passes of the slots) of group h's rows of class c meets
    // B's row 4 slot + i - o_c of the slab, a lead row where negative.
    // DenseWindow: B's rows N floats apart from the slab's start, the lead rows before it.
    int b_off[kOffsetClasses][4];
    OCCTUNE_SKINNY_UNROLL
    for (int c = 0; c < kOffsetClasses; ++c) {
      const int o = a_offset(p, s0 + h + H * c, kb);
      OCCTUNE_SKINNY_UNROLL
      for (int i = 0; i < 4; ++i)
        b_off[c][i] = kDenseB ? (4 * slot + i - o) * p.n + 4 * q
                              : b_at(kLead + 4 * slot + i - o) - kLead * COLS + 4 * q;
    }
    const int turn = kDenseB && !kDenseVec ? dense_turn(p.n, lane) : 0;
    // Copies' tested copies only: lean ones for the slabs inside K (as run's) took 0-9% longer
    // (wave 25, call C).
    const Copies c = plan_window_copies(p, x0, s0, kb, ke);
    OCCTUNE_SKINNY_UNROLL
    for (int i = 0; i < STAGES - 1; ++i) issue<true>(c, sm, i, slabs);
    for (int st = 0; st < slabs; ++st) {
      tile::copy_wait<STAGES - 2>();
      __syncthreads();
      issue<true>(c, sm, st + STAGES - 1, slabs);
      consume_window(acc, sm, st, slot, b_off, h, p.n, turn);
    }
    tile::copy_wait<0>();
    __syncthreads();
    if constexpr (kDenseB)
      if (turn) unturn(acc, turn);
    sum_slots<H>(p, acc, sm, inbox, slot, q, h, s0, x0, slice_floats(full));
    if constexpr (kCluster) finish_cluster(p, sm + S * kRedRow, inbox, s0, x0);
    if constexpr (WS) finish_split(full, sm, s0, x0, p.m);
  }

  // run_a_window's FMAs over slab st: group h's rows of A of each offset class c against B's
  // rows b_off[c] (a thread's four rows of the slab at position 4 slot, lead rows where
  // negative), each pass of the slots on; DenseWindow: B's rows dense, n floats apart, read as
  // floats turned by `turn` (dense_turn). A class's B rows are read just before its FMAs, so
  // that one class's are held at a time (the 16-row threads hold 64 sums in 128 registers); the
  // last class first: the other way round ptxas spilled 176 bytes in the 32-row ring's window
  // kernel (4 stages, no cluster), this way 40 (its other kernels 0-4 either way).
  __device__ __forceinline__ static void consume_window(float (&acc)[kRowsPerThread][4],
                                                        const float* sm, int st, int slot,
                                                        const int (&b_off)[kOffsetClasses][4],
                                                        int h, int n, int turn) {
    const float* buf = sm + (st % STAGES) * kStageFloatsAW + kLead * COLS;
    OCCTUNE_SKINNY_UNROLL
    for (int j = 0; j < ROWS / kSlots; j += 4) {
      OCCTUNE_SKINNY_UNROLL
      for (int back = 0; back < kOffsetClasses; ++back) {
        const int c = kOffsetClasses - 1 - back;
        float4 v[4];
        OCCTUNE_SKINNY_UNROLL
        for (int i = 0; i < 4; ++i) {
          if constexpr (kDenseVec) {
            v[i] = tile::load4(buf + kSlots * j * n + b_off[c][i]);
          } else if constexpr (kDenseB) {
            v[i] = load_turned(buf + kSlots * j * n + b_off[c][i], turn);
          } else {
            v[i] = tile::load4(buf + kSlots * j * COLS + b_off[c][i]);
          }
        }
        fma_a_rows<H, kOffsetClasses>(acc, v, buf + kBFloats + h * ROWS, kSlots * j + 4 * slot,
                                      c);
      }
    }
  }

  // The lean loop (Lean): the first STAGES - 1 slabs issued, then every slab but the last
  // STAGES - 1 of the `whole` ones consumed (returned: the next to consume) as the next is issued.
  template <bool DENSE_VEC>
  __device__ __forceinline__ static int lean_slabs(const GemmArgs& p,
                                                   float (&acc)[kRowsPerThread][4], float* sm,
                                                   int x0, int s0, int kb, int whole, int slot,
                                                   int q, int my_s0, int turn) {
    Lean l = plan_lean(p, x0, s0, kb);
    OCCTUNE_SKINNY_UNROLL
    for (int i = 0; i < STAGES - 1; ++i) issue_lean(l, sm, i);
    int st = 0;
    for (; st + STAGES - 1 < whole; ++st) {
      tile::copy_wait<STAGES - 2>();
      __syncthreads();
      issue_lean(l, sm, st + STAGES - 1);
      consume<DENSE_VEC>(acc, sm + (st % STAGES) * kStageFloats, slot, q, my_s0, p.n, turn);
    }
    return st;
  }

  // A thread's FMAs over the landed slab in buf: its rows of the slab (slot, slot + kSlots, ...)
  // times A's values at them, into its sums of C's rows my_s0 ... and columns 4q ... 4q + 3.
  template <bool DENSE_VEC>
  __device__ __forceinline__ static void consume(float (&acc)[kRowsPerThread][4], const float* buf,
                                                 int slot, int q, int my_s0, int dense_n,
                                                 int turn) {
    if constexpr (kPipeVecA) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < ROWS / kSlots; j += 4)
        fma_rows4<DENSE_VEC>(acc, buf, kSlots * j + 4 * slot, q, my_s0, dense_n, turn);
    } else {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < ROWS / kSlots; ++j) {
        const int r = slot + kSlots * j;
        const float4 v = tile::load4(buf + b_at(r) + 4 * q);
        float a[S];
        if constexpr (S % 4 == 0) {
          OCCTUNE_SKINNY_UNROLL
          for (int s = 0; s < S; s += 4) {
            const float4 w = tile::load4(buf + kBFloats + r * S + s);
            a[s] = w.x, a[s + 1] = w.y, a[s + 2] = w.z, a[s + 3] = w.w;
          }
        } else {
          a[0] = buf[kBFloats + r];  // one address per warp-row: a broadcast
        }
        OCCTUNE_SKINNY_UNROLL
        for (int s = 0; s < S; ++s) {
          acc[s][0] = fmaf(a[s], v.x, acc[s][0]);
          acc[s][1] = fmaf(a[s], v.y, acc[s][1]);
          acc[s][2] = fmaf(a[s], v.z, acc[s][2]);
          acc[s][3] = fmaf(a[s], v.w, acc[s][3]);
        }
      }
    }
  }

  // The slots' sums of the block's tile, added in slot order, and written to C (or, in a
  // cluster, pushed to their owners' inboxes for the cluster's sum, Inbox; WS, written to this
  // block's slice of the workspace). A thread's four sums of a row
  // are one float4 store, and a thread adds four columns at a time: the 64 KB of the 64-row
  // rings' sums went by 4-byte stores four lanes to a bank, 2048 shared-memory cycles a block
  // that held every SM of 8192x16x8192 at its end (docs/PERFORMANCE.md, "The rings' final
  // sums").
  template <int ROW_STEP = 1>
  __device__ __forceinline__ static void sum_slots(const GemmArgs& p,
                                                   const float (&acc)[kRowsPerThread][4],
                                                   float* red, float* inbox, int slot, int q,
                                                   int my_s0, int s0, int x0,
                                                   std::size_t slice) {
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < kRowsPerThread; ++s)
      tile::store4(red + (my_s0 + ROW_STEP * s) * kRedRow + slot * kTileN + 4 * q,
                   make_float4(acc[s][0], acc[s][1], acc[s][2], acc[s][3]));
    __syncthreads();
    if constexpr (kCluster) Inbox::ready();
    constexpr int kQuads = kTileN / 4;
    for (int e = int(threadIdx.x); e < S * kQuads; e += kSkinnyThreads) {
      const int s = e / kQuads, c = 4 * (e % kQuads), x = x0 + c;
      if (!kCluster && (s0 + s >= p.m || x >= p.n)) continue;
      float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      for (int g = 0; g < kSlots; ++g) {
        const float4 v = tile::load4(red + s * kRedRow + g * kTileN + c);
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
      }
      if constexpr (kCluster) {
        Inbox::push(inbox, s * kTileN + c, sum);
      } else if constexpr (WS) {
        const float sums[4] = {sum.x, sum.y, sum.z, sum.w};
        float* out = p.workspace + std::size_t(blockIdx.z) * slice +
                     std::size_t(s0 + s) * std::size_t(p.n) + x;
        OCCTUNE_SKINNY_UNROLL
        for (int j = 0; j < 4; ++j)
          if (x + j < p.n) out[j] = sums[j];
      } else {
        const float sums[4] = {sum.x, sum.y, sum.z, sum.w};
        float* out = p.c + std::size_t(s0 + s) * std::size_t(p.ldc) + x;
        OCCTUNE_SKINNY_UNROLL
        for (int j = 0; j < 4; ++j)
          if (x + j < p.n) out[j] = scale_output(sums[j], out + j, p.alpha, p.beta);
      }
    }
  }

  // WINDOW: the same, element by element, each thread's sums at the columns they hold.
  __device__ __forceinline__ static void sum_slots_window(const GemmArgs& p,
                                                          const float (&acc)[kRowsPerThread][4],
                                                          float* red, int slot, int q, int my_s0,
                                                          int s0, int x0, int kb, int ke,
                                                          std::size_t slice) {
    // WINDOW: this thread's rows are its slot plus multiples of 4, so they share one offset o,
    // and its sums are of the tile's columns 4q - o ... 4q + 3 - o; each slot covers every
    // column of the tile once (COLS floats from -o).
    const int first = 4 * q - window_offset(p, kb + slot, x0);
    OCCTUNE_SKINNY_UNROLL
    for (int s = 0; s < kRowsPerThread; ++s) {
      OCCTUNE_SKINNY_UNROLL
      for (int j = 0; j < 4; ++j)
        if (first + j >= 0 && first + j < kTileN)
          red[(my_s0 + s) * kRedRow + slot * kTileN + first + j] = acc[s][j];
    }
    __syncthreads();
    float* part = red + S * kRedRow;  // a cluster's block sums: part[s][column]
    for (int e = int(threadIdx.x); e < S * kTileN; e += kSkinnyThreads) {
      const int s = e / kTileN, c = e % kTileN, x = x0 + c;
      if (!kCluster && (s0 + s >= p.m || x >= p.n)) continue;
      float sum = 0.0f;
      for (int g = 0; g < kSlots; ++g) sum += red[s * kRedRow + g * kTileN + c];
      // WINDOW: B's last row, which the ring did not copy (Copies::k_b), from the block that
      // holds it, after the slots' sums (a fixed order).
      if (ke == p.k && ke > kb && s0 + s < p.m && x < p.n)
        sum = fmaf(p.a[std::size_t(s0 + s) * std::size_t(p.lda) + (p.k - 1)],
                   p.b[std::size_t(p.k - 1) * std::size_t(p.ldb) + x], sum);
      if constexpr (kCluster) {
        part[e] = sum;
      } else if constexpr (WS) {
        p.workspace[std::size_t(blockIdx.z) * slice + std::size_t(s0 + s) * std::size_t(p.n) + x] =
            sum;
      } else {
        float* out = p.c + std::size_t(s0 + s) * std::size_t(p.ldc) + x;
        *out = scale_output(sum, out, p.alpha, p.beta);
      }
    }
  }

  // WS: every block has written its sums of the tile to its slice; the one that takes the tile's
  // last ticket adds the SPLITS slices in split order (whichever block finished last) and writes
  // C's rows of the tile, up to m_end (tile_rows), as the register kernels' split does
  // (kernels/skinny.cuh, skinny_last_of_tile). p is the whole operands' (the workspace's
  // layout). The flag goes where the sums were read from (red), which every thread is done with
  // after that function's first barrier.
  __device__ static void finish_split(const GemmArgs& p, float* red, int s0, int x0, int m_end) {
    if (!skinny_last_of_tile(tickets(p), SPLITS, reinterpret_cast<unsigned*>(red))) return;
    const std::size_t mn = slice_floats(p);
    for (int e = int(threadIdx.x); e < S * kTileN; e += kSkinnyThreads) {
      const int s = s0 + e / kTileN, x = x0 + e % kTileN;
      if (s >= m_end || x >= p.n) continue;
      const std::size_t i = std::size_t(s) * std::size_t(p.n) + std::size_t(x);
      float sum = 0.0f;
      for (int z = 0; z < SPLITS; ++z) sum += skinny_load_slice(p.workspace + z * mn + i);
      float* out = p.c + std::size_t(s) * std::size_t(p.ldc) + x;
      *out = scale_output(sum, out, p.alpha, p.beta);
    }
  }

  // The cluster's sums (Inbox): pushed by sum_slots, or (WINDOW) held as part[s][column] and
  // pushed from there; the block's share added and written to C.
  __device__ static void finish_cluster(const GemmArgs& p, const float* part, float* inbox, int s0,
                                        int x0) {
    const auto keep = [&](int e) { return s0 + e / kTileN < p.m && x0 + e % kTileN < p.n; };
    const auto emit = [&](int e, float sum) {
      float* out = p.c + std::size_t(s0 + e / kTileN) * std::size_t(p.ldc) + x0 + e % kTileN;
      *out = scale_output(sum, out, p.alpha, p.beta);
    };
    if constexpr (WINDOW) {
      Inbox::gather(part, inbox, keep, emit);
    } else {
      (void)part;
      Inbox::collect(inbox, keep, emit);
    }
  }
};

// The nn variants under their own name (the kernel manifest knows a kernel by its name).
template <int S, int COLS, int ROWS, int STAGES>
struct SkinnyPipe : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES> {};
// The ring for N <= 16 with a large A (SMALL_N above).
template <int S, int COLS, int ROWS, int STAGES>
struct SkinnyPipeSmallN : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, false, 1, true> {};
// The same with the block's S = 16 H rows of C in H groups of its warps (H above).
template <int S, int COLS, int ROWS, int STAGES>
struct SkinnyPipeSmallNRowGroups
    : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, false, 1, true, S / 16> {};
// Any alignment of B's rows, COLS - 4 columns a tile (WINDOW above).
template <int S, int COLS, int ROWS, int STAGES>
struct SkinnyPipeWindow : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, true> {};
// Either ring with K split over a cluster of SPLITS blocks (sm_90; SPLITS above).
template <int S, int COLS, int ROWS, int STAGES, int SPLITS>
struct SkinnyPipeCluster : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, false, SPLITS> {};
template <int S, int COLS, int ROWS, int STAGES, int SPLITS>
struct SkinnyPipeWindowCluster : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, true, SPLITS> {};
// The ring for N <= 16 (in row groups from S = 32) with K split over a cluster of SPLITS blocks
// (sm_90): for few rows of C, whose blocks alone are too few to keep HBM busy.
template <int S, int COLS, int ROWS, int STAGES, int SPLITS>
struct SkinnyPipeSmallNCluster
    : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, false, SPLITS, true, S >= 32 ? S / 16 : 1> {
};
// The rings with K split over SPLITS blocks through a workspace (WS above): no cluster, so more
// splits than eight, and no cluster residency to fit. For M <= 16 (either ring), and the 16-row
// ring for N <= 16.
template <int S, int COLS, int ROWS, int STAGES, int SPLITS>
struct SkinnyPipeSplit
    : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, false, SPLITS, false, 1, 0, false, true> {};
template <int S, int COLS, int ROWS, int STAGES, int SPLITS>
struct SkinnyPipeWindowSplit
    : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, true, SPLITS, false, 1, 0, false, true> {};
template <int S, int COLS, int ROWS, int STAGES, int SPLITS>
struct SkinnyPipeSmallNSplit
    : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, false, SPLITS, true, 1, 0, false, true> {};
// The same at 32 rows of C a block in two groups of warps: M of 17-32 in one row tile, which
// reads B once where two 16-row tiles read it twice.
template <int S, int COLS, int ROWS, int STAGES, int SPLITS>
struct SkinnyPipeSmallNRowGroupsSplit
    : SkinnyPipeIn<Layout::kNN, S, COLS, ROWS, STAGES, false, SPLITS, true, S / 16, 0, false,
                   true> {};

// The registered rings for N <= 16 in row groups (kernels/skinny.cu, after the row-dot
// kernel's): 32 rows of C a block at 16 columns (slabs of 128 rows, 3 or 4 stages) and 8 (256
// rows, 2 stages), and 64 rows at 16 (64 rows, 4 stages) and 8 (128 rows, 2 or 3 stages),
// chosen by lab/rowdot_lab.cu (wave 17's calls E and F): 64 rows a block need M of about 16K
// to fill the SMs, 32 rows 8K, so both stay.
#define OCCTUNE_SKINNY_ROW_GROUP_VARIANTS(X)     \
  X(SkinnyPipeSmallNRowGroups<32, 16, 128, 4>) \
  X(SkinnyPipeSmallNRowGroups<32, 16, 128, 3>) \
  X(SkinnyPipeSmallNRowGroups<64, 16, 64, 4>)  \
  X(SkinnyPipeSmallNRowGroups<32, 8, 256, 2>)  \
  X(SkinnyPipeSmallNRowGroups<64, 8, 128, 3>)  \
  X(SkinnyPipeSmallNRowGroups<64, 8, 128, 2>)

// The registered rings for N <= 16 with K split over a cluster (kernels/skinny.cu, last; sm_90,
// so not run by the host emulator), chosen by lab/rowdot_lab.cu (wave 18's calls A and E): each
// the fastest ring at some of 8192x16x8192 and 8192x12x8192 (64 rows, 2 splits), 4096x16x4096 and
// 6000x16x20000 (32 rows, 2), 2000x16x50000 and 1024x16x65536 (16 rows, 2), 1000x12x100000 (16
// rows, 8), 2000x8x50000 and 2048x5x32768 (16 rows on 8 columns, 2), 500x8x200000 (the same, 4),
// 4096x8x4096 (64 rows on 8 columns, 2) and 3000x6x30000 (the same, 4). Wave 25's calls A and C
// (clusters of 3-8 blocks; A's windows in call C): the 64-row ring split over 3 (9999x15x7777,
// 10000x12x9999 and 5000x16x20001: 126.5, 157.1 and 161.3 us against 148.1, 189.1 and 187.2 for
// the best registered ring), 5 (9000x14x9001: 131.2 against 165.3) and 8 (777x12x3001: 11.2
// against 13.6), and on 8 columns over 8 (11000x8x11000 130.8 against 132.6, 12000x8x12001 171.1
// against 182.9): their tiles make a fraction of a wave at 2. Wave 27's call A (on an H100, A's
// windows at 16 and 32 rows of C new): the 32-row ring over 7 (1000x12x100001: 197 us with its
// DenseWindow kernel, against 222 over 6 and 256 over 8), the 16-row ring over 7 in place of 8
// (500x16x200001: 191 against 255; 1000x12x100000 150.5 against 167.8; the 16- and 32-row
// rings lost over 8 to over 7 at every shape of the call), and the 32-row ring on 8 columns
// over 2 (12000x8x12001: 217 against 223 for the 64-row ring over 8). Wave 30's call B: the
// 16-row ring over 4, whose 63 clusters at M = 1000 are one past the 62 the H100 holds at once
// by default but within the 66 it holds with LoadBalancing (kernels/cluster_waves.hpp): 145.3 us
// at 1000x12x100000 launched balanced, the fastest ring of that call. Wave 31's call E: the
// 16-row ring over every cluster size from 2 to 8, so that a few tiles (M of a few hundred, a
// long K) can fill one wave with some split: 603x13x76521 98.7 us over 6 (38 clusters, 39 fit)
// against 134.1 for the best ring registered before, 350x16x120000 66.5 over 5 against 74.1,
// 473x13x38586 44.7 over 8 against 48.8, 700x11x60001 93.1 over 5 against 99.9.
#define OCCTUNE_SKINNY_SMALL_N_CLUSTER_VARIANTS(X) \
  X(SkinnyPipeSmallNCluster<64, 16, 64, 4, 2>)     \
  X(SkinnyPipeSmallNCluster<32, 16, 128, 4, 2>)    \
  X(SkinnyPipeSmallNCluster<32, 16, 128, 4, 7>)    \
  X(SkinnyPipeSmallNCluster<16, 16, 256, 3, 2>)    \
  X(SkinnyPipeSmallNCluster<16, 16, 256, 3, 3>)    \
  X(SkinnyPipeSmallNCluster<16, 16, 256, 3, 4>)    \
  X(SkinnyPipeSmallNCluster<16, 16, 256, 3, 5>)    \
  X(SkinnyPipeSmallNCluster<16, 16, 256, 3, 6>)    \
  X(SkinnyPipeSmallNCluster<16, 16, 256, 3, 7>)    \
  X(SkinnyPipeSmallNCluster<16, 16, 256, 3, 8>)    \
  X(SkinnyPipeSmallNCluster<32, 8, 256, 2, 2>)     \
  X(SkinnyPipeSmallNCluster<16, 8, 512, 2, 2>)     \
  X(SkinnyPipeSmallNCluster<16, 8, 512, 2, 4>)     \
  X(SkinnyPipeSmallNCluster<64, 8, 128, 3, 2>)     \
  X(SkinnyPipeSmallNCluster<64, 8, 128, 3, 4>)     \
  X(SkinnyPipeSmallNCluster<64, 16, 64, 4, 3>)     \
  X(SkinnyPipeSmallNCluster<64, 16, 64, 4, 5>)     \
  X(SkinnyPipeSmallNCluster<64, 16, 64, 4, 8>)     \
  X(SkinnyPipeSmallNCluster<64, 8, 128, 3, 8>)

// The registered rings with K split through a workspace (kernels/skinny.cu, after the cluster
// rings; any GPU with cp.async, and the host emulator). For M <= 16, the 64-column rings (B's
// rows aligned or through windows) over 6, 8, 12 and 16 blocks: a few column tiles over a long
// K, past the clusters of 2-4 (16x4317x51043: 72 tiles, wave 32's call B, went to the register
// kernel over 32 at 0.99x cuBLAS). For N <= 16, the 16-row ring over 8, 12,
// 16, 24, 32, 48, 64, 96 and 128 blocks (each about 1.5 times the one before), so that a few
// tiles over a long K make close to a wave of blocks with some split: at two blocks an SM (264
// slots on an H100) 2 tiles over 128, 4 over 64, 5 over 48, 8 over 32, 11 over 24, 16 over 16,
// 22 over 12, 33 over 8 (docs/PERFORMANCE.md, "Splits past a cluster"). The 32-row ring for N <=
// 16 over 64-256 (wave 33): M of 17-32 in one row tile (B read once) that fills the 264 slots
// at 192 or 256 splits, and 33-64 rows in two tiles of even height. The same ring on 8 columns
// with 256-row slabs (wave 35, call A's lab: N <= 8, 17-64 rows over a K of 1.8-5.7 million)
// over 128 (2 or 3 stages) and 256 (2 stages): 4-40% faster than the 16-column rings there
// (18x6x5666845 206 against 289 us, 45x7x1846663 144 against 163, 29x5x3644210 180 against
// 193), since a 16-column tile at N <= 8 copies and multiplies twice the columns it needs.
#define OCCTUNE_SKINNY_WORKSPACE_SPLIT_VARIANTS(X) \
  X(SkinnyPipeSplit<16, 64, 64, 4, 6>)             \
  X(SkinnyPipeSplit<16, 64, 64, 4, 8>)             \
  X(SkinnyPipeSplit<16, 64, 64, 4, 12>)            \
  X(SkinnyPipeSplit<16, 64, 64, 4, 16>)            \
  X(SkinnyPipeWindowSplit<16, 64, 64, 4, 6>)       \
  X(SkinnyPipeWindowSplit<16, 64, 64, 4, 8>)       \
  X(SkinnyPipeWindowSplit<16, 64, 64, 4, 12>)      \
  X(SkinnyPipeWindowSplit<16, 64, 64, 4, 16>)      \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 8>)    \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 12>)   \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 16>)   \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 24>)   \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 32>)   \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 48>)   \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 64>)   \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 96>)   \
  X(SkinnyPipeSmallNSplit<16, 16, 256, 3, 128>)  \
  X(SkinnyPipeSmallNRowGroupsSplit<32, 16, 128, 4, 64>) \
  X(SkinnyPipeSmallNRowGroupsSplit<32, 16, 128, 4, 128>) \
  X(SkinnyPipeSmallNRowGroupsSplit<32, 16, 128, 4, 192>) \
  X(SkinnyPipeSmallNRowGroupsSplit<32, 16, 128, 4, 256>) \
  X(SkinnyPipeSmallNRowGroupsSplit<32, 8, 256, 2, 128>) \
  X(SkinnyPipeSmallNRowGroupsSplit<32, 8, 256, 3, 128>) \
  X(SkinnyPipeSmallNRowGroupsSplit<32, 8, 256, 2, 256>)

}  // namespace occtune::kernels
