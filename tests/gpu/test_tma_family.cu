// The "tma" family on an sm_90 device (issue #18): every configuration against cuBLAS on odd
// shapes TMA can address, on a NaN-poisoned C with random inputs, by relative Frobenius error
// and the element-wise bound (autotuner/core/element_bound.hpp); alpha and beta; any C; the launch
// refusing operands the applicability rule rules out (kernels/applicability.hpp); the repacked
// variants over tma configurations on misaligned shapes. The stream-K
// configurations (kernels/tma.cuh TmaStreamK, TmaWavesThenStreamK) also on the mid-size shapes
// they are for, with a NaN-poisoned workspace, K = 0, and a shape where every tile is split;
// the waves-then-stream-K ones on whole waves with and without a tail, and from a CUDA graph. Skips
// without a GPU or on a device that is not sm_90.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "autotuner/core/element_bound.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "autotuner/cuda/element_check.cuh"
#include "kernels/launch.cuh"
#include "kernels/registry.hpp"
#include "kernels/streamk_plan.cuh"
#include "tests/support/applicable.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

#define OCCTUNE_REQUIRE_SM90()                                                    \
  do {                                                                            \
    OCCTUNE_REQUIRE_GPU();                                                        \
    if (test_support::current_compute_capability() != 90)                     \
      GTEST_SKIP() << "the tma family runs on sm_90 only; this device is sm_"     \
                   << test_support::current_compute_capability();                 \
  } while (0)

