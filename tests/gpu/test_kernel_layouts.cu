// Issue #12 on the device: every registered variant of every family, in its layout (nn, nt, tn,
// tt), against cuBLAS given the same stored operands, on odd shapes (1x1x1 to 4097 mixes), with
// padded leading dimensions whose padding holds NaN, and with the alpha/beta epilogue: beta = 0
// over a C of NaN (C must not be read), and alpha = -1.5, beta = 0.75 over a random C. Also the
// measurement path: ShapeBench opened in each layout verifies that layout's candidates and
// refuses a candidate of another layout. The small-M/N family ("skinny", issue #18) runs
// everywhere the others do, and on its own shapes below; so do stream-K ("streamk") and the
// misaligned fast path ("repacked").
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/layout.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/cuda/runtime_occupancy.hpp"
#include "autotuner/cuda/shape_bench.hpp"
#include "kernels/launch.cuh"
#include "tests/support/applicable.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

struct Dims {
  int m, n, k;
};

// One problem in one layout: A and B stored as the layout says with `pad` extra elements per
// stored row (NaN), C with `pad` too; alpha and beta; the cuBLAS result of the same call.
struct LayoutProblem {
  Dims d;
  Layout layout;
  int pad;
  float alpha, beta;
  int lda, ldb, ldc;
  std::size_t a_count, b_count, c_count;
  float *a = nullptr, *b = nullptr, *c = nullptr, *c0 = nullptr;
  std::vector<float> reference;  // whole C buffer, padding included (NaN there)

  LayoutProblem(Dims dims, Layout l, int padding, float alpha_, float beta_)
      : d(dims), layout(l), pad(padding), alpha(alpha_), beta(beta_) {
    const int rows_a = transposes_a(l) ? d.k : d.m, cols_a = transposes_a(l) ? d.m : d.k;
    const int rows_b = transposes_b(l) ? d.n : d.k, cols_b = transposes_b(l) ? d.k : d.n;
    lda = cols_a + pad;
    ldb = cols_b + pad;
    ldc = d.n + pad;
    a_count = std::size_t(rows_a) * lda;
    b_count = std::size_t(rows_b) * ldb;
    c_count = std::size_t(d.m) * ldc;
    std::mt19937 rng(unsigned(d.m * 131 + d.n * 17 + d.k + int(l) * 7 + pad));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    auto fill = [&](int rows, int cols, int ld, bool random_values) {
      std::vector<float> h(std::size_t(rows) * ld, NAN);
      if (random_values)
        for (int r = 0; r < rows; ++r)
          for (int x = 0; x < cols; ++x) h[std::size_t(r) * ld + x] = dist(rng);
      return h;
    };
    const auto ha = fill(rows_a, cols_a, lda, true);
    const auto hb = fill(rows_b, cols_b, ldb, true);
    const auto hc = fill(d.m, d.n, ldc, beta != 0.0f);  // all NaN when C must not be read
    a = upload(ha);
    b = upload(hb);
    c0 = upload(hc);
    OCCTUNE_CUDA_CHECK(cudaMalloc(&c, c_count * sizeof(float)));
    reset_c();
    cublasHandle_t h;
    OCCTUNE_CUBLAS_CHECK(cublasCreate(&h));
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: operands swapped, each
    // with its own op (a row-major stored matrix is its column-major transpose).
    auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
    OCCTUNE_CUBLAS_CHECK(cublasSgemm(h, op(transposes_b(l)), op(transposes_a(l)), d.n, d.m, d.k,
                                     &alpha, b, ldb, a, lda, &beta, c, ldc));
    OCCTUNE_CUDA_CHECK(cudaDeviceSynchronize());
    cublasDestroy(h);
    reference = result();
  }
  ~LayoutProblem() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(c0);
  }
  static float* upload(const std::vector<float>& h) {
    float* p = nullptr;
    OCCTUNE_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(h.size(), 1) * sizeof(float)));
    OCCTUNE_CUDA_CHECK(cudaMemcpy(p, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    return p;
  }
  void reset_c() {
    OCCTUNE_CUDA_CHECK(cudaMemcpy(c, c0, c_count * sizeof(float), cudaMemcpyDeviceToDevice));
  }
  std::vector<float> result() const {
    std::vector<float> out(c_count);
    OCCTUNE_CUDA_CHECK(cudaMemcpy(out.data(), c, c_count * sizeof(float), cudaMemcpyDeviceToHost));
    return out;
  }
  kernels::GemmArgs args() const {
    kernels::GemmArgs g{a, b, c, d.m, d.n, d.k, lda, ldb, ldc};
    g.alpha = alpha;
    g.beta = beta;
    return g;
  }
  std::string name() const {
    return std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k) + " " +
           layout_name(layout) + " pad " + std::to_string(pad) + " alpha " +
           std::to_string(alpha) + " beta " + std::to_string(beta);
  }
};

