// The public occtune::sgemm (include/occtune/sgemm.hpp) on the GPU against cuBLAS: both majors,
// all four op combinations, alpha/beta (beta = 0 with NaN in C must not leak), odd and tiny
// shapes, padded leading dimensions; the on_miss policy tunes a shape once and then hits; the
// cached path can be captured into a CUDA graph; bad arguments launch nothing.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "autotuner/cuda/device_probe.hpp"
#include "db/store.hpp"
#include "kernels/registry.hpp"
#include "occtune/cache.hpp"
#include "occtune/sgemm.hpp"
#include "tests/support/gpu_guard.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune {
namespace {

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << #x
#define CUBLAS_OK(x) ASSERT_EQ((x), CUBLAS_STATUS_SUCCESS) << #x

struct Case {
  Major major;
  Op op_a, op_b;
  std::int64_t m, n, k;
  std::int64_t pad;  // added to every leading dimension
  float alpha, beta;
};

// Rows x cols of a stored matrix in the call's major order: element (i, j) of the stored matrix
// at i * ld + j (row-major) or j * ld + i (column-major).
std::int64_t stored_elements(Major major, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  if (rows == 0 || cols == 0) return 0;
  return major == Major::kRow ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

cublasOperation_t cublas_op(Op op) { return op == Op::kN ? CUBLAS_OP_N : CUBLAS_OP_T; }

class SgemmApi : public ::testing::Test {
 protected:
  void SetUp() override {
    OCCTUNE_REQUIRE_GPU();
    ::setenv("OCCTUNE_DB", (dir_.path / "sgemm.db").c_str(), 1);
    set_tune_policy(TunePolicy::kOff);
    ASSERT_EQ(cublasCreate(&handle_), CUBLAS_STATUS_SUCCESS);
    cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH);
  }
  void TearDown() override {
    if (handle_) cublasDestroy(handle_);
    ::unsetenv("OCCTUNE_DB");
  }

  // Runs occtune::sgemm and cuBLAS on the same random inputs and C; returns the largest error
  // relative to the magnitude of the dot product terms of that element.
  void check(const Case& c) {
    SCOPED_TRACE(::testing::Message()
                 << (c.major == Major::kRow ? "row" : "col") << " op_a=" << int(c.op_a)
                 << " op_b=" << int(c.op_b) << " " << c.m << "x" << c.n << "x" << c.k
                 << " pad=" << c.pad << " alpha=" << c.alpha << " beta=" << c.beta);
    const bool row = c.major == Major::kRow;
    // Stored shapes of A (op(A) is m x k) and B (op(B) is k x n).
    const std::int64_t a_rows = c.op_a == Op::kN ? c.m : c.k, a_cols = c.op_a == Op::kN ? c.k : c.m;
    const std::int64_t b_rows = c.op_b == Op::kN ? c.k : c.n, b_cols = c.op_b == Op::kN ? c.n : c.k;
    // BLAS: every leading dimension is at least 1, also for an empty row (k = 0).
    const std::int64_t lda = std::max<std::int64_t>(row ? a_cols : a_rows, 1) + c.pad;
    const std::int64_t ldb = std::max<std::int64_t>(row ? b_cols : b_rows, 1) + c.pad;
    const std::int64_t ldc = std::max<std::int64_t>(row ? c.n : c.m, 1) + c.pad;
    const std::int64_t na = stored_elements(c.major, a_rows, a_cols, lda);
    const std::int64_t nb = stored_elements(c.major, b_rows, b_cols, ldb);
    const std::int64_t nc = stored_elements(c.major, c.m, c.n, ldc);
    std::mt19937 rng(unsigned(c.m * 7 + c.n * 13 + c.k * 31 + c.pad));
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> ha(na), hb(nb), hc(nc);
    for (auto& x : ha) x = dist(rng);
    for (auto& x : hb) x = dist(rng);
    for (auto& x : hc) x = c.beta == 0 ? NAN : dist(rng);  // beta = 0: C must never be read
    float *a, *b, *c_ours, *c_ref;
    CUDA_OK(cudaMalloc(&a, na * 4));
    CUDA_OK(cudaMalloc(&b, nb * 4));
    CUDA_OK(cudaMalloc(&c_ours, nc * 4));
    CUDA_OK(cudaMalloc(&c_ref, nc * 4));
    CUDA_OK(cudaMemcpy(a, ha.data(), na * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(b, hb.data(), nb * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(c_ours, hc.data(), nc * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(c_ref, hc.data(), nc * 4, cudaMemcpyHostToDevice));
    sgemm(c.major, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, c_ours, ldc);
    CUDA_OK(cudaDeviceSynchronize());
    // cuBLAS is column-major: a row-major call is the column-major C^T = op(B)^T op(A)^T.
    if (row) {
      CUBLAS_OK(cublasSgemm(handle_, cublas_op(c.op_b), cublas_op(c.op_a), int(c.n), int(c.m),
                            int(c.k), &c.alpha, b, int(ldb), a, int(lda), &c.beta, c_ref,
                            int(ldc)));
    } else {
      CUBLAS_OK(cublasSgemm(handle_, cublas_op(c.op_a), cublas_op(c.op_b), int(c.m), int(c.n),
                            int(c.k), &c.alpha, a, int(lda), b, int(ldb), &c.beta, c_ref,
                            int(ldc)));
    }
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> ours(nc), ref(nc);
    CUDA_OK(cudaMemcpy(ours.data(), c_ours, nc * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(ref.data(), c_ref, nc * 4, cudaMemcpyDeviceToHost));
    cudaFree(a);
    cudaFree(b);
    cudaFree(c_ours);
    cudaFree(c_ref);
    // Every element of C (its padding must be untouched: compared with the NaN or value put
    // there), within a bound that scales with k and the term magnitudes (inputs in [-1, 1)).
    const double bound = 4e-6 * std::sqrt(double(std::max<std::int64_t>(c.k, 1))) *
                             std::max(1.0f, std::fabs(c.alpha)) *
                             double(std::max<std::int64_t>(c.k, 1)) +
                         2e-6;
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < nc; ++i) {
      const bool both_nan = std::isnan(ours[i]) && std::isnan(ref[i]);
      if (both_nan) continue;  // padding left NaN by both
      if (!(std::fabs(double(ours[i]) - double(ref[i])) <= bound)) {
        if (bad++ < 3)
          ADD_FAILURE() << "element " << i << ": occtune " << ours[i] << ", cuBLAS " << ref[i];
      }
    }
    EXPECT_EQ(bad, 0);
  }

  testing::TempDir dir_;
  cublasHandle_t handle_ = nullptr;
};

TEST_F(SgemmApi, EveryLayoutAndMajorMatchesCublas) {
  const std::vector<std::array<std::int64_t, 3>> shapes = {
      {1, 1, 1}, {17, 17, 17}, {1000, 17, 4097}, {33, 1000, 65}, {256, 256, 256}, {1, 4097, 300}};
  for (Major major : {Major::kRow, Major::kColumn})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT})
        for (auto s : shapes)
          for (std::int64_t pad : {0, 3})
            check({major, op_a, op_b, s[0], s[1], s[2], pad, 1.0f, 0.0f});
}

TEST_F(SgemmApi, AlphaAndBetaFollowBlas) {
  for (Major major : {Major::kRow, Major::kColumn})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        check({major, op_a, op_b, 129, 67, 511, 1, 0.5f, 0.0f});
        check({major, op_a, op_b, 129, 67, 511, 1, -1.25f, 2.0f});
        check({major, op_a, op_b, 64, 64, 0, 0, 1.0f, 0.5f});  // k = 0: C = beta C
      }
}

TEST_F(SgemmApi, OnMissTunesOnceThenHits) {
  ::setenv("OCCTUNE_TUNE_BUDGET_MS", "3000", 1);
  set_tune_policy(TunePolicy::kOnMiss);
  const std::string first = sgemm_prepare(Major::kRow, Op::kN, Op::kT, 777, 555, 333);
  EXPECT_NE(first.find("exact"), std::string::npos) << first;
  // The store now holds the shape: a fresh Cache answers it exactly, and its run is the one run.
  const Cache cache = Cache::open();
  Problem p;
  p.m = 777;
  p.n = 555;
  p.k = 333;
  p.layout = "nt";
  const Answer a = cache.best(p, cache.devices().front().uuid);
  EXPECT_EQ(a.answered_by, LookupStep::kExact);
  const auto runs_after_first = db::Store::open(std::getenv("OCCTUNE_DB")).runs().size();
  // Resolved shapes are kept: asking again neither tunes nor adds runs.
  EXPECT_EQ(sgemm_prepare(Major::kRow, Op::kN, Op::kT, 777, 555, 333), first);
  EXPECT_EQ(db::Store::open(std::getenv("OCCTUNE_DB")).runs().size(), runs_after_first);
  check({Major::kRow, Op::kN, Op::kT, 777, 555, 333, 0, 1.0f, 0.0f});
  set_tune_policy(TunePolicy::kOff);
  ::unsetenv("OCCTUNE_TUNE_BUDGET_MS");
}

TEST_F(SgemmApi, PrepareAcceptsEveryMajorAndOp) {
  // sgemm_prepare takes no leading dimensions: it assumes the smallest ones of the caller's major.
  for (Major major : {Major::kRow, Major::kColumn})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT})
        EXPECT_FALSE(sgemm_prepare(major, op_a, op_b, 1000, 777, 333).empty());
}