struct DeviceFloats {
  float* p = nullptr;
  std::size_t count = 0;
  explicit DeviceFloats(std::size_t n) : count(n) {
    OCCTUNE_CUDA_CHECK(cudaMalloc(&p, (n > 0 ? n : 1) * sizeof(float)));
  }
  ~DeviceFloats() { cudaFree(p); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  void upload(const std::vector<float>& h) {
    OCCTUNE_CUDA_CHECK(cudaMemcpy(p, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  std::vector<float> download() const {
    std::vector<float> h(count);
    OCCTUNE_CUDA_CHECK(cudaMemcpy(h.data(), p, count * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
  }
  void poison() { OCCTUNE_CUDA_CHECK(cudaMemset(p, 0xff, count * sizeof(float))); }  // NaN
};

std::vector<float> uniform(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> out(n);
  for (float& x : out) x = dist(rng);
  return out;
}

std::vector<float> absolute(std::vector<float> v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

// Row-major C = alpha A B + beta C through column-major cuBLAS (C^T = B^T A^T), plain FP32.
void cublas_gemm(const kernels::GemmArgs& g, float alpha, float beta, float* c) {
  cublasHandle_t handle;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, &alpha, g.b, g.ldb, g.a,
                        g.lda, &beta, c, g.ldc),
            CUBLAS_STATUS_SUCCESS);
  cublasDestroy(handle);
  OCCTUNE_CUDA_CHECK(cudaDeviceSynchronize());
}

double relative_frobenius(const std::vector<float>& got, const std::vector<float>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = double(got[i]) - double(ref[i]);
    diff += d * d;
    norm += double(ref[i]) * double(ref[i]);
  }
  if (std::isnan(diff)) return INFINITY;
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// One problem, dense row-major, with its reference and element-wise magnitude: alpha |A||B| +
// |beta| |C0| computed by cuBLAS on the absolute values.
struct TmaProblem {
  int m, n, k;
  float alpha, beta;
  DeviceFloats a, b, c, c0, ref, magnitude;
  TmaProblem(int m_, int n_, int k_, float alpha_ = 1.0f, float beta_ = 0.0f)
      : m(m_), n(n_), k(k_), alpha(alpha_), beta(beta_), a(std::size_t(m_) * k_),
        b(std::size_t(k_) * n_), c(std::size_t(m_) * n_), c0(std::size_t(m_) * n_),
        ref(std::size_t(m_) * n_), magnitude(std::size_t(m_) * n_) {
    const unsigned seed = unsigned(m * 7919 + n * 131 + k);
    const auto ha = uniform(a.count, seed), hb = uniform(b.count, seed + 1);
    const auto hc = uniform(c.count, seed + 2);
    a.upload(ha);
    b.upload(hb);
    c0.upload(hc);
    ref.upload(hc);
    cublas_gemm(args(ref.p), alpha, beta, ref.p);
    DeviceFloats abs_a(a.count), abs_b(b.count);
    abs_a.upload(absolute(ha));
    abs_b.upload(absolute(hb));
    magnitude.upload(absolute(hc));
    kernels::GemmArgs g = args(magnitude.p);
    g.a = abs_a.p;
    g.b = abs_b.p;
    cublas_gemm(g, std::fabs(alpha), std::fabs(beta), magnitude.p);
  }
  kernels::GemmArgs args(float* out) const {
    kernels::GemmArgs g{a.p, b.p, out, m, n, k, k, n, n};
    g.alpha = alpha;
    g.beta = beta;
    return g;
  }
  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
  // C before the launch: NaN when beta is 0 (C must not be read), else C0.
  void reset_c() {
    if (beta == 0.0f)
      c.poison();
    else
      OCCTUNE_CUDA_CHECK(cudaMemcpy(c.p, c0.p, c.count * sizeof(float), cudaMemcpyDeviceToDevice));
  }
};

// The workspace a variant asks for at m x n x k (none for the data-parallel configurations),
// NaN-poisoned: a stream-K fix-up that read a slot no block wrote would put NaN into C.
struct Workspace {
  DeviceFloats floats;
  Workspace(const kernels::VariantInfo& v, int m, int n, int k)
      : floats((v.workspace(m, n, k) + sizeof(float) - 1) / sizeof(float)) {
    floats.poison();
  }
  kernels::GemmArgs with(kernels::GemmArgs g) const {
    if (floats.count > 0) {
      g.workspace = floats.p;
      g.workspace_bytes = floats.count * sizeof(float);
    }
    return g;
  }
};

// sk 1: the hybrid; sk 3: whole waves data-parallel, then the partial wave streamed.
bool is_streamk(const kernels::VariantInfo& v) { return v.param("sk") > 0; }

void expect_matches(const kernels::VariantInfo& v, TmaProblem& p) {
  const std::string what = v.symbol + " at " + p.name() + " alpha " + std::to_string(p.alpha) +
                           " beta " + std::to_string(p.beta);
  p.reset_c();
  const Workspace w(v, p.m, p.n, p.k);
  ASSERT_EQ(kernels::launch_variant(v, w.with(p.args(p.c.p)), nullptr), cudaSuccess) << what;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
  EXPECT_LE(relative_frobenius(p.c.download(), p.ref.download()), 1e-5) << what;
  cuda::ElementChecker checker;
  const cuda::ElementCheckReport r = checker.run(p.c.p, p.ref.p, p.magnitude.p, p.c.count,
                                                 element_tolerance(p.k), nullptr, 1024);
  EXPECT_EQ(r.violations, 0u) << what << ": first at " << r.first << " c " << r.c << " ref "
                              << r.ref << " magnitude " << r.magnitude;
}

std::vector<const kernels::VariantInfo*> tma_variants() {
  auto out = kernels::all_variants_of("tma");
  EXPECT_GE(out.size(), 4u);
  return out;
}

std::vector<const kernels::VariantInfo*> streamk_variants() {
  std::vector<const kernels::VariantInfo*> out;
  for (const kernels::VariantInfo* v : tma_variants())
    if (is_streamk(*v)) out.push_back(v);
  // The stream-K hybrid (sk 1) of the grouped tile and the waves then stream-K (sk 3).
  EXPECT_EQ(out.size(), 2u);
  return out;
}

// The plan a stream-K configuration launches on `blocks` persistent blocks (kernels/tma.cuh).
kernels::StreamKPlan plan_of(const kernels::VariantInfo& v, int m, int n, int k, int blocks) {
  const int bk = int(v.param("bk")), sk = int(v.param("sk"));
  if (sk == 3) return kernels::StreamKPlan::make_tail(m, n, k, 128, 256, bk, blocks);
  return kernels::StreamKPlan::make(m, n, k, 128, 256, bk, blocks, sk == 1);
}

int sm_count() {
  int device = 0, sms = 0;
  OCCTUNE_CUDA_CHECK(cudaGetDevice(&device));
  OCCTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

int param(const kernels::VariantInfo& v, const std::string& name) {
  for (const auto& p : v.params)
    if (p.name == name) return int(p.value);
  ADD_FAILURE() << v.symbol << " has no parameter " << name;
  return 0;
}

TEST(TmaFamily, EveryConfigurationMatchesCublasOnOddAlignedShapes) {
  OCCTUNE_REQUIRE_SM90();
  const int shapes[][3] = {
      {1, 4, 4}, {17, 20, 36}, {1000, 1000, 1000}, {4100, 4100, 4100}, {300, 1028, 4096}};
  for (const auto& s : shapes) {
    TmaProblem p(s[0], s[1], s[2]);
    for (const kernels::VariantInfo* v : tma_variants()) {
      ASSERT_TRUE(test_support::runs_here(*v, p.args(p.c.p))) << v->symbol << " " << p.name();
      expect_matches(*v, p);
    }
  }
}

TEST(TmaFamily, AlphaAndBetaFollowBlas) {
  OCCTUNE_REQUIRE_SM90();
  // beta != 0 reads C; beta == 0 never does (C is NaN before the launch); alpha == 0 with beta.
  const float cases[][2] = {{0.75f, -1.5f}, {2.0f, 0.0f}, {0.0f, 0.5f}};
  for (const auto& ab : cases)
    for (const auto& s : {std::array<int, 3>{17, 20, 36}, std::array<int, 3>{300, 1028, 4096}}) {
      TmaProblem p(s[0], s[1], s[2], ab[0], ab[1]);
      for (const kernels::VariantInfo* v : tma_variants()) expect_matches(*v, p);
    }
}

// Padded leading dimensions of A and B that are multiples of 4 around M, N and K that are not:
// TMA never reads the padding (NaN here). C takes any leading dimension and address (the
// epilogue stores element by element where float4 stores cannot go) and the epilogue writes no
// element of C's padding.
TEST(TmaFamily, PaddedOperandsWithOddShapesMatchCublasAndLeavePaddingAlone) {
  OCCTUNE_REQUIRE_SM90();
  const int m = 33, n = 30, k = 37, lda = 40, ldb = 32;
  auto padded = [](int rows, int cols, int ld, unsigned seed) {
    std::vector<float> h(std::size_t(rows) * ld, NAN);
    const auto v = uniform(std::size_t(rows) * cols, seed);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) h[std::size_t(r) * ld + c] = v[std::size_t(r) * cols + c];
    return h;
  };
  DeviceFloats a(std::size_t(m) * lda), b(std::size_t(k) * ldb);
  a.upload(padded(m, k, lda, 1));
  b.upload(padded(k, n, ldb, 2));
  // {ldc, floats C starts past a 256-byte boundary}: aligned, odd ldc, misaligned base, both.
  for (const auto& [ldc, offset] : {std::pair{32, 0}, std::pair{35, 0}, std::pair{32, 1},
                                   std::pair{33, 3}}) {
    DeviceFloats c(std::size_t(m) * ldc + 4), ref(std::size_t(m) * ldc);
    kernels::GemmArgs g{a.p, b.p, ref.p, m, n, k, lda, ldb, ldc};
    ref.upload(std::vector<float>(ref.count, 0.0f));
    cublas_gemm(g, 1.0f, 0.0f, ref.p);
    const auto want = ref.download();
    g.c = c.p + offset;
    for (const kernels::VariantInfo* v : tma_variants()) {
      const std::string what = v->symbol + " ldc " + std::to_string(ldc) + " C + " +
                               std::to_string(offset);
      ASSERT_TRUE(test_support::runs_here(*v, g)) << what;
      c.poison();
      const Workspace w(*v, m, n, k);
      ASSERT_EQ(kernels::launch_variant(*v, w.with(g), nullptr), cudaSuccess) << what;
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
      const auto all = c.download();
      for (int i = 0; i < offset; ++i)
        EXPECT_TRUE(std::isnan(all[std::size_t(i)])) << what << " wrote before C";
      const float* got = all.data() + offset;
      double diff = 0, norm = 0;
      for (int r = 0; r < m; ++r)
        for (int col = 0; col < ldc; ++col) {
          const float x = got[std::size_t(r) * ldc + col];
          if (col >= n) {
            EXPECT_TRUE(std::isnan(x)) << what << " wrote C's padding at " << r << "," << col;
            continue;
          }
          const double d = double(x) - want[std::size_t(r) * ldc + col];
          diff += d * d;
          norm += double(want[std::size_t(r) * ldc + col]) * want[std::size_t(r) * ldc + col];
        }
      EXPECT_LE(std::isnan(diff) ? INFINITY : std::sqrt(diff / norm), 1e-5) << what;
    }
  }
}

TEST(TmaFamily, OperandsTmaCannotAddressAreRefused) {
  OCCTUNE_REQUIRE_SM90();
  DeviceFloats a(64 * 1024 + 4), b(64 * 1024 + 4), c(64 * 1024 + 4);
  c.poison();
  const kernels::GemmArgs good{a.p, b.p, c.p, 64, 64, 64, 64, 64, 64};
  std::vector<std::pair<std::string, kernels::GemmArgs>> bad;
  auto with = [&](const std::string& what, auto change) {
    kernels::GemmArgs g = good;
    change(g);
    bad.push_back({what, g});
  };
  with("K = 63", [](kernels::GemmArgs& g) {
    g.k = 63;
    g.lda = 63;
  });
  with("N = 62", [](kernels::GemmArgs& g) {
    g.n = 62;
    g.ldb = 62;
    g.ldc = 62;
  });
  with("ldb = 66", [](kernels::GemmArgs& g) { g.ldb = 66; });
  with("A + 1", [&](kernels::GemmArgs& g) { g.a = a.p + 1; });
  with("B + 2", [&](kernels::GemmArgs& g) { g.b = b.p + 2; });
  for (const kernels::VariantInfo* v : tma_variants()) {
    ASSERT_TRUE(test_support::runs_here(*v, good)) << v->symbol;
    for (const auto& [what, g] : bad) {
      EXPECT_FALSE(test_support::runs_here(*v, g)) << v->symbol << " " << what;
      EXPECT_EQ(kernels::launch_variant(*v, g, nullptr), cudaErrorInvalidValue)
          << v->symbol << " " << what;
    }
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  // Nothing ran: C is still the poison everywhere.
  for (float x : c.download()) ASSERT_TRUE(std::isnan(x));
}

// The shapes stream-K is for: fewer 128 x 256 tiles than SMs (1536 x 1536 x 4096: 72, 3000 x
// 1000 x 4096: 96, 700 x 2076 x 4460: 54) or a partial last wave (4100^3: 561), ragged edges,
// with alpha and beta, a NaN C where beta is 0 and a NaN workspace.
TEST(TmaFamily, StreamKConfigurationsMatchCublasOnMidSizeShapes) {
  OCCTUNE_REQUIRE_SM90();
  const int shapes[][3] = {{1, 4, 4},          {17, 20, 36},       {260, 516, 1000},
                           {1000, 1000, 1000}, {1536, 1536, 4096}, {3000, 1000, 4096},
                           {700, 2076, 4460},  {4100, 4100, 4100}};
  const float cases[][2] = {{1.0f, 0.0f}, {0.75f, -1.5f}};
  for (const auto& s : shapes)
    for (const auto& ab : cases) {
      TmaProblem p(s[0], s[1], s[2], ab[0], ab[1]);
      for (const kernels::VariantInfo* v : streamk_variants()) {
        ASSERT_TRUE(test_support::runs_here(*v, p.args(p.c.p))) << v->symbol << " " << p.name();
        expect_matches(*v, p);
      }
    }
}

// Every tile split over several blocks (16 tiles of 256 slabs on a whole device's blocks), so
// C is all fix-up: the partials of up to ~10 blocks per tile, added in block order, which makes
// two runs bit for bit the same.
TEST(TmaFamily, StreamKWithEveryTileSplitMatchesCublasAndRepeatsBitForBit) {
  OCCTUNE_REQUIRE_SM90();
  const int m = 512, n = 1024, k = 8192;
  for (const auto& ab : {std::array<float, 2>{1.0f, 0.0f}, std::array<float, 2>{-0.5f, 2.0f}}) {
    TmaProblem p(m, n, k, ab[0], ab[1]);
    for (const kernels::VariantInfo* v : streamk_variants()) {
      const int bk = param(*v, "bk");
      const int blocks = kernels::StreamKPlan::grid(m, n, k, 128, 256, bk, sm_count());
      const kernels::StreamKPlan plan = plan_of(*v, m, n, k, blocks);
      ASSERT_EQ(plan.sk_tiles(), plan.tiles) << v->symbol << ": some tile is data-parallel";
      for (long long t = 0; t < plan.sk_tiles(); ++t)
        ASSERT_TRUE(plan.split(t)) << v->symbol << ": tile " << t << " is not split";
      ASSERT_EQ(v->workspace(m, n, k),
                std::size_t(plan.workspace_floats(128, 256)) * sizeof(float))
          << v->symbol << ": the registry's workspace is not the plan's on this device";
      expect_matches(*v, p);
      const auto first = p.c.download();
      expect_matches(*v, p);
      const auto second = p.c.download();
      EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(float)))
          << v->symbol << ": two runs differ";
    }
  }
}

// sk 3 (kernels/tma.cuh TmaWavesThenStreamK): the whole waves in a data-parallel launch, the
// partial wave streamed after it as its programmatic dependent, then the fix-up. On shapes cut
// from this device's SM count (one block per SM): exactly one whole wave (nothing streamed, no
// workspace), two waves and a tail of one slab a tile (5 blocks, no tile split), one wave and a
// tail of 7 tiles split over every SM. NaN C and workspace, alpha and beta, two runs bit for bit
// the same, and the launches captured into a CUDA graph replay bit for bit.
TEST(TmaFamily, WavesThenStreamKCoversTheWholeWavesAndTheTail) {
  OCCTUNE_REQUIRE_SM90();
  const int sms = sm_count();
  struct Case {
    int m, n, k;
    long long streamed;  // tiles of the partial wave
    bool split;          // whether some tile is split (a workspace and a fix-up)
  };
  const Case cases[] = {{128 * sms - 3, 252, 300, 0, false},
                        {128 * (2 * sms + 5) - 1, 256, 32, 5, false},
                        {128 * (sms + 7) - 3, 252, 1000, 7, true}};
  cudaStream_t stream;
  OCCTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int tested = 0;
  for (const kernels::VariantInfo* v : streamk_variants()) {
    if (v->param("sk") != 3) continue;
    ++tested;
    for (const Case& c : cases) {
      TmaProblem p(c.m, c.n, c.k, 0.75f, -1.5f);
      const std::string what = v->symbol + " at " + p.name();
      const int blocks = kernels::StreamKPlan::grid(c.m, c.n, c.k, 128, 256, 32, sms);
      const kernels::StreamKPlan plan = plan_of(*v, c.m, c.n, c.k, blocks);
      ASSERT_EQ(plan.sk_tiles(), c.streamed) << what;
      ASSERT_EQ(plan.dp_tiles % sms, 0) << what;
      ASSERT_EQ(plan.workspace_floats(128, 256) > 0, c.split) << what;
      ASSERT_EQ(v->workspace(c.m, c.n, c.k),
                std::size_t(plan.workspace_floats(128, 256)) * sizeof(float))
          << what << ": the registry's workspace is not the plan's on this device";
      expect_matches(*v, p);
      const auto direct = p.c.download();
      expect_matches(*v, p);
      const auto again = p.c.download();
      EXPECT_EQ(0, std::memcmp(direct.data(), again.data(), direct.size() * sizeof(float)))
          << what << ": two runs differ";

      const Workspace w(*v, c.m, c.n, c.k);
      const kernels::GemmArgs g = w.with(p.args(p.c.p));
      cudaGraph_t graph;
      ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
      const cudaError_t launched = kernels::launch_variant(*v, g, stream);
      ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << what;
      ASSERT_EQ(launched, cudaSuccess) << what;
      cudaGraphExec_t exec;
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess) << what;
      for (int replay = 0; replay < 2; ++replay) {
        p.reset_c();  // beta != 0: C0 again
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess) << what;
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << what;
        const auto replayed = p.c.download();
        EXPECT_EQ(0, std::memcmp(direct.data(), replayed.data(), direct.size() * sizeof(float)))
            << what << ": replay " << replay;
      }
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
    }
  }
  EXPECT_EQ(tested, 1);
  cudaStreamDestroy(stream);
}

// K = 0: C = beta * C (C never read with beta 0, so a NaN C must come out 0), for every
// configuration: no slab is fetched and every tile still gets its epilogue.
TEST(TmaFamily, KZeroScalesC) {
  OCCTUNE_REQUIRE_SM90();
  const int m = 300, n = 516;
  DeviceFloats a(16), b(16), c(std::size_t(m) * n);
  const auto c0 = uniform(c.count, 7);
  for (const float beta : {0.0f, 0.5f}) {
    kernels::GemmArgs g{a.p, b.p, c.p, m, n, 0, 4, n, n};
    g.alpha = 1.5f;
    g.beta = beta;
    for (const kernels::VariantInfo* v : tma_variants()) {
      ASSERT_TRUE(test_support::runs_here(*v, g)) << v->symbol;
      if (beta == 0.0f)
        c.poison();
      else
        c.upload(c0);
      EXPECT_EQ(v->workspace(m, n, 0), 0u) << v->symbol << ": K = 0 splits no tile";
      const Workspace w(*v, m, n, 0);
      ASSERT_EQ(kernels::launch_variant(*v, w.with(g), nullptr), cudaSuccess) << v->symbol;
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << v->symbol;
      const auto got = c.download();
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], beta * c0[i]) << v->symbol << " beta " << beta << " at " << i;
    }
  }
}