// Relative Frobenius error over the valid m x n part; padding_untouched: C's padding is NaN.
double compare(const LayoutProblem& p, const std::vector<float>& got, bool& padding_untouched) {
  double diff = 0, norm = 0;
  padding_untouched = true;
  for (int i = 0; i < p.d.m; ++i)
    for (int j = 0; j < p.ldc; ++j) {
      const std::size_t at = std::size_t(i) * p.ldc + j;
      if (j >= p.d.n) {
        padding_untouched = padding_untouched && std::isnan(got[at]);
        continue;
      }
      const double e = double(got[at]) - double(p.reference[at]);
      diff += e * e;
      norm += double(p.reference[at]) * double(p.reference[at]);
    }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// The test-only families (planted faults, slowed copies; OCCTUNE_TEST_KERNELS=1) are nn only
// and wrong or slow on purpose.
bool test_only(const std::string& family) {
  return family.find("planted") != std::string::npos || family.find("slow") != std::string::npos;
}

// Every variant of every family (test-only families aside) in `layout`.
std::vector<const kernels::VariantInfo*> variants_in(Layout layout) {
  std::vector<const kernels::VariantInfo*> out;
  for (auto& f : kernels::families())
    if (!test_only(f.name))
      for (auto* v : kernels::variants_of(f.name, layout)) out.push_back(v);
  return out;
}

// One- and two-thread tiles are checked on the smaller shapes; on the large ones they would
// take long and prove nothing new.
bool large(Dims d) { return double(d.m) * d.n * d.k > 1e8; }

// Launches `v` on `p` (with a workspace when it needs one) and returns C.
std::vector<float> run_variant(LayoutProblem& p, const kernels::VariantInfo& v,
                               const std::string& what) {
  p.reset_c();
  auto args = p.args();
  float* workspace = nullptr;
  if (const std::size_t bytes = v.workspace(args.m, args.n, args.k)) {
    OCCTUNE_CUDA_CHECK(cudaMalloc(&workspace, bytes));
    OCCTUNE_CUDA_CHECK(cudaMemset(workspace, 0xff, bytes));  // NaN: nothing may be read unwritten
    args.workspace = workspace;
    args.workspace_bytes = bytes;
  }
  EXPECT_EQ(kernels::launch_variant(v, args, nullptr), cudaSuccess) << what;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
  if (workspace) OCCTUNE_CUDA_CHECK(cudaFree(workspace));
  return p.result();
}

void check_all(LayoutProblem& p, bool skip_tiny_tiles, const std::string& only_family = "") {
  for (auto* v : variants_in(p.layout)) {
    if (skip_tiny_tiles && v->threads() < 16) continue;
    if (!only_family.empty() && v->family != only_family) continue;
    if (!test_support::runs_here(*v, p.args())) continue;  // what planning rejects
    const std::string what = v->symbol + " at " + p.name();
    const std::vector<float> got = run_variant(p, *v, what);
    bool padding_untouched = false;
    EXPECT_LT(compare(p, got, padding_untouched), 1e-5) << what;
    EXPECT_TRUE(padding_untouched) << what << ": wrote into C's padding";
  }
}

// Every variant of `family` in p's layout gives the same C bit for bit on a second launch
// (families whose partial sums meet in a fixed order).
void expect_same_on_relaunch(LayoutProblem& p, const std::string& family) {
  for (auto* v : kernels::variants_of(family, p.layout)) {
    const std::string what = v->symbol + " twice at " + p.name();
    const auto first = run_variant(p, *v, what), second = run_variant(p, *v, what);
    EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(float))) << what;
  }
}

