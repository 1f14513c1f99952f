// The search space of the tile-based families as data (kernels/kernel_space.hpp): constraints
// and resource model against the registry and against every shipped device profile. A
// configuration the model accepts either fits a profile's limits (threads, opt-in shared
// memory, registers) or the planner prunes it with a reason before anything launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "kernels/kernel_manifest.hpp"
#include "kernels/kernel_space.hpp"
#include "kernels/registry.hpp"

namespace occtune {
namespace {

using kernels::FamilySpace;
using kernels::TileParams;

// The TileParams a registered variant was labelled with.
TileParams params_of(const FamilySpace& space, const kernels::VariantInfo& v) {
  std::vector<std::pair<std::string, int>> named;
  for (auto& param : v.params) named.emplace_back(param.name, param.value);
  return space.from_named(named);
}

TEST(KernelSpace, EveryTileFamilyHasASpaceAndRegisteredVariants) {
  ASSERT_EQ(kernels::tile_family_spaces().size(), 4u);
  for (auto& space : kernels::tile_family_spaces()) {
    EXPECT_NE(kernels::find_family(space.family), nullptr) << space.family;
    EXPECT_GE(kernels::variants_of(space.family).size(), 4u) << space.family;
    EXPECT_FALSE(space.axes.empty());
  }
}

// Labels and points convert both ways: every point of every space survives named_params ->
// from_named, and a label that names no parameter is refused rather than dropped.
TEST(KernelSpace, NamedParamsRoundTrip) {
  for (auto& space : kernels::tile_family_spaces()) {
    int checked = 0;
    for (const TileParams& p : space.enumerate()) {
      if (!space.violation(p).empty() || ++checked > 500) continue;
      const TileParams q = space.from_named(space.named_params(p));
      EXPECT_EQ(space.named_params(q), space.named_params(p)) << space.family;
      EXPECT_EQ(q.wm, p.wm) << space.family;  // defaults the labels leave out come back too
      EXPECT_EQ(q.stages, p.stages) << space.family;
      EXPECT_EQ(q.splits, p.splits) << space.family;
    }
    EXPECT_GT(checked, 0) << space.family;
  }
  const auto& regblocked = *kernels::find_tile_family_space("regblocked");
  EXPECT_THROW(regblocked.from_named({{"bm", 128}, {"tiles", 4}}), std::invalid_argument);
}

// The registry's metadata is the model's: same threads, shared memory, tile, grid z and
// workspace, and every registered point is in the space (constraints and axis values).
TEST(KernelSpace, RegisteredVariantsArePointsOfTheirSpace) {
  for (auto& space : kernels::tile_family_spaces()) {
    for (auto* v : kernels::variants_of(space.family)) {
      const TileParams p = params_of(space, *v);
      EXPECT_EQ(space.violation(p), "") << v->symbol;
      EXPECT_EQ(v->threads(), space.threads(p)) << v->symbol;
      EXPECT_EQ(v->block_y, 1) << v->symbol;
      EXPECT_EQ(v->dynamic_smem, space.smem_bytes(p)) << v->symbol;
      EXPECT_EQ(v->tile_m, p.bm) << v->symbol;
      EXPECT_EQ(v->tile_n, p.bn) << v->symbol;
      EXPECT_EQ(v->grid_z, p.splits) << v->symbol;
      EXPECT_EQ(v->workspace(1000, 300, 77), kernels::tile_workspace_bytes(p, 1000, 300))
          << v->symbol;
      for (auto& axis : space.axes) {
        const int value = kernels::tile_param(p, axis.name);
        EXPECT_NE(std::find(axis.values.begin(), axis.values.end(), value), axis.values.end())
            << v->symbol << ": " << axis.name << "=" << value << " is not on the axis";
      }
    }
  }
}

TEST(KernelSpace, ConstraintsRejectWhatTheKernelsCannotRun) {
  using kernels::TileFamily;
  const TileParams good{128, 128, 8, 8, 8, 32, 64, 3, 1, 1};
  EXPECT_EQ(kernels::tile_violation(TileFamily::kPipelined, good), nullptr);
  TileParams p = good;
  p.wm = 64;  // 64/8 * 64/8 = 64 thread tiles in a warp tile
  EXPECT_NE(kernels::tile_violation(TileFamily::kPipelined, p), nullptr);
  p = good;
  p.bk = 4;
  EXPECT_NE(kernels::tile_violation(TileFamily::kPipelined, p), nullptr);
  p = good;
  p.stages = 1;
  EXPECT_NE(kernels::tile_violation(TileFamily::kPipelined, p), nullptr);
  p = good;
  p.splits = 4;
  EXPECT_NE(kernels::tile_violation(TileFamily::kPipelined, p), nullptr);
  EXPECT_EQ(kernels::tile_violation(TileFamily::kSplitK, p), nullptr);
  p = good;
  p.bm = 96;  // not a power of two
  EXPECT_NE(kernels::tile_violation(TileFamily::kPipelined, p), nullptr);
  p = good;
  p.tm = p.tn = 4;  // 32 x 32 = 1024 threads: legal; 64 x 32 would not be
  p.wm = 16;
  p.wn = 32;
  EXPECT_EQ(kernels::tile_violation(TileFamily::kPipelined, p), nullptr);
  p.bm = 256;
  p.wm = 16;
  EXPECT_NE(kernels::tile_violation(TileFamily::kPipelined, p), nullptr);  // 2048 threads
}

// Fragment double-buffering and the load point are choices of the register-staged kernel: the
// load point must be a k of the slab, and the cp.async and coarsened kernels refuse both.
// fbuf 2 is a choice of the register-staged kernel and (wave 8) of the cp.async families; the
// load point ldk belongs to the register-staged kernel alone, and coarsened has neither.
TEST(KernelSpace, FragmentBuffersAndLoadPointBelongWhereTheLoopsHaveThem) {
  using kernels::TileFamily;
  TileParams reg{128, 256, 8, 16, 8, 64, 64, 2, 1, 0, 0, 2, 2};
  EXPECT_EQ(kernels::tile_violation(TileFamily::kRegBlocked, reg), nullptr);
  TileParams p = reg;
  p.fbuf = 3;
  EXPECT_NE(kernels::tile_violation(TileFamily::kRegBlocked, p), nullptr);
  p = reg;
  p.fbuf = 0;
  EXPECT_NE(kernels::tile_violation(TileFamily::kRegBlocked, p), nullptr);
  p = reg;
  p.ldk = 8;  // k of the slab are 0..7
  EXPECT_NE(kernels::tile_violation(TileFamily::kRegBlocked, p), nullptr);
  p.ldk = -1;
  EXPECT_NE(kernels::tile_violation(TileFamily::kRegBlocked, p), nullptr);
  p.ldk = 7;
  EXPECT_EQ(kernels::tile_violation(TileFamily::kRegBlocked, p), nullptr);
  p.fbuf = 1;  // the single-buffered loop issues its loads before the slab only
  EXPECT_NE(kernels::tile_violation(TileFamily::kRegBlocked, p), nullptr);
  p.ldk = 0;
  EXPECT_EQ(kernels::tile_violation(TileFamily::kRegBlocked, p), nullptr);
  TileParams pipe{128, 256, 8, 16, 8, 64, 64, 3, 1, 1, 0, 1, 0};
  EXPECT_EQ(kernels::tile_violation(TileFamily::kPipelined, pipe), nullptr);
  pipe.fbuf = 2;
  EXPECT_EQ(kernels::tile_violation(TileFamily::kPipelined, pipe), nullptr);
  pipe.fbuf = 3;
  EXPECT_NE(kernels::tile_violation(TileFamily::kPipelined, pipe), nullptr);
  pipe.fbuf = 2;
  pipe.ldk = 2;
  EXPECT_NE(kernels::tile_violation(TileFamily::kPipelined, pipe), nullptr);
  TileParams split{64, 128, 16, 8, 8, 32, 64, 3, 2, 1, 0, 2, 0};  // SplitKFb<64,128,16,..,2,0>
  EXPECT_EQ(kernels::tile_violation(TileFamily::kSplitK, split), nullptr);
  split.ldk = 1;
  EXPECT_NE(kernels::tile_violation(TileFamily::kSplitK, split), nullptr);
  TileParams coarse{64, 64, 16, 4, 1, 64, 64, 1, 1, 0, 0, 2, 0};  // Coarsened<64, 64, 16, 4>
  EXPECT_NE(kernels::tile_violation(TileFamily::kCoarsened, coarse), nullptr);
  coarse.fbuf = 1;
  EXPECT_EQ(kernels::tile_violation(TileFamily::kCoarsened, coarse), nullptr);
}

// The register budget (__launch_bounds__ min blocks): 128 for up to 8x8 per thread, 255 above,
// and 168 for the cp.async families' fbuf-2 tiles of up to 8x8, whose second set of fragments
// lives across the slab's barrier (docs/PERFORMANCE.md, "fbuf in the cp.async pipeline").
TEST(KernelSpace, RegisterBudgetFollowsTheThreadTileAndTheFragmentBuffers) {
  using kernels::TileFamily;
  using kernels::tile_min_blocks_per_sm;
  TileParams p{64, 128, 16, 8, 8, 32, 64, 3, 1, 1, 0, 1, 0};  // 128 threads of 8x8
  EXPECT_EQ(tile_min_blocks_per_sm(TileFamily::kPipelined, p), 4);   // 128 registers
  p.fbuf = 2;
  EXPECT_EQ(tile_min_blocks_per_sm(TileFamily::kPipelined, p), 3);   // 168
  p.splits = 2;
  EXPECT_EQ(tile_min_blocks_per_sm(TileFamily::kSplitK, p), 3);
  TileParams reg{64, 128, 8, 8, 8, 32, 64, 2, 1, 0, 0, 2, 2};  // RegBlocked<64,128,..,0,2,2>
  EXPECT_EQ(tile_min_blocks_per_sm(TileFamily::kRegBlocked, reg), 4);  // unchanged: 128
  TileParams big{128, 256, 8, 16, 8, 64, 64, 3, 1, 1, 0, 2, 0};  // 16x8: 255 either way
  EXPECT_EQ(tile_min_blocks_per_sm(TileFamily::kPipelined, big), 1);
}

// Every accepted point of every family's space, on every shipped profile, with the worst
// register count a kernel can have (255): the planner either prunes it with a reason or it
// fits every limit of the profile. Nothing the model accepts reaches a launch it cannot make.
TEST(KernelSpace, AcceptedConfigurationsFitOrArePrunedOnEveryProfile) {
  // Answers with the offline calculator for a fixed register count.
  class FixedRegisters : public OccupancyOracle {
   public:
    FixedRegisters(DeviceInfo d, int regs) : device_(std::move(d)), regs_(regs) {}
    int max_potential_block_size(const std::string&, SmemForThreads, int) override { return 0; }
    OccupancyAnswer active_blocks(const std::string&, int threads, std::size_t smem) override {
      return OfflineOccupancy::compute(device_, regs_, 0, INT_MAX, 1, threads, smem);
    }
    std::string description() const override { return "fixed registers"; }

   private:
    DeviceInfo device_;
    int regs_;
  };
  std::vector<std::pair<const FamilySpace*, TileParams>> points;
  for (auto& space : kernels::tile_family_spaces())
    for (const TileParams& p : space.enumerate())
      if (space.violation(p).empty()) points.emplace_back(&space, p);
  int accepted = 0, fitting = 0, pruned = 0;
  for (auto& name : profile_names()) {
    const DeviceInfo device = load_device_profile(name);
    for (int regs : {64, 128, 255}) {
      FixedRegisters oracle(device, regs);
      for (auto& [space_ptr, p] : points) {
        {
          const FamilySpace& space = *space_ptr;
          ++accepted;
          kernels::VariantInfo v;
          v.family = space.family;
          v.symbol = "model";
          v.block_x = space.threads(p);
          v.block_y = 1;
          v.tile_m = p.bm;
          v.tile_n = p.bn;
          v.dynamic_smem = space.smem_bytes(p);
          v.grid_z = p.splits;
          const Candidate c = annotate(v, device, Shape{4096, 4096, 4096}, oracle);
          if (!c.rejection.empty()) {
            ++pruned;
            continue;
          }
          ++fitting;
          const std::string what =
              space.family + " on " + name + " with " + std::to_string(regs) + " registers";
          ASSERT_LE(c.threads, device.max_threads_per_block) << what;
          ASSERT_LE(c.dynamic_smem, device.shared_mem_per_block_optin) << what;
          ASSERT_LE(std::int64_t(c.threads) * regs, std::int64_t(device.regs_per_block)) << what;
          ASSERT_GE(c.active_blocks_per_sm, 1) << what;
          ASSERT_LE(c.active_blocks_per_sm * c.threads, device.max_threads_per_sm) << what;
        }
      }
    }
  }
  EXPECT_GT(fitting, 1000);
  EXPECT_GT(pruned, 0);  // the largest tiles do not fit the smaller GPUs, nor 1024 x 255 regs
  EXPECT_EQ(accepted, fitting + pruned);
}

// The registered variants with the registers ptxas really gave them (build-time manifest), on
// every shipped profile: runnable (occupancy >= 1) or pruned with a reason.
TEST(KernelSpace, RegisteredVariantsRunOrArePrunedOnEveryProfile) {
  for (auto& name : profile_names()) {
    const DeviceInfo device = load_device_profile(name);
    OfflineOccupancy oracle(device);
    for (auto& space : kernels::tile_family_spaces()) {
      for (auto* v : kernels::variants_of(space.family)) {
        const std::string what = v->symbol + " on " + name;
        auto found = kernels::find_kernel_resources(v->symbol, device.compute_capability());
        ASSERT_NE(found.resources, nullptr) << what << ": not in the kernel manifest";
        const Candidate c = annotate(*v, device, Shape{1000, 1000, 1000}, oracle);
        if (!c.rejection.empty()) continue;
        EXPECT_GE(c.active_blocks_per_sm, 1) << what;
        EXPECT_LE(c.dynamic_smem, device.shared_mem_per_block_optin) << what;
        EXPECT_LE(std::int64_t(c.threads) * c.registers, std::int64_t(device.regs_per_block))
            << what;
        EXPECT_GT(c.occupancy, 0.0) << what;
        EXPECT_EQ(c.grid_z, v->grid_z) << what;
      }
    }
  }
}

}  // namespace
}  // namespace occtune