// The repacked variants over tma configurations (kernels/repacked.cuh) on shapes TMA cannot
// address: K, N and C's leading dimension not multiples of 4, tiny and mid-size, alpha/beta.
// The copies land in a NaN-poisoned workspace; C is the caller's, misaligned rows and all.
TEST(TmaFamily, RepackedTmaMatchesCublasOnMisalignedShapes) {
  OCCTUNE_REQUIRE_SM90();
  std::vector<const kernels::VariantInfo*> repacked;
  for (const kernels::VariantInfo* v : kernels::all_variants_of("repacked"))
    if (v->symbol.find("TmaGemm<") != std::string::npos) repacked.push_back(v);
  ASSERT_GE(repacked.size(), 1u);
  // 2049 x 4097 x 257: 289 tiles, two whole waves and a partial one on 132 SMs (sk 3's waves
  // launch, its tail and the fix-up).
  const int shapes[][3] = {{1, 1, 1},       {17, 33, 65},       {1025, 1025, 1025},
                           {698, 2077, 461}, {130, 1000, 4097}, {2049, 4097, 257}};
  for (const auto& s : shapes)
    for (const auto& [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{0.75f, -1.5f}}) {
      TmaProblem p(s[0], s[1], s[2], alpha, beta);
      for (const kernels::VariantInfo* v : repacked) {
        EXPECT_EQ(v->required_compute_capability, 90) << v->symbol;
        ASSERT_TRUE(test_support::runs_here(*v, p.args(p.c.p))) << v->symbol << " " << p.name();
        expect_matches(*v, p);
      }
    }
}

}  // namespace
}  // namespace occtune