TEST(KernelLayouts, EveryFamilyHasVariantsInEveryLayout) {
  for (auto& f : kernels::families()) {
    if (test_only(f.name)) continue;
    // A family for one architecture (its variants carry a required compute capability: the TMA
    // family) covers the layouts it was written for, nn; the general families cover all four.
    const auto all = kernels::all_variants_of(f.name);
    if (!all.empty() && all.front()->required_compute_capability > 0) continue;
    for (Layout l : kAllLayouts)
      EXPECT_FALSE(kernels::variants_of(f.name, l).empty()) << f.name << " " << layout_name(l);
  }
}

TEST(KernelLayouts, OddShapesInEveryLayoutMatchCublas) {
  OCCTUNE_REQUIRE_GPU();
  const Dims shapes[] = {{1, 1, 1},       {17, 17, 17},     {1000, 17, 4097}, {17, 1000, 4097},
                         {4097, 1000, 17}, {17, 4097, 1000}, {1000, 1000, 1000}};
  for (Layout l : kAllLayouts)
    for (auto d : shapes) {
      LayoutProblem p(d, l, 0, 1.0f, 0.0f);
      check_all(p, large(d));
    }
}

TEST(KernelLayouts, PaddedLeadingDimensionsWithNaNPadding) {
  OCCTUNE_REQUIRE_GPU();
  for (Layout l : kAllLayouts)
    for (auto d : {Dims{17, 33, 65}, Dims{1000, 17, 4097}, Dims{129, 257, 1000}})
      for (int pad : {1, 3, 4}) {
        LayoutProblem p(d, l, pad, 1.0f, 0.0f);
        check_all(p, false);
      }
}

// alpha and beta: beta = 0 over a C of NaN (BLAS: C is not read), and a scaled update of a
// random C; split-K's reduction applies them too.
TEST(KernelLayouts, AlphaBetaEpilogueInEveryLayout) {
  OCCTUNE_REQUIRE_GPU();
  for (Layout l : kAllLayouts)
    for (auto d : {Dims{1, 1, 1}, Dims{17, 1000, 4097}, Dims{1000, 1000, 1000}}) {
      for (auto [alpha, beta] : {std::pair{2.0f, 0.0f}, std::pair{-1.5f, 0.75f}}) {
        LayoutProblem p(d, l, 3, alpha, beta);
        check_all(p, large(d));
      }
    }
}