TEST_F(SgemmApi, TheCachedPathCanBeCapturedIntoAGraph) {
  const std::int64_t m = 300, n = 200, k = 100;
  float *a, *b, *c;
  CUDA_OK(cudaMalloc(&a, m * k * 4));
  CUDA_OK(cudaMalloc(&b, k * n * 4));
  CUDA_OK(cudaMalloc(&c, m * n * 4));
  CUDA_OK(cudaMemset(a, 0, m * k * 4));
  CUDA_OK(cudaMemset(b, 0, k * n * 4));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  sgemm_prepare(Major::kRow, Op::kN, Op::kN, m, n, k);  // resolve before capturing
  cudaGraph_t graph;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  sgemm(Major::kRow, Op::kN, Op::kN, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, stream);
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaMemset(c, 0xff, m * n * 4));
  CUDA_OK(cudaGraphLaunch(exec, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  std::vector<float> hc(m * n);
  CUDA_OK(cudaMemcpy(hc.data(), c, m * n * 4, cudaMemcpyDeviceToHost));
  for (float v : hc) ASSERT_EQ(v, 0.0f);  // zero inputs: the graph really wrote C
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

TEST_F(SgemmApi, BadArgumentsLaunchNothingAndNameTheValue) {
  float* c;
  CUDA_OK(cudaMalloc(&c, 64 * 64 * 4));
  auto expect_usage = [&](auto&& call, const std::string& needle) {
    try {
      call();
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_usage([&] { sgemm(Major::kRow, Op::kN, Op::kN, 8, 8, 8, 1, nullptr, 8, c, 8, 0, c, 8); },
               "null");
  expect_usage([&] { sgemm(Major::kRow, Op::kN, Op::kN, 8, 8, 8, 1, c, 4, c, 8, 0, c, 8); }, "lda");
  expect_usage([&] { sgemm(Major::kRow, Op::kN, Op::kN, -3, 8, 8, 1, c, 8, c, 8, 0, c, 8); }, "-3");
  expect_usage([&] { sgemm(Major::kRow, Op::kN, Op::kN, 8, 8, 1LL << 33, 1, c, 8, c, 8, 0, c, 8); },
               "8589934592");
  expect_usage([&] { sgemm(Major(7), Op::kN, Op::kN, 8, 8, 8, 1, c, 8, c, 8, 0, c, 8); }, "7");
  cudaFree(c);
}

// Issue #18: the cache is keyed by the shape, so a stored tma winner may meet a call whose
// leading dimensions or pointers TMA cannot address (kernels/applicability.hpp). sgemm then
// launches the fallback resolved beside it; launching tma would be refused and throw.
TEST_F(SgemmApi, ACachedTmaWinnerRunsOnlyOnOperandsItCanAddress) {
  const DeviceInfo device = cuda::select_device("0");
  if (device.compute_capability() != 90) GTEST_SKIP() << "tma runs on sm_90 only";
  const Shape shape{300, 256, 512};
  const kernels::VariantInfo* tma = kernels::variants_of("tma").front();
  {
    db::Store store = db::Store::open(std::getenv("OCCTUNE_DB"));
    db::RunStart start;
    start.device = device;
    start.kernel = "tma";
    start.build_id = std::string(kernels::kernel_build_id());
    start.shape = shape;
    start.tool_version = "0.1.0";
    start.argv = {"occtune", "tune", "--kernel", "tma", "--shape", shape.str()};
    const std::int64_t run = store.begin_run(start);
    Measurement m = testing::seed_measurement(16, 0.01, shape);
    m.candidate.variant = tma;
    m.candidate.threads = tma->threads();
    m.candidate.tile = 0;
    m.candidate.dynamic_smem = tma->dynamic_smem;
    store.add_measurement(run, m);
    store.finish_run(run, db::RunStatus::kComplete);
  }
  const std::string how = sgemm_prepare(Major::kRow, Op::kN, Op::kN, 300, 256, 512);
  EXPECT_NE(how.find(tma->symbol), std::string::npos) << how;
  check({Major::kRow, Op::kN, Op::kN, 300, 256, 512, 0, 1.0f, 0.0f});   // tma itself
  check({Major::kRow, Op::kN, Op::kN, 300, 256, 512, 1, 0.5f, 2.0f});   // lda 513: fallback
  check({Major::kRow, Op::kN, Op::kN, 300, 256, 512, 4, 1.0f, -1.0f});  // padded by 4: tma
}

}  // namespace
}  // namespace occtune
