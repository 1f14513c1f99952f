// The textbook occupancy walk: snapping, the lowered-limit widening, annotation and rejection,
// with a scripted oracle (exact control) and with the offline twin on shipped profiles.
#include <gtest/gtest.h>

#include <map>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "kernels/applicability.hpp"

namespace occtune {
namespace {

TEST(Snapping, PowersOfFour) {
  EXPECT_EQ(snap_to_power_of_four(0), 0);
  EXPECT_EQ(snap_to_power_of_four(1), 1);
  EXPECT_EQ(snap_to_power_of_four(3), 1);
  EXPECT_EQ(snap_to_power_of_four(4), 4);
  EXPECT_EQ(snap_to_power_of_four(15), 4);
  EXPECT_EQ(snap_to_power_of_four(16), 16);
  EXPECT_EQ(snap_to_power_of_four(255), 64);
  EXPECT_EQ(snap_to_power_of_four(256), 256);
  EXPECT_EQ(snap_to_power_of_four(768), 256);
  EXPECT_EQ(snap_to_power_of_four(1023), 256);
  EXPECT_EQ(snap_to_power_of_four(1024), 1024);
  EXPECT_EQ(integer_sqrt(1024), 32);
  EXPECT_EQ(integer_sqrt(256), 16);
  EXPECT_EQ(integer_sqrt(4), 2);
  EXPECT_EQ(integer_sqrt(1), 1);
}

// Answers scripted per limit; records what it was asked.
class ScriptedOracle : public OccupancyOracle {
 public:
  std::map<int, int> block_for_limit;
  std::vector<int> limits_asked;
  int max_potential_block_size(const std::string& symbol, SmemForThreads smem, int limit) override {
    EXPECT_EQ(symbol, "TiledDynamic<0>");
    EXPECT_EQ(smem(256), 2u * 256 * sizeof(float));  // the textbook smem: 2 * block * sizeof(T)
    limits_asked.push_back(limit);
    auto it = block_for_limit.find(limit);
    return it == block_for_limit.end() ? std::min(limit, 1024) : it->second;
  }
  OccupancyAnswer active_blocks(const std::string&, int threads, std::size_t) override {
    return {threads >= 256 ? 2048 / threads : 8, "warps", 32};
  }
  std::string description() const override { return "scripted"; }
};

DeviceInfo fake_device() {
  DeviceInfo d;
  d.name = "fake";
  d.sm_count = 10;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.shared_mem_per_block = 48 * 1024;
  d.shared_mem_per_block_optin = 100 * 1024;
  return d;
}

TEST(CandidateGeneration, WalksDownFromEachSnappedAnswer) {
  ScriptedOracle oracle;
  oracle.block_for_limit = {{1024, 768}, {255, 224}, {63, 63}, {15, 12}};
  auto plan = plan_family(*kernels::find_family("tiled_dynamic"), fake_device(),
                          Shape{1000, 1000, 1000}, oracle, 4);
  ASSERT_EQ(plan.candidates.size(), 3u);
  // 768 -> 256 threads (tile 16); limit 255 -> 224 -> 64 (tile 8); limit 63 -> 63 -> 16 (tile 4);
  // limit 15 -> 12 -> 4 threads (tile 2) is below min_tile 4: stop.
  EXPECT_EQ(oracle.limits_asked, (std::vector<int>{1024, 255, 63, 15}));
  const int tiles[] = {16, 8, 4}, suggested[] = {768, 224, 63}, limits[] = {1024, 255, 63};
  for (int i = 0; i < 3; ++i) {
    auto& c = plan.candidates[size_t(i)];
    EXPECT_EQ(c.tile, tiles[i]);
    EXPECT_EQ(c.threads, tiles[i] * tiles[i]);
    EXPECT_EQ(c.variant->symbol, "TiledDynamic<" + std::to_string(tiles[i]) + ">");
    EXPECT_EQ(c.dynamic_smem, 2u * c.threads * sizeof(float));
    EXPECT_EQ(c.suggested_block, suggested[i]);
    EXPECT_EQ(c.block_limit, limits[i]);
    EXPECT_EQ(c.step, i + 1);
    EXPECT_EQ(c.origin, "occupancy-api");
    EXPECT_EQ(c.grid_x, (1000 + tiles[i] - 1) / tiles[i]);
    EXPECT_EQ(c.grid_y, c.grid_x);
    EXPECT_TRUE(c.rejection.empty()) << c.rejection;
  }
  // tile 16: 2048/256 = 8 blocks/SM -> 64 warps of 64 = 100%, waves = 63*63 / (8*10)
  EXPECT_DOUBLE_EQ(plan.candidates[0].occupancy, 1.0);
  EXPECT_DOUBLE_EQ(plan.candidates[0].waves, 63.0 * 63.0 / 80.0);
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes.back().find("smallest useful tile"), std::string::npos);
}

TEST(CandidateGeneration, MinTileOneGoesAllTheWayDown) {
  ScriptedOracle oracle;
  auto plan = plan_family(*kernels::find_family("tiled_dynamic"), fake_device(),
                          Shape{64, 64, 64}, oracle, 1);
  std::vector<int> tiles;
  for (auto& c : plan.candidates) tiles.push_back(c.tile);
  EXPECT_EQ(tiles, (std::vector<int>{32, 16, 8, 4, 2, 1}));
}

TEST(CandidateGeneration, RejectsWhatTheDeviceCannotRun) {
  ScriptedOracle oracle;
  DeviceInfo small = fake_device();
  small.max_threads_per_block = 512;
  small.max_grid_y = 10;
  auto c = annotate(*kernels::find_tile_variant("tiled_dynamic", 32), small, Shape{64, 64, 64},
                    oracle);
  EXPECT_NE(c.rejection.find("1024 threads"), std::string::npos) << c.rejection;
  auto g = annotate(*kernels::find_tile_variant("tiled_dynamic", 4), small, Shape{64, 64, 64},
                    oracle);
  EXPECT_NE(g.rejection.find("grid"), std::string::npos) << g.rejection;
}

TEST(CandidateGeneration, BaselineFamiliesUseTheirRegisteredVariants) {
  ScriptedOracle oracle;
  auto plan = plan_family(*kernels::find_family("tiled_static"), fake_device(),
                          Shape{100, 100, 100}, oracle);
  EXPECT_TRUE(oracle.limits_asked.empty());
  ASSERT_EQ(plan.candidates.size(), 3u);
  for (auto& c : plan.candidates) {
    EXPECT_EQ(c.origin, "registered");
    EXPECT_EQ(c.dynamic_smem, 0u);
  }
}

// The textbook method on an H100 picks 1024 threads (design.md section 1), and 32x32, 16x16 and
// 8x8 all reach 100% theoretical occupancy; 4x4 is held by the 32-block limit to 32 warps of
// 64 (50% in warps, which is how CUDA counts occupancy; each 16-thread block fills half a warp).
TEST(CandidateGeneration, OfflineTwinOnTheH100Profile) {
  auto h100 = load_device_profile("h100");
  OfflineOccupancy oracle(h100);
  auto plan = plan_family(*kernels::find_family("tiled_dynamic"), h100, Shape{4096, 4096, 4096},
                          oracle, 4);
  ASSERT_EQ(plan.candidates.size(), 4u);
  EXPECT_EQ(plan.candidates[0].tile, 32);
  EXPECT_EQ(plan.candidates[0].suggested_block, 1024);
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(plan.candidates[size_t(i)].occupancy, 1.0) << i;
  EXPECT_EQ(plan.candidates[3].tile, 4);
  EXPECT_EQ(plan.candidates[3].active_blocks_per_sm, 32);
  EXPECT_EQ(plan.candidates[3].limiter, "blocks");
  EXPECT_DOUBLE_EQ(plan.candidates[3].occupancy, 0.5);
  // 4096/32 = 128 blocks per side, 2 blocks/SM on 132 SMs.
  EXPECT_EQ(plan.candidates[0].active_blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(plan.candidates[0].waves, 128.0 * 128.0 / (2 * 132));
}

TEST(CandidateGeneration, EveryShippedProfilePlansWithinItsLimits) {
  for (auto& name : profile_names()) {
    auto device = load_device_profile(name);
    OfflineOccupancy oracle(device);
    for (auto& family : kernels::families()) {
      auto plan = plan_family(family, device, Shape{3001, 1000, 4097}, oracle);
      EXPECT_FALSE(plan.candidates.empty()) << name << " " << family.name;
      for (auto& c : plan.candidates) {
        // A candidate beyond a limit stays in the plan, rejected with its reason (it is
        // recorded as exceeds_limits and never launched); every accepted one fits.
        if (!c.rejection.empty()) {
          EXPECT_TRUE(c.threads > device.max_threads_per_block ||
                      c.dynamic_smem > device.shared_mem_per_block_optin ||
                      c.active_blocks_per_sm == 0 || c.grid_x > device.max_grid_x ||
                      c.grid_y > device.max_grid_y ||
                      !kernels::arch_violation(*c.variant, device.compute_capability()).empty() ||
                      !kernels::shape_violation(*c.variant, 3001, 1000, 4097).empty())
              << name << " " << c.variant->symbol << ": " << c.rejection;
          continue;
        }
        EXPECT_LE(c.threads, device.max_threads_per_block) << name;
        EXPECT_LE(c.dynamic_smem, device.shared_mem_per_block_optin) << name;
        EXPECT_GT(c.active_blocks_per_sm, 0) << name << " " << c.variant->symbol;
        EXPECT_LE(c.active_blocks_per_sm, device.max_blocks_per_sm) << name;
        EXPECT_LE(c.occupancy, 1.0) << name;
      }
    }
  }
}

// Issue #18: the TMA family runs on sm_90 only and on operands TMA can address; elsewhere its
// candidates stay in the plan, rejected with the rule's reason (kernels/applicability.hpp).
Plan plan_tma(const std::string& profile, Shape shape) {
  const DeviceInfo device = load_device_profile(profile);
  OfflineOccupancy oracle(device);
  const kernels::FamilyInfo* family = kernels::find_family("tma");
  EXPECT_NE(family, nullptr);
  return family ? plan_family(*family, device, shape, oracle) : Plan{};
}

TEST(CandidateGeneration, TmaIsRejectedOffSm90WithoutAskingTheOccupancyApi) {
  const Plan plan = plan_tma("a100", Shape{4096, 4096, 4096});
  // 3 data-parallel, 1 stream-K hybrid, 1 waves then stream-K (kernels/tma.cu)
  ASSERT_EQ(plan.candidates.size(), 5u);
  for (const Candidate& c : plan.candidates) {
    EXPECT_EQ(c.rejection, "needs sm_90 (TMA); the device is sm_80") << c.variant->symbol;
    EXPECT_EQ(c.active_blocks_per_sm, 0);
    EXPECT_EQ(c.registers, 0);  // the manifest has no sm_80 code to answer for
    EXPECT_EQ(c.threads, 384);
    EXPECT_EQ(c.grid_x, 16);
    EXPECT_EQ(c.grid_y, 32);
  }
}

TEST(CandidateGeneration, TmaPlansOnH100WithTheManifestsRegisters) {
  const Plan plan = plan_tma("h100", Shape{4096, 4096, 4096});
  ASSERT_EQ(plan.candidates.size(), 5u);  // as in TmaIsRejectedOffSm90...
  for (const Candidate& c : plan.candidates) {
    EXPECT_EQ(c.rejection, "") << c.variant->symbol;
    EXPECT_EQ(c.registers, 168) << c.variant->symbol;  // the count at entry (setmaxnreg later)
    EXPECT_EQ(c.active_blocks_per_sm, 1) << c.variant->symbol;
    EXPECT_EQ(c.threads, 384);
    EXPECT_GT(c.dynamic_smem, 160u * 1024u);
  }
}

TEST(CandidateGeneration, TmaIsRejectedWhereTheDenseOperandsAreMisaligned) {
  const struct {
    Shape shape;
    const char* rejection;
  } cases[] = {
      {{4096, 4096, 4097}, "needs K multiples of 4 (TMA strides); here K = 4097"},
      {{4096, 4098, 4096}, "needs N multiples of 4 (TMA strides); here N = 4098"},
      {{17, 1001, 1001}, "needs K and N multiples of 4 (TMA strides); here K = 1001 and N = 1001"},
  };
  for (const auto& t : cases) {
    const Plan plan = plan_tma("h100", t.shape);
    ASSERT_EQ(plan.candidates.size(), 5u);  // as in TmaIsRejectedOffSm90...
    for (const Candidate& c : plan.candidates) EXPECT_EQ(c.rejection, t.rejection) << t.shape.str();
  }
  // M needs nothing: TMA clips rows.
  for (const Candidate& c : plan_tma("h100", Shape{4097, 4096, 4096}).candidates)
    EXPECT_EQ(c.rejection, "");
}

TEST(Applicability, OnlyTheTmaAndClusterVariantsCarryARule) {
  int tma = 0, repacked_tma = 0, cluster = 0;
  for (const kernels::VariantInfo& v : kernels::variants()) {
    if (v.symbol.rfind("Skinny", 0) == 0 && v.symbol.find("Cluster") != std::string::npos) {
      // skinny's split blocks in a thread block cluster (register kernels realigning or not,
      // and the cp.async rings, windowed or not, for M or N up to 16): sm_90 only, any operand.
      ++cluster;
      EXPECT_EQ(v.family, "skinny") << v.symbol;
      EXPECT_EQ(kernels::arch_violation(v, 80),
                "needs sm_90 (thread block clusters); the device is sm_80")
          << v.symbol;
      EXPECT_EQ(kernels::arch_violation(v, 90), "") << v.symbol;
      EXPECT_EQ(kernels::operand_violation(v, {1001, 3, 7, 1, 2, 3}), "") << v.symbol;
    } else if (v.family == "tma") {
      ++tma;
      EXPECT_EQ(v.required_compute_capability, 90) << v.symbol;
      EXPECT_EQ(v.operand_alignment, 4) << v.symbol;
      EXPECT_EQ(v.layout, Layout::kNN) << v.symbol;
      EXPECT_EQ(v.block_x * v.block_y, 384) << v.symbol;
    } else if (v.symbol.find("TmaGemm<") != std::string::npos) {
      // Repacked over tma: the architecture rule carries over; the copies meet the operand rule.
      ++repacked_tma;
      EXPECT_EQ(v.family, "repacked") << v.symbol;
      EXPECT_EQ(v.required_compute_capability, 90) << v.symbol;
      EXPECT_EQ(kernels::arch_violation(v, 80), "needs sm_90 (TMA); the device is sm_80")
          << v.symbol;
      EXPECT_EQ(v.operand_alignment, 1) << v.symbol;
      EXPECT_EQ(kernels::operand_violation(v, {1001, 3, 7, 1, 2, 3}), "") << v.symbol;
    } else {
      // Every other variant runs anywhere: no problem violates 0 and 1.
      EXPECT_EQ(v.required_compute_capability, 0) << v.symbol;
      EXPECT_EQ(v.operand_alignment, 1) << v.symbol;
      EXPECT_EQ(kernels::arch_violation(v, 75), "") << v.symbol;
      EXPECT_EQ(kernels::operand_violation(v, {1001, 3, 7, 1, 2, 3}), "") << v.symbol;
    }
  }
  EXPECT_EQ(tma, 5);
  EXPECT_EQ(repacked_tma, 4);
  EXPECT_EQ(cluster, 37);
}

TEST(Applicability, OperandRulesNameWhatBreaksThem) {
  const kernels::VariantInfo* v = kernels::variants_of("tma").front();
  const std::uintptr_t base = 0x10000;
  EXPECT_EQ(kernels::operand_violation(*v, {64, 128, 128, base, base + 16, base + 256}), "");
  EXPECT_EQ(kernels::operand_violation(*v, {63, 130, 128, base, base, base}),
            "needs lda and ldb multiples of 4 (TMA strides); here lda = 63 and ldb = 130");
  EXPECT_EQ(kernels::operand_violation(*v, {64, 128, 128, base + 4, base + 8, base}),
            "needs A and B aligned to 16 bytes (TMA); not aligned: A, B");
  // C is the epilogue's, which stores to any leading dimension and address (kernels/tma.cuh).
  EXPECT_EQ(kernels::operand_violation(*v, {64, 128, 131, base, base, base + 4}), "");
  EXPECT_EQ(kernels::arch_violation(*v, 90), "");
  // sm_90a code runs on compute capability 9.0 alone.
  EXPECT_EQ(kernels::arch_violation(*v, 100), "needs sm_90 (TMA); the device is sm_100");
  EXPECT_EQ(kernels::arch_violation(*v, 89), "needs sm_90 (TMA); the device is sm_89");
}

}  // namespace
}  // namespace occtune
