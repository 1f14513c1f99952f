// Every registered variant of the tile-based families (issue #3), of the small-M/N, stream-K
// and repacked families (issue #18) and of tiled_dynamic and naive, in its operand layout
// (issue #12: nn, nt, tn, tt), run on the host emulator (tests/support/kernel_emulator.hpp),
// no GPU needed: against a double-precision reference on shapes with partial tiles in M, N and
// K, K below the slab depth and whole tiles; with exact, padded (misaligned) and shifted
// (misaligned base) storage whose padding holds NaN; bitwise identical whatever order the
// threads run in and whenever the async copies land; never writing outside C, never faulting
// past an allocation or the shared memory it declared. Repacked variants run their copy pass
// first, and their copy plan and registry metadata are checked on their own.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// The emulator defines the CUDA built-ins the kernel headers use, so it comes first.
#include "tests/support/kernel_emulator.hpp"

#include "kernels/coarsened.cuh"
#include "kernels/kernel_manifest.hpp"
#include "kernels/pipelined.cuh"
#include "kernels/regblocked.cuh"
#include "kernels/registry.hpp"
#include "kernels/repacked.cuh"
#include "kernels/skinny.cuh"
#include "kernels/splitk.cuh"
#include "kernels/streamk.cuh"
// tiled.cuh unrolls with a plain `#pragma unroll`, which the host compiler does not know.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "kernels/tiled.cuh"
#pragma GCC diagnostic pop

namespace occtune {
namespace {

using namespace kernels;

struct Storage {
  const char* name;
  int pad_a, pad_b, pad_c;  // leading dimension minus the stored row length
  std::size_t shift;        // floats the base pointers are moved by (misaligns them)
};

constexpr Storage kExact{"exact", 0, 0, 0, 0};
constexpr Storage kPadded{"padded", 1, 3, 2, 0};
constexpr Storage kShifted{"shifted", 0, 0, 0, 1};
// A's rows padded by 3: at the shapes' K = 3 * slab + 5 (a multiple of 4 plus 1), lda is a
// multiple of 4, so a ring that copies A as 16-byte vectors (SkinnyPipeVecA) takes them, with
// a K that ends inside a vector. B's rows padded by 3 as well: at N = tile + 5, ldb is a
// multiple of 4, so the ring's vector copies of B meet whole and partial slabs and columns
// together (its copies without tests, and the tested ones at the ends of K, M and N).
constexpr Storage kPaddedA4{"A and B padded to 4s", 3, 3, 0, 0};

struct Shape3 {
  int m, n, k;
};

// A and B random in [-1, 1), stored as `layout` says (op(A) = T: A stored K x M), with NaN in
// their padding; C all NaN when beta is 0 (it must not be read then), else random in its valid
// region; the double reference of alpha op(A) op(B) + beta C.
struct Problem {
  Shape3 s;
  Layout layout;
  int lda, ldb, ldc;
  emu::GuardedBuffer a, b, c;
  float alpha, beta;
  std::vector<float> c0;  // C before the kernel (NaN in the padding, and everywhere if beta 0)
  std::vector<double> ref;

  // Stored rows and their lengths.
  static int rows_a(Shape3 s, Layout l) { return transposes_a(l) ? s.k : s.m; }
  static int cols_a(Shape3 s, Layout l) { return transposes_a(l) ? s.m : s.k; }
  static int rows_b(Shape3 s, Layout l) { return transposes_b(l) ? s.n : s.k; }
  static int cols_b(Shape3 s, Layout l) { return transposes_b(l) ? s.k : s.n; }

  // op(A)(i, p) and op(B)(p, j) in the stored buffers.
  float& op_a(int i, int p) {
    return transposes_a(layout) ? a[std::size_t(p) * lda + i] : a[std::size_t(i) * lda + p];
  }
  float& op_b(int p, int j) {
    return transposes_b(layout) ? b[std::size_t(j) * ldb + p] : b[std::size_t(p) * ldb + j];
  }

  Problem(Shape3 shape, Layout l, const Storage& st, float alpha_ = 1.0f, float beta_ = 0.0f)
      : s(shape),
        layout(l),
        lda(cols_a(shape, l) + st.pad_a),
        ldb(cols_b(shape, l) + st.pad_b),
        ldc(shape.n + st.pad_c),
        a(std::size_t(rows_a(shape, l)) * std::size_t(lda), st.shift),
        b(std::size_t(rows_b(shape, l)) * std::size_t(ldb), st.shift),
        c(std::size_t(shape.m) * std::size_t(ldc), st.shift),
        alpha(alpha_),
        beta(beta_) {
    std::mt19937 rng(unsigned(shape.m * 7919 + shape.n * 31 + shape.k));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int i = 0; i < s.m; ++i)
      for (int p = 0; p < s.k; ++p) op_a(i, p) = dist(rng);
    for (int p = 0; p < s.k; ++p)
      for (int j = 0; j < s.n; ++j) op_b(p, j) = dist(rng);
    c0.assign(c.size(), NAN);
    if (beta != 0.0f)
      for (int i = 0; i < s.m; ++i)
        for (int j = 0; j < s.n; ++j) c0[std::size_t(i) * ldc + j] = dist(rng);
    ref.assign(std::size_t(s.m) * std::size_t(s.n), 0.0);
    for (int i = 0; i < s.m; ++i)
      for (int p = 0; p < s.k; ++p) {
        const double av = op_a(i, p);
        for (int j = 0; j < s.n; ++j) ref[std::size_t(i) * s.n + j] += av * double(op_b(p, j));
      }
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double& r = ref[std::size_t(i) * s.n + j];
        r *= alpha;
        if (beta != 0.0f) r += double(beta) * c0[std::size_t(i) * ldc + j];
      }
  }

  GemmArgs args() {
    GemmArgs g{a.data(), b.data(), c.data(), s.m, s.n, s.k, lda, ldb, ldc};
    g.alpha = alpha;
    g.beta = beta;
    return g;
  }
};

struct Outcome {
  std::string error;
  std::vector<float> c;  // the whole C buffer, padding included
};

// The textbook kernels (square 2D blocks, one output per thread) in the same harness: their
// "tile" is the block width, their slab depth the same width.
template <class V, int W>
struct Textbook {
  static constexpr TileParams kParams{W, W, W, 1, 1, W, W, 1, 1};
  static constexpr Layout kLayout = V::kLayout;
  static constexpr std::size_t kSmemBytes = 2 * std::size_t(W) * W * sizeof(float);
  static dim3 block() { return dim3(W, W, 1); }
  static void run(const GemmArgs& p, unsigned char* smem) { V::run(p, smem); }
};

// Whether V is the row-dot kernel (kernels/skinny_rowdot.cuh), whose B goes the dense way only
// when N is its tile's width.
template <class V, class = void>
struct RowDot : std::false_type {};
template <class V>
struct RowDot<V, std::void_t<decltype(V::kColumns)>> : std::true_type {};

