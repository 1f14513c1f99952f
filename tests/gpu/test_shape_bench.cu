// The measuring engine on the device: references, verification, timing statistics, limits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/element_bound.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/cuda/element_check.cuh"
#include "autotuner/cuda/runtime_occupancy.hpp"
#include "autotuner/cuda/shape_bench.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

TEST(ShapeBench, MeasuresEveryTiledDynamicCandidateAndVerifiesIt) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  cuda::RuntimeOccupancy oracle(device);
  TimingPolicy policy;
  policy.samples = 7;
  policy.warmup = 1;
  for (auto shape : {Shape{1024, 1024, 1024}, Shape{1000, 17, 4097}}) {
    cuda::ShapeBench bench(device, shape, policy);
    const auto& ref = bench.reference();
    EXPECT_EQ(ref.summary.count, 7u);
    EXPECT_GT(ref.summary.median, 0);
    auto plan = plan_family(*kernels::find_family("tiled_dynamic"), device, shape, oracle);
    ASSERT_GE(plan.candidates.size(), 3u);
    for (auto& c : plan.candidates) {
      auto m = bench.measure(c);
      EXPECT_EQ(m.outcome, Outcome::kOk) << c.variant->symbol << ": " << m.error;
      EXPECT_GE(m.rel_error, 0);
      EXPECT_LT(m.rel_error, policy.tolerance);
      EXPECT_GE(m.timing.summary.count, 5u);
      EXPECT_LE(m.timing.summary.min, m.timing.summary.q1);
      EXPECT_LE(m.timing.summary.q1, m.timing.summary.median);
      EXPECT_LE(m.timing.summary.median, m.timing.summary.q3);
    }
    EXPECT_FALSE(bench.context_lost());
  }
}

TEST(ShapeBench, RejectsACandidateBeyondTheDeviceBeforeLaunch) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  cuda::RuntimeOccupancy oracle(device);
  cuda::ShapeBench bench(device, Shape{64, 64, 64}, TimingPolicy{});
  auto c = annotate(*kernels::find_tile_variant("tiled_dynamic", 16), device, Shape{64, 64, 64},
                    oracle);
  c.rejection = "forced by the test";
  auto m = bench.measure(c);
  EXPECT_EQ(m.outcome, Outcome::kExceedsLimits);
}

TEST(ShapeBench, RefusesAShapeThatCannotFitBeforeAllocating) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  try {
    cuda::ShapeBench bench(device, Shape{200000, 200000, 200000}, TimingPolicy{});
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("200000x200000x200000"), std::string::npos);
  }
}

// The element-wise check on the device (issue #18): one planted wrong element, small enough for
// the relative Frobenius error to let it through, is found and named; so are NaN and infinity.
TEST(ElementCheck, APlantedWrongElementIsCaughtOnTheDevice) {
  OCCTUNE_REQUIRE_GPU();
  const size_t m = 2048, n = 2048, k = 1024;
  std::mt19937 rng(18);
  std::normal_distribution<float> dot(0.0f, std::sqrt(float(k)) / 3.0f);  // a product's spread
  std::vector<float> ref(m * n), magnitude(m * n, float(k) / 4.0f);
  for (auto& v : ref) v = dot(rng);
  std::vector<float> c = ref;
  const size_t planted = 1234 * n + 567;
  c[planted] += 0.2f;  // the bound there is about 0.01; the norm sees 0.2 / 21845 = 9e-6
  double diff = 0, norm = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    diff += (double(c[i]) - ref[i]) * (double(c[i]) - ref[i]);
    norm += double(ref[i]) * ref[i];
  }
  ASSERT_LT(std::sqrt(diff / norm), TimingPolicy{}.tolerance) << "the norm must not see it";

  float *dc = nullptr, *dref = nullptr, *dmag = nullptr;
  const size_t bytes = m * n * sizeof(float);
  ASSERT_EQ(cudaMalloc(&dc, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dref, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dmag, bytes), cudaSuccess);
  cudaMemcpy(dref, ref.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dmag, magnitude.data(), bytes, cudaMemcpyHostToDevice);
  cuda::ElementChecker checker;
  const double tol = element_tolerance(k);

  cudaMemcpy(dc, ref.data(), bytes, cudaMemcpyHostToDevice);
  EXPECT_EQ(checker.run(dc, dref, dmag, m * n, tol, nullptr, 1024).violations, 0u);

  cudaMemcpy(dc, c.data(), bytes, cudaMemcpyHostToDevice);
  auto r = checker.run(dc, dref, dmag, m * n, tol, nullptr, 1024);
  EXPECT_EQ(r.violations, 1u);
  EXPECT_EQ(r.first, planted);
  EXPECT_FLOAT_EQ(r.c, c[planted]);
  EXPECT_FLOAT_EQ(r.ref, ref[planted]);

  c = ref;
  c[planted] = std::numeric_limits<float>::quiet_NaN();
  c[7] = std::numeric_limits<float>::infinity();
  cudaMemcpy(dc, c.data(), bytes, cudaMemcpyHostToDevice);
  r = checker.run(dc, dref, dmag, m * n, tol, nullptr, 1024);
  EXPECT_EQ(r.violations, 2u);
  EXPECT_EQ(r.first, 7u);
  cudaFree(dc);
  cudaFree(dref);
  cudaFree(dmag);
}

// Every registered variant of the tile families passes the element-wise bound where it is
// correct (no false alarms from the bound), on shapes that take the aligned float4/cp.async
// paths, the element paths, long K and split-K; and a variant checked twice, with its timed
// launches in between, passes again.
TEST(ShapeBench, EveryTileFamilyPassesTheElementBoundAndTheRecheck) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  cuda::RuntimeOccupancy oracle(device);
  TimingPolicy policy;
  policy.warmup = 1;
  for (auto shape : {Shape{256, 512, 1024}, Shape{333, 255, 4097}, Shape{64, 64, 16384}}) {
    cuda::ShapeBench bench(device, shape, policy);
    for (auto* family : {"coarsened", "regblocked", "pipelined", "splitk", "streamk"}) {
      auto plan = plan_family(*kernels::find_family(family), device, shape, oracle);
      for (auto& c : plan.candidates) {
        if (!c.rejection.empty()) continue;
        auto m = bench.check(c);
        EXPECT_EQ(m.outcome, Outcome::kOk)
            << shape.str() << " " << c.variant->symbol << ": " << m.error;
        auto batch = bench.samples(c, 3);
        EXPECT_EQ(batch.outcome, Outcome::kOk) << batch.error;
        auto again = bench.check(c);
        EXPECT_EQ(again.outcome, Outcome::kOk)
            << shape.str() << " " << c.variant->symbol << " after its samples: " << again.error;
      }
    }
  }
}

}  // namespace
}  // namespace occtune
