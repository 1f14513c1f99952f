// The offline twin (cuda_occupancy.h + build-time register counts) must agree with the runtime
// Occupancy API on the real device: same registers, same textbook walk, same occupancy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/cuda/runtime_occupancy.hpp"
#include "kernels/applicability.hpp"
#include "kernels/kernel_manifest.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

void expect_same_plan(const Plan& runtime, const Plan& offline, const std::string& what) {
  ASSERT_EQ(runtime.candidates.size(), offline.candidates.size()) << what;
  for (size_t i = 0; i < runtime.candidates.size(); ++i) {
    auto& r = runtime.candidates[i];
    auto& o = offline.candidates[i];
    const std::string at = what + " candidate " + std::to_string(i) + " (" + r.variant->label() + ")";
    EXPECT_EQ(r.variant, o.variant) << at;
    EXPECT_EQ(r.suggested_block, o.suggested_block) << at;
    EXPECT_EQ(r.block_limit, o.block_limit) << at;
    EXPECT_EQ(r.threads, o.threads) << at;
    EXPECT_EQ(r.dynamic_smem, o.dynamic_smem) << at;
    EXPECT_EQ(r.registers, o.registers) << at;
    EXPECT_EQ(r.active_blocks_per_sm, o.active_blocks_per_sm) << at;
    EXPECT_DOUBLE_EQ(r.occupancy, o.occupancy) << at;
    EXPECT_EQ(r.limiter, o.limiter) << at;
    EXPECT_DOUBLE_EQ(r.waves, o.waves) << at;
  }
}

TEST(OccupancyTwin, BuildTimeRegisterCountsMatchTheRuntime) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  cuda::RuntimeOccupancy runtime(device);
  int checked = 0;
  for (auto& v : kernels::variants()) {
    // A variant with no code for this device (the TMA family off sm_90) is never asked about.
    if (!kernels::arch_violation(v, device.compute_capability()).empty()) continue;
    auto found = kernels::find_kernel_resources(v.symbol, device.compute_capability());
    ASSERT_NE(found.resources, nullptr) << v.symbol;
    ASSERT_TRUE(found.exact_arch) << "no " << device.arch() << " code for " << v.symbol;
    auto attr = runtime.attributes(v.symbol);
    EXPECT_EQ(attr.registers, found.resources->registers) << v.symbol;
    EXPECT_EQ(attr.static_smem, found.resources->static_smem) << v.symbol;
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

TEST(OccupancyTwin, OfflinePlanEqualsRuntimePlanOnThisDevice) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  cuda::RuntimeOccupancy runtime(device);
  OfflineOccupancy offline(device);
  for (auto shape : {Shape{4096, 4096, 4096}, Shape{1, 17, 1000}, Shape{3001, 1000, 4097}}) {
    for (auto& family : kernels::families()) {
      for (int min_tile : {1, 4}) {
        auto r = plan_family(family, device, shape, runtime, min_tile);
        auto o = plan_family(family, device, shape, offline, min_tile);
        EXPECT_FALSE(r.candidates.empty()) << family.name;
        expect_same_plan(r, o, family.name + " " + shape.str());
      }
    }
  }
}

// The shipped profile of this GPU model (if there is one) plans exactly like the device.
TEST(OccupancyTwin, ShippedProfileEqualsRuntimePlan) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  std::string name = device.name;
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  std::string profile;
  for (auto& p : profile_names())
    if (name.find(p) != std::string::npos) profile = p;
  if (profile.empty()) GTEST_SKIP() << "no shipped profile for " << device.name;
  auto prof = load_device_profile(profile);
  EXPECT_EQ(prof.sm_count, device.sm_count);
  EXPECT_EQ(prof.shared_mem_per_block_optin, device.shared_mem_per_block_optin);
  EXPECT_EQ(prof.shared_mem_per_sm, device.shared_mem_per_sm);
  EXPECT_EQ(prof.max_blocks_per_sm, device.max_blocks_per_sm);
  EXPECT_EQ(prof.l2_bytes, device.l2_bytes);
  cuda::RuntimeOccupancy runtime(device);
  OfflineOccupancy offline(prof);
  for (auto& family : kernels::families()) {
    auto r = plan_family(family, device, Shape{4096, 4096, 4096}, runtime);
    auto o = plan_family(family, prof, Shape{4096, 4096, 4096}, offline);
    expect_same_plan(r, o, "profile " + profile + " " + family.name);
  }
}

}  // namespace
}  // namespace occtune