// Whether V is a ring for N <= 16 with a dense-B kernel (kernels/skinny_pipe.cuh).
template <class V, class = void>
struct DenseTwin : std::false_type {};
template <class V>
struct DenseTwin<V, std::void_t<decltype(V::kDenseTwin)>> : std::bool_constant<V::kDenseTwin> {};

// Whether V is a ring with the lean copies (kernels/skinny_pipe.cuh, kLean).
template <class V, class = void>
struct LeanCopies : std::false_type {};
template <class V>
struct LeanCopies<V, std::void_t<decltype(V::kLean)>> : std::bool_constant<V::kLean> {};
// Whether V is a ring for N <= 16 with an A-window kernel (kernels/skinny_pipe.cuh).
template <class V, class = void>
struct WindowTwin : std::false_type {};
template <class V>
struct WindowTwin<V, std::void_t<decltype(V::kWindowTwin)>>
    : std::bool_constant<V::kWindowTwin> {};

// The slabs a block from which a ring's dense-B kernel copies B dense at N a multiple of 4.
template <class V, class = void>
struct DenseMinSlabs : std::integral_constant<int, 0> {};
template <class V>
struct DenseMinSlabs<V, std::void_t<decltype(V::kDenseMinSlabs)>>
    : std::integral_constant<int, V::kDenseMinSlabs> {};

// The small-M/N family (issue #18) in the same harness: its "tile" is S rows (or columns) by
// the stretch of the large dimension a block owns, its slab the 128-deep K tile. Its split
// reduction happens in the kernel (the last block of a tile), so it has no second kernel; its
// workspace ends with the tickets, which the launch zeroes.
template <class V>
struct SkinnyCase {
  static constexpr TileParams kParams{V::kTileM, V::kTileN, V::kKTile, 1, 1, V::kTileM,
                                      V::kTileN, 1,         V::kSplits};
  static constexpr Layout kLayout = V::kLayout;
  static constexpr std::size_t kSmemBytes = V::kSmemBytes;
  static constexpr int kMaxThreads = V::kMaxThreads;
  static constexpr bool kReducesInKernel = true;
  static constexpr bool kVectorA = V::kPipeVecA;
  static constexpr bool kWholeColumns = RowDot<V>::value;
  static constexpr bool kDenseTwin = DenseTwin<V>::value;
  static constexpr bool kWindowTwin = WindowTwin<V>::value;
  static constexpr int kDenseMinSlabs = DenseMinSlabs<V>::value;
  static constexpr bool kLean = LeanCopies<V>::value;
  static std::size_t workspace_bytes(int m, int n) { return V::workspace_bytes(m, n); }
  static void prepare(const GemmArgs& p) {
    std::fill_n(V::tickets(p), V::tiles(p.m, p.n), 0u);
  }
  // As kernels/skinny.cu launches it: a ring for N <= 16 as the twin kernel its operands call
  // for (with_twin_for: A-window, dense-B or both), else itself.
  struct RunTwin {
    const GemmArgs& p;
    unsigned char* smem;
    template <class Kernel>
    void operator()() const {
      Kernel::run(p, smem);
    }
  };
  static void run(const GemmArgs& p, unsigned char* smem) {
    if constexpr (kDenseTwin) {
      if (V::with_twin_for(p, RunTwin{p, smem})) return;
    }
    V::run(p, smem);
  }
};

template <class V, class = void>
struct BlockOf {
  static dim3 block() { return dim3(unsigned(V::kMaxThreads), 1, 1); }
};
template <class V>
struct BlockOf<V, std::void_t<decltype(V::block())>> {
  static dim3 block() { return V::block(); }
};

// Cases whose split reduction happens inside the kernel (SkinnyCase) say so, size their own
// workspace and prepare it as their launch does.
template <class V, class = void>
struct ReducesInKernel : std::false_type {};
template <class V>
struct ReducesInKernel<V, std::void_t<decltype(V::kReducesInKernel)>>
    : std::bool_constant<V::kReducesInKernel> {};

// The copy pass of a repacked launch (kernels/repacked.cuh): the copy kernel's grid, block and
// shared memory on the emulator, block by block as the device runs it. "" or the misuse seen.
std::string run_copy_pass(const repack::Plan& plan, emu::Order order) {
  const long long blocks_a = repack::copy_blocks(plan.a);
  const long long blocks = blocks_a + repack::copy_blocks(plan.b);
  if (blocks == 0) return "";
  return emu::run_grid(
      dim3(unsigned(blocks), 1, 1), dim3(32, repack::kCopyWarps, 1),
      repack::kCopyTileFloats * sizeof(float),
      [&](unsigned char* smem) {
        repack::copy_block(plan.a, plan.b, unsigned(blocks_a), reinterpret_cast<float*>(smem));
      },
      order, emu::CopyTiming::kEager);
}

// A repacked variant (issue #18, kernels/repacked.cuh) over V: one workspace holding the
// operand copies and then `inner_bytes` for V (NaN, a guard page after it), the copy pass run
// as the device's copy kernel runs it (threads in `order`; `error` says a misuse), and the
// arguments V then computes on.
struct Repacking {
  std::unique_ptr<emu::GuardedBuffer> workspace;
  std::string error;

  GemmArgs prepare(GemmArgs args, Layout layout, bool repacked, std::size_t inner_bytes,
                   emu::Order order) {
    const std::size_t front =
        repacked ? repack::operand_bytes(layout, args.m, args.n, args.k) : 0;
    if (front + inner_bytes == 0) return args;
    workspace = std::make_unique<emu::GuardedBuffer>((front + inner_bytes) / sizeof(float));
    args.workspace = workspace->data();
    args.workspace_bytes = front + inner_bytes;
    if (!repacked) return args;
    const repack::Plan plan = repack::plan(layout, args);
    if (std::string e = run_copy_pass(plan, order); !e.empty()) error = "copy pass: " + e;
    return plan.inner;
  }
};

template <class V>
Outcome run_variant(Problem& pr, emu::Order order, emu::CopyTiming timing,
                    bool repacked = false) {
  constexpr TileParams kP = V::kParams;
  std::copy(pr.c0.begin(), pr.c0.end(), pr.c.data());
  std::size_t inner_bytes = tile_workspace_bytes(kP, pr.s.m, pr.s.n);
  if constexpr (ReducesInKernel<V>::value) inner_bytes = V::workspace_bytes(pr.s.m, pr.s.n);
  Repacking copies;
  GemmArgs args = copies.prepare(pr.args(), V::kLayout, repacked, inner_bytes, order);
  if (!copies.error.empty()) return Outcome{copies.error, {}};
  if constexpr (ReducesInKernel<V>::value && kP.splits > 1) V::prepare(args);
  const dim3 grid(unsigned((pr.s.n + kP.bn - 1) / kP.bn), unsigned((pr.s.m + kP.bm - 1) / kP.bm),
                  unsigned(kP.splits));
  Outcome out;
  out.error = emu::run_grid(
      grid, BlockOf<V>::block(), V::kSmemBytes, [&](unsigned char* smem) { V::run(args, smem); },
      order, timing);
  if constexpr (kP.splits > 1 && !ReducesInKernel<V>::value) {
    // The second pass as the device runs it (kernels/splitk.cu): the same split groups, a
    // few blocks so the grid-stride loop and the barriers between its rounds are exercised.
    if (out.error.empty())
      out.error = with_reduce_groups<kP.splits>(pr.s.m, pr.s.n, [&](auto groups) {
        return emu::run_grid(
            dim3(3, 1, 1), dim3(V::kReduceThreads, 1, 1), V::kReduceThreads * sizeof(float4),
            [&](unsigned char* smem) {
              V::template reduce_block<decltype(groups)::value>(args,
                                                                 reinterpret_cast<float4*>(smem));
            },
            order, emu::CopyTiming::kEager);
      });
  }
  out.c.assign(pr.c.data(), pr.c.data() + pr.c.size());
  return out;
}