// The small-M/N family (issue #18) where it is meant to run and beyond: M or N from 1 to 16
// with the other dimensions aligned (float4 paths) or odd (element paths), padded leading
// dimensions (misaligned rows), a small dimension above 16 (several row groups), K shorter than
// the splits (empty slices) and long K, in every layout; and the same result bit for bit on a
// second launch (the reductions have a fixed order). 1000x8x1540: the ring for N <= 8 over
// aligned rows, whole slabs (its copies without tests) and a last partial slab and row block.
// 4097x2x4100, 2000x4x8192, 1001x3x2052 and 1000x3x4097: the row-dot kernel (N <= 4) with B
// dense (4 * N floats a quad; N = 3 in three float4s), in rows of 16 bytes (N a multiple of its
// columns) and element by element. 1000x16x1028, 3000x12x2052 and 777x8x2052: the rings for
// N <= 16 in row groups (32 or 64 rows of C a block) over whole and partial slabs, partial row
// blocks and a partial column tile. 500x8x20001, 300x13x6148 and 1000x16x300: the same rings
// with K split over a cluster (sm_90), A's rows misaligned (element copies) or aligned, B's
// rows misaligned, and K too short for every block of a cluster (empty splits). 1000x15x4097
// (wave 25, added after its last device call): A's rows through windows in the 64-row rings at
// 16 columns, split over clusters of 1-8, with B's rows misaligned and a partial row block.
// 40x11x50001, 33x12x40004 and 16x16x65536 (wave 32): the 16-row ring with K split over 8-128
// blocks through a workspace (a few tiles over a long K): A's rows through windows (K odd),
// B dense with N a multiple of 4 and A aligned, one whole tile; at 8 splits every slice holds
// slabs, at 64 some are empty; bit for bit again on a second launch. 13x1001x20001 and
// 16x1024x16384: the rings for M <= 16 split the same way over 6-16 blocks (B's rows through
// windows, N odd; and aligned), a few column tiles over a long K. 27x9x300001 and 20x12x400000
// (wave 33): the 32-row ring over 64-256 blocks through a workspace with one row tile (A's
// windows; B dense and A aligned); 40x11x50001 and 33x12x40004 give it two tiles of even height.
// 25x6x200001 and 45x8x100000 (wave 35): the same ring on 8 columns with 256-row slabs over
// 128-256 blocks, one row tile through A's windows with B dense, and two tiles of even height
// (23 and 22 rows) with A aligned.
TEST(KernelLayouts, SkinnyFamilyOnSkinnyShapesInEveryLayout) {
  OCCTUNE_REQUIRE_GPU();
  const Dims shapes[] = {{1, 1, 1},       {1, 4096, 4096}, {1, 1027, 3001}, {8, 8192, 1024},
                         {16, 4099, 517}, {3, 5, 7},       {40, 257, 300},  {4096, 1, 4096},
                         {3001, 7, 1029}, {8192, 16, 512}, {13, 13, 20000}, {2, 600, 64},
                         {1000, 8, 1540}, {4097, 2, 4100}, {2000, 4, 8192}, {1000, 3, 4097},
                         {333, 8, 2052},  {1001, 3, 2052}, {1000, 16, 1028}, {3000, 12, 2052},
                         {777, 8, 2052},  {500, 8, 20001}, {300, 13, 6148},  {1000, 16, 300},
                         {1000, 15, 4097}, {40, 11, 50001}, {33, 12, 40004}, {16, 16, 65536},
                         {13, 1001, 20001}, {16, 1024, 16384}, {27, 9, 300001}, {20, 12, 400000},
                         {25, 6, 200001},  {45, 8, 100000}};
  for (Layout l : kAllLayouts) {
    for (auto d : shapes) {
      LayoutProblem p(d, l, 0, 1.0f, 0.0f);
      check_all(p, false, "skinny");
    }
    for (auto d : {Dims{5, 1001, 999}, Dims{999, 6, 1001}}) {
      LayoutProblem padded(d, l, 3, -1.5f, 0.75f);
      check_all(padded, false, "skinny");
    }
    LayoutProblem p(Dims{7, 2049, 4099}, l, 0, 1.0f, 0.0f);
    expect_same_on_relaunch(p, "skinny");
    LayoutProblem few_tiles(Dims{40, 11, 50001}, l, 0, 1.0f, 0.0f);
    expect_same_on_relaunch(few_tiles, "skinny");
  }
}

