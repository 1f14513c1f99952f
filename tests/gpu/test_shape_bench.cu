// The measuring engine on the device: references, verification, timing statistics, limits.
#include <gtest/gtest.h>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/cuda/device_probe.hpp"
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

}  // namespace
}  // namespace occtune