// Relative Frobenius error of the valid region (NaN anywhere makes it NaN), and whether every
// padding element of C is still the NaN it was poisoned with.
double relative_error(const Problem& pr, const std::vector<float>& c, bool& padding_untouched) {
  double diff = 0, norm = 0;
  padding_untouched = true;
  for (int i = 0; i < pr.s.m; ++i) {
    for (int j = 0; j < pr.ldc; ++j) {
      const float got = c[std::size_t(i) * pr.ldc + j];
      if (j >= pr.s.n) {
        padding_untouched = padding_untouched && std::isnan(got);
        continue;
      }
      const double want = pr.ref[std::size_t(i) * pr.s.n + j];
      diff += (double(got) - want) * (double(got) - want);
      norm += want * want;
    }
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

bool bitwise_equal(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

// repacked: V run as the inner variant of a repacked one (kernels/repacked.cuh), after the
// copy pass, on the same shapes plus odd ones with K a few slabs past 1000 (K % 4 = 1 and 3).
// Whether V copies A as 16-byte vectors (SkinnyCase's kVectorA): it runs with kPaddedA4 too.
template <class V, class = void>
struct VectorA : std::false_type {};
template <class V>
struct VectorA<V, std::void_t<decltype(V::kVectorA)>> : std::bool_constant<V::kVectorA> {};

template <class V, class = void>
struct WholeColumns : std::false_type {};
template <class V>
struct WholeColumns<V, std::void_t<decltype(V::kWholeColumns)>>
    : std::bool_constant<V::kWholeColumns> {};

template <class V>
void check_variant(const std::string& symbol, bool repacked) {
  constexpr TileParams kP = V::kParams;
  std::vector<Shape3> shapes = {
      {2 * kP.bm + 3, kP.bn + 5, 3 * kP.bk + 5},  // partial tiles everywhere, a K residue
      {kP.bm, 2 * kP.bn, 4 * kP.bk},              // whole tiles: the fast paths
      {5, 7, 3},                                  // smaller than one tile, K below the slab
      {1, 1, 1},
  };
  if (repacked) {
    shapes.push_back({kP.bm + 17, 17, 1001});
    shapes.push_back({17, kP.bn + 1, 1027});
  }
  // The row-dot kernel with N its tile's width (B dense: 4 * N floats a quad) over whole
  // batches and a partial one, and with one column fewer (N = 3 on 4-column tiles: B dense in
  // three float4s a quad).
  if constexpr (WholeColumns<V>::value) {
    shapes.push_back({kP.bm + 1, kP.bn, 4 * kP.bk + 4});
    if (kP.bn > 1) shapes.push_back({kP.bm + 1, kP.bn - 1, 4 * kP.bk + 4});
  }
  // Dense B: N below the tile's width and not a multiple of 4 (B's rows misaligned, ldb = N in
  // the exact storage) over whole slabs, a partial one and a last float4 that B's end cuts
  // (K * N odd).
  if constexpr (DenseTwin<V>::value) shapes.push_back({kP.bm + 3, kP.bn - 3, 3 * kP.bk + 5});
  // Dense B with N a multiple of 4 below the tile's width (N = 12 on 16 columns) and K long
  // enough for it (V::kDenseMinSlabs slabs a block): the lean loop's dense copies and float4
  // loads, then the tested dense copies of the last slab.
  if constexpr (DenseTwin<V>::value)
    if (kP.bn > 4) shapes.push_back({kP.bm, kP.bn - 4, V::kDenseMinSlabs * kP.bk + 4});
  // Dense B with B's rows misaligned and A's aligned (K a multiple of 4): the lean loop's dense
  // copies read as floats, then the tested dense copies of the last slab.
  if constexpr (DenseTwin<V>::value) shapes.push_back({kP.bm, kP.bn - 3, 4 * kP.bk + 4});
  // A's rows through windows (the A-window kernel of the rings for N <= 16, launched where A's
  // rows are misaligned): lda = K = 2 mod 4 (two offsets, rows four apart alike: at 16 and 32
  // rows of C two offset classes of a thread's rows alike too) over several slabs, N misaligned
  // (B's rows by element copies); the other shapes give K odd (four offsets: the classes of a
  // thread's rows all differ) and, shifted, A itself misaligned (row 0's first window starts
  // before A).
  if constexpr (DenseTwin<V>::value) shapes.push_back({kP.bm + 1, kP.bn - 2, 5 * kP.bk + 2});
  // A's windows with B's rows aligned (N the tile's width; B's 16-byte copies and their lead
  // rows) and K odd over six slabs, a row tile inside M and one past it.
  if constexpr (DenseTwin<V>::value) shapes.push_back({2 * kP.bm + 1, kP.bn, 6 * kP.bk + 1});
  // A's windows with B dense (exact storage: the A-window kernel's DenseWindow; the shapes above
  // with N below the tile's width give N misaligned): N a multiple of 4 over enough slabs for
  // dense B (its rows read as floats, turned), K = 3 mod 4.
  if constexpr (WindowTwin<V>::value)
    if (kP.bn > 4) shapes.push_back({kP.bm + 2, kP.bn - 4, V::kDenseMinSlabs * kP.bk + 3});
  // The rings' lean copies (kernels/skinny_pipe.cuh) with A and B aligned: a column tile that
  // passes N, a multiple of 4 (zero-filled copies of B past N), a row tile that passes M (one
  // pass of A's rows: zero-filled rows; two passes: the tested copies), and a K four rows past
  // whole slabs (the lean copies, then the tested ones for the last slab).
  if constexpr (LeanCopies<V>::value) shapes.push_back({kP.bm + 1, kP.bn + 4, 4 * kP.bk + 4});
  // Split-K with more splits than slabs: the empty slices must still be written (zeros).
  if (kP.splits > 1) shapes.push_back({kP.bm + 1, kP.bn - 1, 2 * kP.bk - 3});
  struct Run {
    const Storage* layout;
    emu::Order order;
    emu::CopyTiming timing;
    float alpha = 1.0f, beta = 0.0f;
  };
  // alpha/beta: scaled with C read (beta != 0, padded C), and scaled with beta 0 over a C of
  // NaN, which must not leak into the result.
  std::vector<Run> runs = {
      {&kExact, emu::Order::kForward, emu::CopyTiming::kEager},
      {&kExact, emu::Order::kReverse, emu::CopyTiming::kLazy},
      {&kExact, emu::Order::kShuffled, emu::CopyTiming::kLazy},
      {&kPadded, emu::Order::kForward, emu::CopyTiming::kEager},
      {&kPadded, emu::Order::kShuffled, emu::CopyTiming::kLazy},
      {&kShifted, emu::Order::kReverse, emu::CopyTiming::kLazy},
      {&kPadded, emu::Order::kForward, emu::CopyTiming::kLazy, -1.5f, 0.75f},
      {&kShifted, emu::Order::kReverse, emu::CopyTiming::kEager, 2.0f, 0.0f},
  };
  if (VectorA<V>::value) {
    runs.push_back({&kPaddedA4, emu::Order::kForward, emu::CopyTiming::kEager});
    runs.push_back({&kPaddedA4, emu::Order::kShuffled, emu::CopyTiming::kLazy});
  }
  for (auto shape : shapes) {
    const Run* current = nullptr;
    std::unique_ptr<Problem> pr;
    std::vector<float> first;
    for (auto& run : runs) {
      if (!current || run.layout != current->layout || run.alpha != current->alpha ||
          run.beta != current->beta) {
        current = &run;
        pr = std::make_unique<Problem>(shape, V::kLayout, *run.layout, run.alpha, run.beta);
        first.clear();
      }
      const std::string what = symbol + " " + layout_name(V::kLayout) + " " +
                               std::to_string(shape.m) + "x" +
                               std::to_string(shape.n) + "x" + std::to_string(shape.k) + " " +
                               current->layout->name + " order " +
                               std::to_string(int(run.order)) +
                               (run.timing == emu::CopyTiming::kLazy ? " lazy" : " eager") +
                               " alpha " + std::to_string(run.alpha) + " beta " +
                               std::to_string(run.beta);
      Outcome out = run_variant<V>(*pr, run.order, run.timing, repacked);
      ASSERT_EQ(out.error, "") << what;
      bool padding_untouched = false;
      const double err = relative_error(*pr, out.c, padding_untouched);
      EXPECT_LT(err, 1e-5) << what;
      EXPECT_TRUE(padding_untouched) << what << ": wrote into the padding of C";
      if (first.empty())
        first = out.c;
      else
        EXPECT_TRUE(bitwise_equal(first, out.c))
            << what << ": result depends on thread order or copy timing (a race)";
    }
  }
}

// The stream-K family (issue #18): `blocks` persistent blocks on the emulator, then the
// fix-up kernel's threads for every stream-K tile, with the workspace the plan asks for
// (NaN, a guard page after it; none at all when no tile is split).
template <class V>
Outcome run_streamk(Problem& pr, int blocks, emu::Order order, emu::CopyTiming timing,
                    bool repacked = false) {
  constexpr TileParams kP = V::kParams;
  std::copy(pr.c0.begin(), pr.c0.end(), pr.c.data());
  // Repacked, the inner launch sees K rounded up to a multiple of 4 (kernels/repacked.cuh).
  const int k = repacked ? repack::round4(pr.s.k) : pr.s.k;
  const StreamKPlan plan = V::make_plan(pr.s.m, pr.s.n, k, blocks);
  const long long floats = plan.workspace_floats(kP.bm, kP.bn);
  Repacking copies;
  const GemmArgs args =
      copies.prepare(pr.args(), V::kLayout, repacked, std::size_t(floats) * sizeof(float), order);
  if (!copies.error.empty()) return Outcome{copies.error, {}};
  Outcome out;
  out.error = emu::run_grid(
      dim3(unsigned(blocks), 1, 1), dim3(unsigned(V::kMaxThreads), 1, 1), V::kSmemBytes,
      [&](unsigned char* smem) { V::run(args, smem); }, order, timing);
  // The fix-up as streamk::launch_fixup runs it: per stream-K tile, fixup_blocks_per_tile
  // blocks of kFixupThreads, each block's tile worked out once, its threads run as the
  // kernel's (fixup_block_thread).
  const int parts = fixup_blocks_per_tile(V::kTileM * V::kTileN);
  if (out.error.empty() && floats > 0)
    for (long long s = 0; s < plan.sk_tiles(); ++s)
      for (int part = 0; part < parts; ++part) {
        const FixupTile split_tile = V::fixup_tile(plan, s);
        for (int t = 0; t < kFixupThreads; ++t)
          fixup_block_thread<V>(args, plan, split_tile, s, part, parts, t);
      }
  out.c.assign(pr.c.data(), pr.c.data() + pr.c.size());
  return out;
}

// Stream-K on the shapes of check_variant plus one whose grid has data-parallel waves before
// the streamed ones, each with grids of one block (every tile whole), a few blocks that split
// tiles at odd places, and more blocks than iterations (idle blocks). Per grid: bit-identical
// in every thread order and copy timing; the split-heavy grid also on padded and shifted
// storage and with alpha/beta. A grid of one block computes each tile as Pipelined does.
template <class V>
void check_streamk(const std::string& symbol, bool repacked) {
  constexpr TileParams kP = V::kParams;
  const Shape3 shapes[] = {
      {2 * kP.bm + 3, kP.bn + 5, 3 * kP.bk + 5},  // 6 tiles of 4 slabs, partial everywhere
      {kP.bm, 2 * kP.bn, 4 * kP.bk},              // whole tiles
      {3 * kP.bm + 1, 3 * kP.bn, 2 * kP.bk + 1},  // 12 tiles: waves before the streamed part
      {5, 7, 3},
      {1, 1, 1},
  };
  struct Run {
    const Storage* storage;
    emu::Order order;
    emu::CopyTiming timing;
    float alpha = 1.0f, beta = 0.0f;
  };
  const Run same[] = {{&kExact, emu::Order::kForward, emu::CopyTiming::kEager},
                      {&kExact, emu::Order::kReverse, emu::CopyTiming::kLazy},
                      {&kExact, emu::Order::kShuffled, emu::CopyTiming::kLazy}};
  const Run other[] = {{&kPadded, emu::Order::kShuffled, emu::CopyTiming::kLazy},
                       {&kShifted, emu::Order::kReverse, emu::CopyTiming::kLazy},
                       {&kPadded, emu::Order::kForward, emu::CopyTiming::kLazy, -1.5f, 0.75f},
                       {&kShifted, emu::Order::kReverse, emu::CopyTiming::kEager, 2.0f, 0.0f}};
  for (auto shape : shapes) {
    const StreamKPlan one =
        V::make_plan(shape.m, shape.n, repacked ? repack::round4(shape.k) : shape.k, 1);
    const int all = int(one.tiles * one.iters);
    for (int blocks : {1, 5, 7, all + 3}) {
      for (const Run* runs : {&same[0], &other[0]}) {
        const std::size_t count = runs == &same[0] ? std::size(same) : std::size(other);
        if (runs == &other[0] && blocks != 5) continue;
        std::vector<float> first;
        for (std::size_t r = 0; r < count; ++r) {
          const Run& run = runs[r];
          Problem pr(shape, V::kLayout, *run.storage, run.alpha, run.beta);
          const std::string what = symbol + " " + layout_name(V::kLayout) + " " +
                                   std::to_string(shape.m) + "x" + std::to_string(shape.n) +
                                   "x" + std::to_string(shape.k) + " on " +
                                   std::to_string(blocks) + " blocks, " + run.storage->name +
                                   " order " + std::to_string(int(run.order)) +
                                   (run.timing == emu::CopyTiming::kLazy ? " lazy" : " eager") +
                                   " alpha " + std::to_string(run.alpha) + " beta " +
                                   std::to_string(run.beta);
          Outcome out = run_streamk<V>(pr, blocks, run.order, run.timing, repacked);
          ASSERT_EQ(out.error, "") << what;
          bool padding_untouched = false;
          EXPECT_LT(relative_error(pr, out.c, padding_untouched), 1e-5) << what;
          EXPECT_TRUE(padding_untouched) << what << ": wrote into the padding of C";
          if (runs != &same[0]) continue;
          if (first.empty())
            first = out.c;
          else
            EXPECT_TRUE(bitwise_equal(first, out.c))
                << what << ": result depends on thread order or copy timing (a race)";
          if (blocks == 1 && r == 0) {
            using Whole = PipelinedIn<V::kLayout, kP.bm, kP.bn, kP.bk, kP.tm, kP.tn, kP.wm,
                                      kP.wn, kP.stages, kP.areg, kP.order, kP.fbuf>;
            Problem again(shape, V::kLayout, *run.storage, run.alpha, run.beta);
            EXPECT_TRUE(bitwise_equal(
                out.c, run_variant<Whole>(again, run.order, run.timing, repacked).c))
                << what << ": one block should sum each tile as the pipelined kernel does";
          }
        }
      }
    }
  }
}

template <class V>
void check_variant(const std::string& symbol) {
  check_variant<V>(symbol, false);
}
template <class V>
void check_streamk(const std::string& symbol) {
  check_streamk<V>(symbol, false);
}

// A repacked variant (issue #18): its inner variant's check, run after the copy pass.
template <class V, class = void>
struct IsStreamK : std::false_type {};
template <class V>
struct IsStreamK<V, std::void_t<decltype(&V::make_plan)>> : std::true_type {};

template <class V>
void check_repacked(const std::string& symbol) {
  if constexpr (IsStreamK<V>::value)
    check_streamk<V>(symbol, true);
  else
    check_variant<V>(symbol, true);
}

struct Case {
  std::string symbol;
  void (*check)(const std::string&);
};

std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> out;
#define OCCTUNE_CASE(...) \
  out.push_back({without_spaces(#__VA_ARGS__), &check_variant<__VA_ARGS__>});
    OCCTUNE_COARSENED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_REGBLOCKED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_PIPELINED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_SPLITK_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...)                                                                  \
  out.push_back({layout_symbol(Layout::kNT, without_spaces(#__VA_ARGS__)),              \
                 &check_variant<NT<__VA_ARGS__>>});                                     \
  out.push_back({layout_symbol(Layout::kTN, without_spaces(#__VA_ARGS__)),              \
                 &check_variant<TN<__VA_ARGS__>>});                                     \
  out.push_back({layout_symbol(Layout::kTT, without_spaces(#__VA_ARGS__)),              \
                 &check_variant<TT<__VA_ARGS__>>});
    OCCTUNE_COARSENED_TRANSPOSED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_REGBLOCKED_TRANSPOSED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_PIPELINED_TRANSPOSED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_SPLITK_TRANSPOSED_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...) \
  out.push_back({without_spaces(#__VA_ARGS__), &check_variant<SkinnyCase<__VA_ARGS__>>});
    OCCTUNE_SKINNY_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...)                                                  \
  out.push_back({layout_symbol(Layout::kNT, without_spaces(#__VA_ARGS__)), \
                 &check_variant<SkinnyCase<NT<__VA_ARGS__>>>});            \
  out.push_back({layout_symbol(Layout::kTN, without_spaces(#__VA_ARGS__)), \
                 &check_variant<SkinnyCase<TN<__VA_ARGS__>>>});            \
  out.push_back({layout_symbol(Layout::kTT, without_spaces(#__VA_ARGS__)), \
                 &check_variant<SkinnyCase<TT<__VA_ARGS__>>>});
    OCCTUNE_SKINNY_TRANSPOSED_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...) \
  out.push_back({without_spaces(#__VA_ARGS__), &check_variant<SkinnyCase<__VA_ARGS__>>});
    OCCTUNE_SKINNY_ROWDOT_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...)                                                  \
  out.push_back({layout_symbol(Layout::kNT, without_spaces(#__VA_ARGS__)), \
                 &check_variant<SkinnyCase<NT<__VA_ARGS__>>>});
    OCCTUNE_SKINNY_ROWDOT_NT_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...) \
  out.push_back({without_spaces(#__VA_ARGS__), &check_variant<SkinnyCase<__VA_ARGS__>>});
    OCCTUNE_SKINNY_ROWDOT_RING_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_SKINNY_ROW_GROUP_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_SKINNY_WORKSPACE_SPLIT_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...) \
  out.push_back({without_spaces(#__VA_ARGS__), &check_streamk<__VA_ARGS__>});
    OCCTUNE_STREAMK_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...)                                                  \
  out.push_back({layout_symbol(Layout::kNT, without_spaces(#__VA_ARGS__)), \
                 &check_streamk<NT<__VA_ARGS__>>});                        \
  out.push_back({layout_symbol(Layout::kTN, without_spaces(#__VA_ARGS__)), \
                 &check_streamk<TN<__VA_ARGS__>>});                        \
  out.push_back({layout_symbol(Layout::kTT, without_spaces(#__VA_ARGS__)), \
                 &check_streamk<TT<__VA_ARGS__>>});
    OCCTUNE_STREAMK_TRANSPOSED_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
#define OCCTUNE_CASE(...)                                                   \
  out.push_back({repacked_symbol(without_spaces(#__VA_ARGS__)), &check_repacked<__VA_ARGS__>});
    OCCTUNE_REPACKED_TILE_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
    // The textbook kernels with dynamic shared memory, in every layout (TiledStatic runs the
    // same body from static shared memory, which the emulator cannot share between fibers).
#define OCCTUNE_TEXTBOOK(Nn, W)                                                                 \
  out.push_back({#Nn, &check_variant<Textbook<Nn, W>>});                                        \
  out.push_back({layout_symbol(Layout::kNT, #Nn), &check_variant<Textbook<NT<Nn>, W>>});        \
  out.push_back({layout_symbol(Layout::kTN, #Nn), &check_variant<Textbook<TN<Nn>, W>>});        \
  out.push_back({layout_symbol(Layout::kTT, #Nn), &check_variant<Textbook<TT<Nn>, W>>});
    OCCTUNE_TEXTBOOK(TiledDynamic<1>, 1)
    OCCTUNE_TEXTBOOK(TiledDynamic<4>, 4)
    OCCTUNE_TEXTBOOK(TiledDynamic<8>, 8)
    OCCTUNE_TEXTBOOK(Naive<8>, 8)
#undef OCCTUNE_TEXTBOOK
    return out;
  }();
  return all;
}

class EmulatedVariant : public ::testing::TestWithParam<std::size_t> {};

TEST_P(EmulatedVariant, MatchesReferenceWithoutRacesOrOverruns) {
  const Case& c = cases()[GetParam()];
  c.check(c.symbol);
}

std::string case_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string name = cases()[info.param].symbol;
  for (auto& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name;
}

INSTANTIATE_TEST_SUITE_P(TileFamilies, EmulatedVariant,
                         ::testing::Range(std::size_t(0), cases().size()), case_name);

// The emulated list is the registered list: a variant added to a family's list, in any
// layout, is emulated, and nothing is registered that the emulator does not run. The exception
// is tma code (sm_90a inline assembly the emulator cannot run), wrapped by repacked too: its GPU
// test is tests/gpu/test_tma_family.cu.
TEST(EmulatedVariants, CoverEveryRegisteredTileVariant) {
  std::set<std::string> emulated, registered;
  for (auto& c : cases())
    if (c.symbol.find("Tiled") == std::string::npos && c.symbol.find("Naive") == std::string::npos)
      emulated.insert(c.symbol);
  for (auto* family :
       {"coarsened", "regblocked", "pipelined", "splitk", "skinny", "streamk", "repacked"})
    for (auto* v : all_variants_of(family))
      // Not emulated: what needs sm_90 hardware (tma and the repacked variants over it,
      // skinny's thread block clusters).
      if (v->required_compute_capability == 0) registered.insert(v->symbol);
  EXPECT_EQ(emulated, registered);
  EXPECT_GE(registered.size(), 20u);
  // Every registered layout of a tile family is covered, and every family has all four.
  for (auto* family :
       {"coarsened", "regblocked", "pipelined", "splitk", "skinny", "streamk", "repacked"})
    for (Layout l : kAllLayouts) EXPECT_FALSE(variants_of(family, l).empty()) << family;
}

// The copy plan of a repacked launch (issue #18): K % 4 != 0 copies both operands and pads K
// (the zero padding must exist in both); with K aligned only a misaligned operand (leading
// dimension or base) is copied and K is unchanged; a copy keeps the stored layout with its row
// length rounded up to a multiple of 4; the inner workspace follows the copies.
TEST(Repacked, PlanCopiesWhatTheFloat4PathsCannotRead) {
  emu::GuardedBuffer a(4096), b(4096), c(4096), ws(4096);
  GemmArgs p{a.data(), b.data(), c.data(), 8, 8, 6, 6, 8, 8};
  p.workspace = ws.data();
  p.workspace_bytes = ws.size() * sizeof(float);
  repack::Plan plan = repack::plan(Layout::kNN, p);
  EXPECT_EQ(plan.inner.k, 8);
  EXPECT_EQ(plan.a.dst, plan.inner.a);
  EXPECT_EQ(plan.a.dst, ws.data());
  EXPECT_EQ(plan.inner.lda, 8);
  EXPECT_EQ(plan.a.dst_rows, 8);
  ASSERT_NE(plan.b.dst, nullptr);
  EXPECT_EQ(plan.b.dst_rows, 8);  // K rows of B, padded from 6
  EXPECT_EQ(plan.inner.ldb, 8);
  const std::size_t front = repack::operand_bytes(Layout::kNN, 8, 8, 6);
  EXPECT_EQ(plan.inner.workspace, ws.data() + front / sizeof(float));
  EXPECT_EQ(plan.inner.workspace_bytes, p.workspace_bytes - front);

  p.k = 8;
  p.lda = 8;
  p.ldb = 9;  // only B is misaligned
  plan = repack::plan(Layout::kNN, p);
  EXPECT_EQ(plan.inner.k, 8);
  EXPECT_EQ(plan.a.dst, nullptr);
  EXPECT_EQ(plan.inner.a, a.data());
  EXPECT_EQ(plan.inner.lda, 8);
  ASSERT_NE(plan.b.dst, nullptr);
  EXPECT_EQ(plan.inner.ldb, 8);
  EXPECT_EQ(plan.a.items() + plan.b.items(), 8 * 8 / 4);

  p.ldb = 8;
  p.a = a.data() + 1;  // only A's base is misaligned
  plan = repack::plan(Layout::kNN, p);
  EXPECT_NE(plan.a.dst, nullptr);
  EXPECT_EQ(plan.b.dst, nullptr);
  EXPECT_EQ(plan.inner.b, b.data());

  p.a = a.data();  // all aligned: the inner variant runs on the operands themselves
  plan = repack::plan(Layout::kNN, p);
  EXPECT_EQ(plan.a.items() + plan.b.items(), 0);
  EXPECT_EQ(plan.inner.a, a.data());
  EXPECT_EQ(plan.inner.b, b.data());

  // op(A) = T: A is stored K x M; M = 5 becomes a leading dimension of 8, K = 7 becomes 8 rows.
  GemmArgs t{a.data(), b.data(), c.data(), 5, 8, 7, 5, 8, 8};
  t.workspace = ws.data();
  t.workspace_bytes = p.workspace_bytes;
  plan = repack::plan(Layout::kTN, t);
  EXPECT_EQ(plan.a.rows, 7);
  EXPECT_EQ(plan.a.cols, 5);
  EXPECT_EQ(plan.a.dst_rows, 8);
  EXPECT_EQ(plan.inner.lda, 8);
  EXPECT_EQ(plan.inner.k, 8);
}

// The copy pass itself (kernels/repacked.cuh): both operands in one launch, a copy spanning
// several tiles in both directions with a partial last one, a misaligned base and leading
// dimension, rows padded past the source, a copy narrower than one float4 segment, and an
// operand used in place (no blocks). Every element of each copy, its padding included, must be
// the source's or 0 bit for bit (the copies start as NaN, the sources' padding is NaN), in
// every thread order.
TEST(Repacked, CopyPassWritesAlignedZeroPaddedCopies) {
  struct CopyCase {
    int rows, cols, ld, dst_rows;
    std::size_t shift;
  };
  const CopyCase cases[][2] = {
      {{37, 133, 135, 40, 1}, {5, 3, 3, 8, 0}},
      {{70, 257, 257, 72, 3}, {33, 1, 2, 36, 2}},
  };
  for (const auto& pair : cases)
    for (emu::Order order : {emu::Order::kForward, emu::Order::kReverse, emu::Order::kShuffled}) {
      std::vector<std::unique_ptr<emu::GuardedBuffer>> buffers;
      repack::Plan plan;
      repack::Job* jobs[] = {&plan.a, &plan.b};
      for (int o = 0; o < 2; ++o) {
        const CopyCase& c = pair[o];
        auto& src = *buffers.emplace_back(std::make_unique<emu::GuardedBuffer>(
            std::size_t(c.rows - 1) * c.ld + c.cols, c.shift));
        for (int r = 0; r < c.rows; ++r)
          for (int col = 0; col < c.cols; ++col)
            src[std::size_t(r) * c.ld + col] =
                float(1 + o) * 1000.0f + float(r) + 0.001f * float(col);
        const int dst_ld = repack::padded_ld(c.cols);
        auto& dst = *buffers.emplace_back(
            std::make_unique<emu::GuardedBuffer>(std::size_t(c.dst_rows) * dst_ld));
        *jobs[o] = {src.data(), dst.data(), c.rows, c.cols, c.ld, c.dst_rows, dst_ld};
      }
      ASSERT_EQ(run_copy_pass(plan, order), "");
      for (int o = 0; o < 2; ++o) {
        const repack::Job& j = *jobs[o];
        for (int r = 0; r < j.dst_rows; ++r)
          for (int col = 0; col < j.dst_ld; ++col) {
            const bool in_source = r < j.rows && col < j.cols;
            const float want = in_source ? j.src[std::size_t(r) * j.ld + col] : 0.0f;
            const float got = j.dst[std::size_t(r) * j.dst_ld + col];
            ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0)
                << "operand " << o << " row " << r << " column " << col << " order "
                << int(order) << ": " << got << ", expected " << want;
          }
      }
      // In place (no copy): no blocks, and the other operand's copy still runs alone.
      plan.a.dst = nullptr;
      EXPECT_EQ(repack::copy_blocks(plan.a), 0);
      std::fill_n(plan.b.dst, std::size_t(plan.b.dst_rows) * plan.b.dst_ld, NAN);
      ASSERT_EQ(run_copy_pass(plan, order), "");
      EXPECT_EQ(plan.b.dst[0], plan.b.src[0]);
      EXPECT_EQ(plan.b.dst[std::size_t(plan.b.dst_rows) * plan.b.dst_ld - 1], 0.0f);
    }
}

// A repacked variant is its inner variant's kernel after a copy pass: same launch metadata and
// layout, the inner's build-time resources (the manifest knows no Repacked<...> kernel), and a
// workspace of both copies followed by the inner's own at K rounded up to a multiple of 4.
TEST(Repacked, VariantsAreTheirInnerVariantsKernel) {
  const auto repacked = all_variants_of("repacked");
  ASSERT_GE(repacked.size(), 10u);
  for (auto* v : repacked) {
    const std::string prefix = "Repacked<";
    ASSERT_EQ(v->symbol.rfind(prefix, 0), 0u) << v->symbol;
    const std::string inner_symbol =
        v->symbol.substr(prefix.size(), v->symbol.size() - prefix.size() - 1);
    const VariantInfo* inner = nullptr;
    for (auto& x : variants())
      if (x.symbol == inner_symbol) inner = &x;
    ASSERT_NE(inner, nullptr) << v->symbol;
    EXPECT_NE(inner->family, "repacked");
    EXPECT_EQ(v->layout, inner->layout) << v->symbol;
    EXPECT_EQ(v->threads(), inner->threads()) << v->symbol;
    EXPECT_EQ(v->dynamic_smem, inner->dynamic_smem) << v->symbol;
    EXPECT_EQ(v->tile_m, inner->tile_m) << v->symbol;
    EXPECT_EQ(v->tile_n, inner->tile_n) << v->symbol;
    EXPECT_EQ(v->grid_z, inner->grid_z) << v->symbol;
    EXPECT_EQ(v->label(), inner->label()) << v->symbol;
    const auto mine = find_kernel_resources(v->symbol, 90);
    ASSERT_NE(mine.resources, nullptr) << v->symbol;
    EXPECT_EQ(mine.resources, find_kernel_resources(inner_symbol, 90).resources) << v->symbol;
    EXPECT_EQ(v->workspace(1025, 1025, 1025), repack::operand_bytes(v->layout, 1025, 1025, 1025) +
                                                  inner->workspace(1025, 1025, 1028))
        << v->symbol;
  }
}

// The textbook families exist in every layout, with the same tiles as in nn, named NT<...>.
TEST(EmulatedVariants, TextbookFamiliesHaveEveryLayout) {
  for (auto* family : {"tiled_dynamic", "tiled_static", "naive"}) {
    const auto nn = variants_of(family);
    ASSERT_FALSE(nn.empty()) << family;
    for (Layout l : kAllLayouts) {
      const auto in_layout = variants_of(family, l);
      ASSERT_EQ(in_layout.size(), nn.size()) << family << " " << layout_name(l);
      for (std::size_t i = 0; i < nn.size(); ++i) {
        EXPECT_EQ(in_layout[i]->layout, l);
        EXPECT_EQ(in_layout[i]->symbol, layout_symbol(l, nn[i]->symbol));
        EXPECT_EQ(in_layout[i]->label(), nn[i]->label());
      }
    }
  }
  EXPECT_EQ(layout_symbol(Layout::kTT, "Naive<8>"), "TT<Naive<8>>");
}

// The emulator itself catches what it claims to: a kernel that reads shared memory before the
// barrier that publishes it gives different results in different thread orders.
struct RacyKernel {
  static void run(float* out, unsigned char* smem) {
    float* s = reinterpret_cast<float*>(smem);
    const int t = int(threadIdx.x);
    s[t] = float(t);
    out[t] = s[(t + 1) % 32];  // missing __syncthreads() before this read
    __syncthreads();
  }
};

// The split-K second pass (kernels/splitk.cuh, reduce_block<G>) for every G on its own, G = 1
// included (the variants' emulation above only reaches the G their small shapes get): each
// element is the sum of its group sums in group order, each group's sum in split order, bit for
// bit, on slices whose magnitudes differ by up to 2^40 (so another order rounds differently),
// with the float4 path (n % 4 == 0) and the element path, and C's padding left alone.
template <int G, class V>
void check_second_pass(int m, int n) {
  constexpr int kSplits = V::kParams.splits;
  const int ldc = n % 4 == 0 ? n + 4 : n + 3;  // padded, and float4-aligned where n allows
  const std::size_t slice = std::size_t(m) * std::size_t(n);
  emu::GuardedBuffer workspace(kSplits * slice), c(std::size_t(m) * ldc);
  std::mt19937 rng(unsigned(m * 131 + n + G));
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  for (std::size_t i = 0; i < kSplits * slice; ++i)
    workspace[i] = std::ldexp(mantissa(rng), exponent(rng));
  GemmArgs args{nullptr, nullptr, c.data(), m, n, 1, 1, 1, ldc};
  args.workspace = workspace.data();
  args.workspace_bytes = kSplits * slice * sizeof(float);
  ASSERT_EQ(V::reduce_vectorized(args), n % 4 == 0) << "the float4 path is not the one tested";
  for (auto order : {emu::Order::kForward, emu::Order::kShuffled}) {
    std::fill_n(c.data(), c.size(), NAN);
    const std::string error = emu::run_grid(
        dim3(3, 1, 1), dim3(V::kReduceThreads, 1, 1), V::kReduceThreads * sizeof(float4),
        [&](unsigned char* smem) {
          V::template reduce_block<G>(args, reinterpret_cast<float4*>(smem));
        },
        order, emu::CopyTiming::kEager);
    ASSERT_EQ(error, "") << "G " << G << " " << m << "x" << n;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < ldc; ++j) {
        const float got = c[std::size_t(i) * ldc + j];
        if (j >= n) {
          ASSERT_TRUE(std::isnan(got)) << "padding written at " << i << "," << j;
          continue;
        }
        float total = 0.0f;
        for (int g = 0; g < G; ++g) {
          float part = 0.0f;
          for (int z = g * kSplits / G; z < (g + 1) * kSplits / G; ++z)
            part += workspace[std::size_t(z) * slice + std::size_t(i) * n + j];
          total = g == 0 ? part : total + part;
        }
        ASSERT_EQ(std::memcmp(&got, &total, sizeof(float)), 0)
            << "G " << G << " " << m << "x" << n << " at " << i << "," << j << ": " << got
            << " instead of " << total;
      }
  }
}

TEST(SplitKSecondPass, GroupsSumTheirSlicesInSplitOrderForEveryG) {
  using V = SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 8, 0>;
  for (auto [m, n] : {std::pair{37, 44}, std::pair{17, 33}, std::pair{1, 1}}) {
    check_second_pass<1, V>(m, n);
    check_second_pass<2, V>(m, n);
    check_second_pass<4, V>(m, n);
    check_second_pass<8, V>(m, n);
  }
}

// G comes from the shape alone: the smallest power of two (at most 8, dividing the splits) that
// gives items x G >= 2^18 threads, items being float4 groups when n % 4 == 0.
TEST(SplitKSecondPass, GroupsFollowTheOutputSizeAndTheSplits) {
  EXPECT_EQ(splitk_reduce_groups(96, 96, 128), 8);      // 2,304 items
  EXPECT_EQ(splitk_reduce_groups(256, 256, 64), 8);     // 16,384 items: 8 x 16,384 < 2^18
  EXPECT_EQ(splitk_reduce_groups(512, 512, 64), 4);     // 65,536 items: 4 x 65,536 = 2^18
  EXPECT_EQ(splitk_reduce_groups(1024, 1024, 4), 1);    // 262,144 items fill the GPU
  EXPECT_EQ(splitk_reduce_groups(4096, 4096, 16), 1);
  EXPECT_EQ(splitk_reduce_groups(96, 96, 2), 2);        // never more groups than splits
  EXPECT_EQ(splitk_reduce_groups(96, 96, 4), 4);
  EXPECT_EQ(splitk_reduce_groups(1000, 1001, 16), 1);   // n odd: 1,001,000 element items
  EXPECT_EQ(splitk_reduce_groups(301, 257, 16), 4);     // n odd: 77,357 element items
  EXPECT_EQ(splitk_reduce_groups(1, 1, 128), 8);
}

TEST(Emulator, DetectsARaceThroughThreadOrder) {
  std::vector<float> forward(32), reverse(32);
  emu::run_grid(
      dim3(1, 1, 1), 32, 128, [&](unsigned char* smem) { RacyKernel::run(forward.data(), smem); },
      emu::Order::kForward, emu::CopyTiming::kEager);
  emu::run_grid(
      dim3(1, 1, 1), 32, 128, [&](unsigned char* smem) { RacyKernel::run(reverse.data(), smem); },
      emu::Order::kReverse, emu::CopyTiming::kEager);
  EXPECT_FALSE(bitwise_equal(forward, reverse));
}

TEST(Emulator, DetectsBarrierDivergenceAndMisalignment) {
  auto divergent = [](unsigned char*) {
    if (threadIdx.x == 0) __syncthreads();
  };
  EXPECT_NE(emu::run_grid(dim3(1, 1, 1), 32, 16, divergent, emu::Order::kForward,
                          emu::CopyTiming::kEager),
            "");
  auto misaligned = [](unsigned char* smem) {
    float* s = reinterpret_cast<float*>(smem);
    tile::store4(s + 1, make_float4(0, 0, 0, 0));
  };
  EXPECT_NE(emu::run_grid(dim3(1, 1, 1), 32, 64, misaligned, emu::Order::kForward,
                          emu::CopyTiming::kEager),
            "");
}

// A copy read before its wait is caught when copies land lazily.
TEST(Emulator, LazyCopiesLandOnlyAtTheWait) {
  std::vector<float> src(4, 1.0f), seen(32, 0.0f);
  auto kernel = [&](unsigned char* smem) {
    float* s = reinterpret_cast<float*>(smem);
    const int t = int(threadIdx.x);
    if (t == 0) {
      tile::copy_async<16>(s, src.data(), 16);
      tile::copy_commit();
    }
    __syncthreads();
    seen[std::size_t(t)] = s[0];  // read without waiting: not landed yet
    __syncthreads();
    if (t == 0) tile::copy_wait<0>();
  };
  emu::run_grid(dim3(1, 1, 1), 32, 64, kernel, emu::Order::kForward, emu::CopyTiming::kLazy);
  EXPECT_TRUE(std::isnan(seen[5]));
}

// A shuffle reads the source lane of the caller's own warp, the same in every thread order,
// twice in a row (its two slots), and a shuffle that not every warp makes is a divergence.
TEST(Emulator, ShufflesReadTheSourceLaneOfTheirOwnWarp) {
  for (const auto order : {emu::Order::kForward, emu::Order::kReverse, emu::Order::kShuffled}) {
    std::vector<float> got(64 * 2, -1.0f);
    auto kernel = [&](unsigned char*) {
      const int t = int(threadIdx.x), lane = t % 32;
      got[std::size_t(2 * t)] = kernels::skinny_shuffle(float(t), (lane + 5) & 31);
      got[std::size_t(2 * t + 1)] = kernels::skinny_shuffle(float(100 + t), 31 - lane);
    };
    ASSERT_EQ(emu::run_grid(dim3(1, 1, 1), 64, 16, kernel, order, emu::CopyTiming::kEager), "");
    for (int t = 0; t < 64; ++t) {
      const int warp = t / 32 * 32, lane = t % 32;
      EXPECT_EQ(got[std::size_t(2 * t)], float(warp + (lane + 5) % 32)) << t;
      EXPECT_EQ(got[std::size_t(2 * t + 1)], float(100 + warp + 31 - lane)) << t;
    }
  }
  auto one_warp_only = [](unsigned char*) {
    if (threadIdx.x < 32) kernels::skinny_shuffle(1.0f, 0);
  };
  EXPECT_NE(emu::run_grid(dim3(1, 1, 1), 64, 16, one_warp_only, emu::Order::kForward,
                          emu::CopyTiming::kEager),
            "");
}

}  // namespace
}  // namespace occtune