// The stream-K family (issue #18) on the shapes it is for and at its edges, in every layout:
// 1.09 waves of 128x128 tiles on an H100 (1536^2), a hybrid with data-parallel waves (2304 x
// 2048), a small output with a long K (every tile split over many blocks), a single tile, odd
// and tiny shapes, padded storage with alpha/beta; and the same result bit for bit on a
// second launch (the partials meet in a fixed order).
TEST(KernelLayouts, StreamKFamilyOnWaveQuantisedShapesInEveryLayout) {
  OCCTUNE_REQUIRE_GPU();
  const Dims shapes[] = {{1536, 1536, 1536}, {2304, 2048, 512}, {256, 256, 16384},
                         {128, 128, 4099},   {1, 1, 1},         {5, 7, 3},
                         {1000, 17, 4097},   {3001, 1000, 77}};
  for (Layout l : kAllLayouts) {
    for (auto d : shapes) {
      LayoutProblem p(d, l, 0, 1.0f, 0.0f);
      check_all(p, false, "streamk");
    }
    LayoutProblem padded(Dims{1537, 1029, 1001}, l, 3, -1.5f, 0.75f);
    check_all(padded, false, "streamk");
    LayoutProblem p(Dims{1536, 1536, 1536}, l, 0, 1.0f, 0.0f);
    expect_same_on_relaunch(p, "streamk");
  }
}

// The repacked family (issue #18's misaligned fast path) on the misaligned shapes it is for, in
// every layout: K % 4 = 1 (1025^3, 3001x1000x4097: both operands copied with K zero-padded), K
// aligned with a padded leading dimension (only that operand copied: pad 1) and with nothing to
// copy (1024^3, pad 4: the inner variant in place), alpha/beta over a random C; and the same
// result bit for bit on a second launch.
TEST(KernelLayouts, RepackedFamilyOnMisalignedShapesInEveryLayout) {
  OCCTUNE_REQUIRE_GPU();
  struct Case {
    Dims d;
    int pad;
    float alpha, beta;
  };
  const Case cases[] = {{{1025, 1025, 1025}, 0, 1.0f, 0.0f},  {{3001, 1000, 4097}, 0, 1.0f, 0.0f},
                        {{698, 2077, 4461}, 3, -1.5f, 0.75f}, {{513, 257, 516}, 1, 1.0f, 0.0f},
                        {{1024, 1024, 1024}, 4, 2.0f, 0.0f},  {{1, 1, 1}, 1, 1.0f, 0.0f},
                        {{17, 4097, 1023}, 0, 1.0f, 0.0f}};
  for (Layout l : kAllLayouts) {
    for (auto& c : cases) {
      LayoutProblem p(c.d, l, c.pad, c.alpha, c.beta);
      check_all(p, false, "repacked");
    }
    LayoutProblem p(Dims{1025, 1025, 1025}, l, 0, 1.0f, 0.0f);
    expect_same_on_relaunch(p, "repacked");
  }
}

// ShapeBench measures in the layout it was opened with: every family's candidates of that
// layout pass its check against its own cuBLAS reference; a candidate of another layout is
// refused as an invalid configuration, never launched.
TEST(KernelLayouts, ShapeBenchVerifiesEachLayout) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  cuda::RuntimeOccupancy oracle(device);
  TimingPolicy policy;
  policy.samples = 5;
  policy.warmup = 1;
  policy.settle_ms = 0;
  policy.settle_timeout_ms = 0;
  const Shape shape{1000, 17, 4097};
  for (Layout l : kAllLayouts) {
    cuda::ShapeBench bench(device, shape, policy, l);
    for (auto* family :
         {"tiled_dynamic", "coarsened", "regblocked", "pipelined", "splitk", "skinny", "streamk",
          "repacked"}) {
      auto plan = plan_family(*kernels::find_family(family), device, shape, oracle, 0, l);
      ASSERT_FALSE(plan.candidates.empty()) << family;
      for (auto& c : plan.candidates) {
        ASSERT_EQ(c.variant->layout, l);
        const auto m = bench.check(c);
        if (!c.rejection.empty()) continue;
        EXPECT_EQ(m.outcome, Outcome::kOk)
            << c.variant->symbol << " " << layout_name(l) << ": " << m.error;
      }
    }
    const Layout other = l == Layout::kNN ? Layout::kTT : Layout::kNN;
    auto wrong = annotate(*kernels::variants_of("regblocked", other).front(), device, shape, oracle);
    EXPECT_EQ(bench.check(wrong).outcome, Outcome::kInvalidConfig);
    EXPECT_FALSE(bench.context_lost());
  }
}

}  // namespace
}  // namespace occtune
