// User kernel families (issue #13) without a GPU: every bad registration refused with the
// family, the value and the fix; problems and configuration names parsed and refused; the
// families in the kernel registry; planning offline against a device profile (the textbook walk
// with the family's shared memory, its grid, device limits); the CLI's --problem rules;
// fixed-aspect blocks; the work measure and the device limits; problems in job files; problems
// written by their dimensions in tune, query, check and compare output.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "autotuner/cli/app.hpp"
#include "autotuner/cli/job_selection.hpp"
#include "autotuner/cli/tune_report.hpp"
#include "autotuner/cli/user_problem.hpp"
#include "autotuner/core/device_peaks.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/core/stats.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/core/user_plan.hpp"
#include "autotuner/cuda/user_bench.hpp"
#include "autotuner/output/gate_output.hpp"
#include "autotuner/output/problem_json.hpp"
#include "db/store.hpp"
#include "kernels/registry.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/usage_error.hpp"

namespace occtune {
namespace {

using occtune::testing::usage_error;

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Contains;
using ::testing::Not;

// Stand-ins: no GPU work runs here, but a configuration needs a function and hooks.
const char kFakeKernel[1] = {};
int fake_attributes(const void*, int*, int*, int*) { return 0; }
int fake_active(const void*, int, std::size_t, int*) { return 0; }
int fake_smem(const void*, int) { return 0; }

KernelFamily valid(const std::string& name) {
  KernelFamily f;
  f.name = name;
  f.version = "1";
  f.dims = {"nx", "ny"};
  f.configs = {{{{"rows", 1}}, kFakeKernel, {}, 32, 0, {}},
               {{{"rows", 2}}, kFakeKernel, {}, 31, 0, {}}};
  f.smem = [](Block b, const KernelConfig& c) {
    return std::size_t(b.x + 2) * std::size_t(b.y * c.param("rows") + 2) * sizeof(float);
  };
  f.grid = [](const Dims& p, const KernelConfig& c, Block b) {
    const std::int64_t rows = b.y * c.param("rows");
    return Grid{(p["nx"] + b.x - 1) / b.x, (p["ny"] + rows - 1) / rows, 1};
  };
  f.buffers = [](const Dims& p) {
    return std::vector<Buffer>{{"in", std::size_t(p["nx"] * p["ny"]), Buffer::Role::kInput},
                               {"out", std::size_t(p["nx"] * p["ny"]), Buffer::Role::kOutput}};
  };
  f.launch = [](const LaunchArgs&) { return 0; };
  f.reference = [](const Dims&, std::vector<std::vector<float>>&) {};
  f.cuda = {&fake_attributes, &fake_active, &fake_smem};
  f.bytes = [](const Dims& p) { return 2.0 * double(p["nx"]) * double(p["ny"]) * 4; };
  return f;
}

// Registered before anything reads the kernel registry (which is built once, at first use).
const bool registered = [] {
  register_family(valid("ustencil"));
  KernelFamily linear = valid("ureduce");
  linear.dims = {"n"};
  linear.block_rule = BlockRule::kLinear;
  linear.min_threads = 32;
  linear.configs = {{{{"ept", 4}}, kFakeKernel, {}, 0, 0, {}}};  // no register count declared
  linear.smem = [](Block b, const KernelConfig&) { return std::size_t(b.threads()) * 4; };
  linear.grid = [](const Dims& p, const KernelConfig&, Block b) {
    return Grid{(p["n"] + b.x - 1) / b.x, 1, 1};
  };
  linear.bytes = nullptr;  // no work measure
  register_family(linear);
  KernelFamily wide = valid("uwide");  // fixed aspect 4:1: blocks of 4s x s threads
  wide.block_rule = BlockRule::kAspect;
  wide.aspect = {4, 1};
  wide.min_threads = 64;
  register_family(wide);
  KernelFamily huge = valid("uhuge");  // needs 1 GiB of shared memory at every block
  huge.smem = [](Block, const KernelConfig&) { return std::size_t(1) << 30; };
  register_family(huge);
  KernelFamily zero = valid("uzerogrid");  // a grid of zero blocks for every problem
  zero.grid = [](const Dims&, const KernelConfig&, Block) { return Grid{0, 1, 1}; };
  register_family(zero);
  KernelFamily device_checked = valid("udevref");  // checked by device work, not a host loop
  device_checked.reference = nullptr;
  device_checked.device_reference = [](const ReferenceArgs&) { return 0; };
  register_family(device_checked);
  return true;
}();

// The message of the Error(kUsage) `register_family(f)` throws.
std::string refusal(KernelFamily f) {
  return usage_error([&] { register_family(std::move(f)); });
}

TEST(UserKernelRegistration, EveryBadInputNamesTheFamilyTheValueAndTheFix) {
  KernelFamily f = valid("bad1");
  f.reference = nullptr;
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("'bad1'"), HasSubstr("no reference"),
                                HasSubstr("set KernelFamily::reference")));
  f = valid("bad1");
  f.configs.clear();
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("'bad1'"), HasSubstr("no configurations")));
  f = valid("Bad Name");
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("'Bad Name'"), HasSubstr("a-z, 0-9 and _")));
  f = valid("bad1");
  f.version = "1 beta";
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("'bad1'"), HasSubstr("version '1 beta'")));
  f = valid("bad1");
  f.dims = {"nx", "nx"};
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("'bad1'"), HasSubstr("'nx' is named twice")));
  f = valid("bad1");
  f.dims = {"a", "b", "c", "d"};
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("4 problem dimensions"), HasSubstr("1 to 3")));
  f = valid("bad1");
  f.configs[1].function = nullptr;
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("configuration 2 has no function"),
                                HasSubstr("KernelConfig::function")));
  f = valid("bad1");
  f.configs[1].params = {{"rows", 1}};
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("configurations 1 and 2 are both bad1<rows=1>")));
  f = valid("bad1");
  f.configs[1].params = {{"cols", 2}};
  EXPECT_THAT(refusal(f), HasSubstr("configuration 2 names other parameters"));
  f = valid("bad1");
  f.configs[0].params = {{"tile", 2}};
  f.configs[1].params = {{"tile", 4}};
  EXPECT_THAT(refusal(f), HasSubstr("'tile' is reserved"));
  f = valid("bad1");
  f.cuda = {};
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("no CUDA hooks"), HasSubstr("occtune::cuda_hooks()")));
  f = valid("bad1");
  f.compare.tolerance = 0;
  EXPECT_THAT(refusal(f), HasSubstr("tolerance 0 must be a positive number"));
  f = valid("bad1");
  f.min_threads = 2048;
  EXPECT_THAT(refusal(f), HasSubstr("block sizes 2048..1024"));
  f = valid("bad1");
  f.grid = nullptr;
  EXPECT_THAT(refusal(f), HasSubstr("no grid function"));
}

// A family is checked against exactly one reference: on the host or on the device.
TEST(UserKernelRegistration, AFamilyNeedsExactlyOneKindOfReference) {
  KernelFamily f = valid("bad1");
  f.reference = nullptr;
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("kernel family 'bad1': no reference"),
                                HasSubstr("KernelFamily::reference"),
                                HasSubstr("or KernelFamily::device_reference")));
  f.device_reference = [](const ReferenceArgs&) { return 0; };
  f.reference = [](const Dims&, std::vector<std::vector<float>>&) {};
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("kernel family 'bad1': both KernelFamily::reference "
                                          "and KernelFamily::device_reference are set"),
                                HasSubstr("keep one")));
  // A device reference alone is a valid registration ("udevref", registered above).
  ASSERT_NE(find_user_family("udevref"), nullptr);
  EXPECT_TRUE(find_user_family("udevref")->def.device_reference);
  EXPECT_FALSE(find_user_family("udevref")->def.reference);
}

TEST(UserKernelRegistration, ABadAspectIsRefusedWithItsValueAndTheFix) {
  KernelFamily f = valid("bad1");
  f.block_rule = BlockRule::kAspect;
  f.aspect = {4, 2};
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("'bad1'"), HasSubstr("aspect 4:2 is not in lowest terms"),
                                HasSubstr("write it as 2:1")));
  f.aspect = {0, 1};
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("aspect 0:1 is not a block shape"),
                                HasSubstr("aspect = {4, 1}")));
  f.aspect = {64, 33};
  EXPECT_THAT(refusal(f), HasSubstr("aspect 64:33 is not a block shape"));
  f = valid("bad1");  // an aspect without the rule that uses it would be silently ignored
  f.aspect = {2, 1};
  EXPECT_THAT(refusal(f), AllOf(HasSubstr("aspect 2:1 is set but block_rule is not"),
                                HasSubstr("BlockRule::kAspect")));
  f = valid("bad1");
  f.block_rule = BlockRule::kAspect;
  f.aspect = {8, 1};
  f.min_threads = 16;
  f.max_threads = 31;  // the rule's sizes are 8, 32, 128, 512
  EXPECT_THAT(refusal(f), HasSubstr("no block of 8*4^k threads lies in min_threads..max_threads = "
                                    "16..31"));
  f = valid("bad1");
  f.configs[0].params = {{"bx", 2}};
  f.configs[1].params = {{"bx", 4}};
  EXPECT_THAT(refusal(f), HasSubstr("'bx' is reserved"));
}

// Its own suite: it builds the registry, which the death test above must find unbuilt.
TEST(UserKernelAspect, AFixedAspectGivesBlocksOfThatShapeAtPowerOfFourThreads) {
  const UserFamily& f = *find_user_family("uwide");
  const auto variants = kernels::variants_of("uwide");
  ASSERT_EQ(variants.size(), 6u);  // 16x4, 32x8, 64x16 (64..1024 threads) for two configurations
  EXPECT_EQ(variants[0]->symbol, "uwide<rows=1>/16x4");
  EXPECT_EQ(variants[0]->label(), "rows=1,bx=16,by=4");
  EXPECT_EQ(variants[5]->symbol, "uwide<rows=2>/64x16");
  EXPECT_EQ(variants[5]->dynamic_smem, 66u * 34u * 4u);
  // Snapping: aspect.x * aspect.y * 4^k, never above the answer, 0 below the smallest block.
  EXPECT_EQ(f.snap_threads(1024), 1024);
  EXPECT_EQ(f.snap_threads(1023), 256);
  EXPECT_EQ(f.snap_threads(255), 64);
  EXPECT_EQ(f.snap_threads(15), 4);
  EXPECT_EQ(f.snap_threads(3), 0);
  EXPECT_EQ(f.block_for_threads(256).x, 32);
  EXPECT_EQ(f.block_for_threads(256).y, 8);
  const UserFamily& square = *find_user_family("ustencil");
  EXPECT_EQ(square.snap_threads(1023), 256);
  const UserFamily& linear = *find_user_family("ureduce");
  EXPECT_EQ(linear.snap_threads(1023), 512);
  EXPECT_EQ(parse_variant_name(f, "uwide<rows=2>/32x8").block.threads(), 256);
}

TEST(UserKernelRegistration, ADuplicateNameIsRefused) {
  EXPECT_THAT(refusal(valid("ustencil")),
              AllOf(HasSubstr("'ustencil'"), HasSubstr("registered twice")));
}

TEST(UserKernelRegistration, ABuiltInNameIsRefusedWhenTheRegistryIsBuilt) {
  // The registry is built once per process, so this runs in a child process of its own.
  EXPECT_EXIT(
      {
        try {
          register_family(valid("naive"));
          kernels::find_family("naive");
        } catch (const Error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::_Exit(int(e.code()));
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(2),
      "kernel family 'naive' is registered twice \\(a built-in family has that name\\)");
}

TEST(UserKernelRegistration, FamiliesJoinTheRegistryAsConfigurationTimesBlock) {
  const auto* info = kernels::find_family("ustencil");
  ASSERT_NE(info, nullptr);
  // Square blocks 4x4 (16 threads) .. 32x32, for each of the two configurations.
  const auto variants = kernels::variants_of("ustencil");
  ASSERT_EQ(variants.size(), 8u);
  EXPECT_EQ(variants[0]->symbol, "ustencil<rows=1>/4x4");
  EXPECT_EQ(variants[7]->symbol, "ustencil<rows=2>/32x32");
  EXPECT_EQ(variants[7]->label(), "rows=2,tile=32");
  EXPECT_EQ(variants[7]->dynamic_smem, 34u * 66u * 4u);  // (bx+2)(by*rows+2) floats
  const auto linear = kernels::variants_of("ureduce");
  ASSERT_EQ(linear.size(), 6u);  // 32 .. 1024 threads
  EXPECT_EQ(linear[0]->symbol, "ureduce<ept=4>/32x1");
  EXPECT_EQ(linear[0]->label(), "ept=4,threads=32");
  EXPECT_THAT(kernels::family_names(), HasSubstr("ustencil"));
}

// occtune::sgemm's on-miss tune takes the families nobody named: the user families registered
// in this program have nn variants, yet they are not GEMMs and must stay out of it.
TEST(UserKernelRegistration, AnSgemmTuneOnAMissTakesNoUserFamily) {
  for (Layout layout : {Layout::kNN, Layout::kNT, Layout::kTN, Layout::kTT}) {
    const auto families = gemm_tuning_families(layout);
    EXPECT_THAT(families, Not(Contains(HasSubstr("ustencil")))) << layout_name(layout);
    EXPECT_THAT(families, Not(Contains("ureduce"))) << layout_name(layout);
    EXPECT_THAT(families, Contains("regblocked")) << layout_name(layout);
    EXPECT_THAT(families, Not(Contains("naive"))) << "a baseline, " << layout_name(layout);
  }
  EXPECT_THAT(gemm_tuning_families(Layout::kNN), Contains("splitk"));
}

TEST(UserKernelRegistration, RegisteringAfterTheRegistryIsBuiltIsRefused) {
  kernels::families();
  EXPECT_THAT(refusal(valid("late")), HasSubstr("before occtune::main"));
}

TEST(UserKernelKey, TheVersionIsTheBuildIdOfAUserFamily) {
  EXPECT_EQ(family_build_id("ustencil", "abc123"), "user:1");
  EXPECT_EQ(family_build_id("tiled_dynamic", "abc123"), "abc123");
}

TEST(UserKernelProblem, ParsesEveryDimensionOnceAsAnInteger) {
  const UserFamily& f = *find_user_family("ustencil");
  const Dims d = parse_problem(f, "ny=2048,nx=4096");
  EXPECT_EQ(d.str(), "nx=4096,ny=2048");
  EXPECT_EQ(to_shape(f, d), (Shape{4096, 2048, 1}));
  EXPECT_EQ(to_dims(f, Shape{4096, 2048, 1}).str(), "nx=4096,ny=2048");
  auto refused = [&](const std::string& text) {
    const std::string why = usage_error([&] { parse_problem(f, text); });
    EXPECT_THAT(why, AllOf(HasSubstr("'ustencil'"), HasSubstr("'" + text + "'"),
                           HasSubstr("--problem nx=4096,ny=4096")));
    return why;
  };
  EXPECT_THAT(refused("nx=4096"), HasSubstr("dimension 'ny' is missing"));
  EXPECT_THAT(refused("nx=4k,ny=1"), HasSubstr("nx = '4k' is not an integer"));
  EXPECT_THAT(refused("nx=0,ny=1"), HasSubstr("nx = '0' is not an integer in 1.."));
  EXPECT_THAT(refused("nx=-5,ny=1"), HasSubstr("is not an integer"));
  EXPECT_THAT(refused("nx=99999999999,ny=1"), HasSubstr("is not an integer in 1..2147483647"));
  EXPECT_THAT(refused("nx=1,ny=1,nz=1"), HasSubstr("'nz' is not one of its dimensions (nx, ny)"));
  EXPECT_THAT(refused("nx=1,nx=2,ny=1"), HasSubstr("'nx' is given twice"));
  EXPECT_THAT(refused("nx=1,,ny=1"), HasSubstr("'' is not name=value"));
  EXPECT_THAT(refused(""), HasSubstr("is not name=value"));
}

TEST(UserKernelProblem, ConfigurationNamesParseOrSayHow) {
  const UserFamily& f = *find_user_family("ustencil");
  const UserVariant v = parse_variant_name(f, "ustencil<rows=2>/16x16");
  EXPECT_EQ(v.config, 1);
  EXPECT_EQ(v.block.x, 16);
  EXPECT_EQ(v.block.y, 16);
  for (const std::string text :
       {"ustencil<rows=2>", "ustencil<rows=2>/16", "ustencil<rows=2>/16xy", "stencil<rows=2>/16x16",
        "ustencil<rows=3>/16x16", "ustencil<rows=2>/16x8", ""}) {
    try {
      parse_variant_name(f, text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_THAT(e.what(), AllOf(HasSubstr("'ustencil'"), HasSubstr("'" + text + "'"),
                                  HasSubstr("e.g. ustencil<rows=1>/4x4")));
    }
  }
}

TEST(UserKernelPlan, OfflineAgainstAProfileWalksTheTextbookMethodPerConfiguration) {
  const DeviceInfo h100 = load_device_profile("h100");
  OfflineOccupancy oracle(h100);
  const Plan plan =
      plan_family(*kernels::find_family("ustencil"), h100, Shape{4096, 4096, 1}, oracle);
  ASSERT_FALSE(plan.candidates.empty());
  // Per configuration the walk starts at the textbook answer and lowers the limit: powers of
  // four, descending, never below min_threads (16).
  int previous = 0, config_starts = 0;
  for (const Candidate& c : plan.candidates) {
    EXPECT_EQ(c.origin, "occupancy-api");
    EXPECT_EQ(c.threads, snap_to_power_of_four(c.threads));
    EXPECT_GE(c.threads, 16);
    if (c.step == 1) {
      ++config_starts;
      EXPECT_EQ(c.suggested_block, oracle.max_potential_block_size(
                                       c.variant->symbol.substr(0, c.variant->symbol.find('/')),
                                       [&](int t) {
                                         const int w = integer_sqrt(t);
                                         return std::size_t(w + 2) *
                                                std::size_t(w * c.variant->param("rows") + 2) * 4;
                                       },
                                       1024));
    } else {
      EXPECT_LT(c.threads, previous);
    }
    previous = c.threads;
    // Annotated with the family's grid, the device's occupancy and waves.
    const std::int64_t rows = c.variant->block_y * c.variant->param("rows");
    EXPECT_EQ(c.grid_x, (4096 + c.variant->block_x - 1) / c.variant->block_x);
    EXPECT_EQ(c.grid_y, (4096 + rows - 1) / rows);
    EXPECT_EQ(c.dynamic_smem, std::size_t(c.variant->block_x + 2) * std::size_t(rows + 2) * 4);
    EXPECT_GT(c.active_blocks_per_sm, 0);
    EXPECT_EQ(
        c.active_blocks_per_sm,
        oracle.active_blocks(c.variant->symbol, c.threads, c.dynamic_smem).active_blocks_per_sm);
    EXPECT_GT(c.occupancy, 0);
    EXPECT_FALSE(c.limiter.empty());
    EXPECT_NEAR(c.waves, double(c.grid_blocks()) / (c.active_blocks_per_sm * h100.sm_count), 1e-12);
    EXPECT_TRUE(c.rejection.empty()) << c.rejection;
  }
  EXPECT_EQ(config_starts, 2);
  // 32 registers, (32+2)^2 floats: the textbook answer is the full 1024-thread block.
  EXPECT_EQ(plan.candidates.front().threads, 1024);
}

TEST(UserKernelPlan, AFixedAspectFamilyIsPlannedOfflineWithItsBlockShape) {
  const DeviceInfo h100 = load_device_profile("h100");
  OfflineOccupancy oracle(h100);
  const Plan plan = plan_family(*kernels::find_family("uwide"), h100, Shape{4096, 4096, 1}, oracle);
  ASSERT_FALSE(plan.candidates.empty());
  const UserFamily& f = *find_user_family("uwide");
  int config_starts = 0;
  for (const Candidate& c : plan.candidates) {
    EXPECT_EQ(c.variant->block_x, 4 * c.variant->block_y) << c.variant->symbol;
    EXPECT_EQ(c.threads, c.variant->block_x * c.variant->block_y);
    EXPECT_EQ(c.threads, f.snap_threads(c.suggested_block));  // the answer, snapped by the rule
    EXPECT_GE(c.threads, 64);
    EXPECT_THAT(c.variant->label(), HasSubstr(fmt::format("bx={},by={}", c.variant->block_x,
                                                          c.variant->block_y)));
    if (c.step == 1) {
      ++config_starts;
      EXPECT_EQ(c.suggested_block,
                oracle.max_potential_block_size(
                    c.variant->symbol.substr(0, c.variant->symbol.find('/')),
                    [&](int t) {
                      const int s = std::max(1, integer_sqrt(t / 4));
                      return std::size_t(4 * s + 2) * std::size_t(s * c.variant->param("rows") + 2) * 4;
                    },
                    1024));
    }
    const std::int64_t rows = c.variant->block_y * c.variant->param("rows");
    EXPECT_EQ(c.grid_x, (4096 + c.variant->block_x - 1) / c.variant->block_x);
    EXPECT_EQ(c.grid_y, (4096 + rows - 1) / rows);
    EXPECT_TRUE(c.rejection.empty()) << c.rejection;
  }
  EXPECT_EQ(config_starts, 2);
  EXPECT_EQ(plan.candidates.front().variant->symbol, "uwide<rows=1>/64x16");
}

// The message of the Error(kUsage) planning `family` offline on the h100 profile throws.
std::string plan_refusal(const char* family, Shape problem) {
  const DeviceInfo h100 = load_device_profile("h100");
  OfflineOccupancy oracle(h100);
  return usage_error([&] { plan_family(*kernels::find_family(family), h100, problem, oracle); });
}

TEST(UserKernelPlan, ALinearFamilyWithoutRegisterCountsCannotBePlannedOffline) {
  EXPECT_THAT(plan_refusal("ureduce", Shape{1 << 20, 1, 1}),
              AllOf(HasSubstr("ureduce<ept=4>"), HasSubstr("no register count"),
                    HasSubstr("KernelConfig::registers"), HasSubstr("--device N")));
}

TEST(UserKernelPlan, SharedMemoryAboveTheLimitForEveryBlockIsRefusedBeforeAnyLaunch) {
  EXPECT_THAT(
      plan_refusal("uhuge", Shape{64, 64, 1}),
      AllOf(HasSubstr("'uhuge'"), HasSubstr("1073741824 B"),
            HasSubstr(std::to_string(load_device_profile("h100").shared_mem_per_block_optin)),
            HasSubstr("make KernelFamily::smem smaller")));
}

TEST(UserKernelPlan, AGridOfZeroIsRefusedBeforeAnyLaunch) {
  EXPECT_THAT(plan_refusal("uzerogrid", Shape{64, 64, 1}),
              AllOf(HasSubstr("'uzerogrid'"), HasSubstr("grid 0x1x1"), HasSubstr("nx=64,ny=64"),
                    HasSubstr("fix KernelFamily::grid")));
}

TEST(UserKernelCli, ProblemFlagsBecomeShapesOrSayWhatIsWrong) {
  std::vector<std::string> kernels = {"ustencil"};
  EXPECT_EQ(cli::user_problem_shapes(kernels, {"nx=100,ny=7"}, {}),
            std::vector<std::string>{"100x7x1"});
  std::vector<std::string> gemm = {"tiled_dynamic"};
  EXPECT_EQ(cli::user_problem_shapes(gemm, {}, {"8x8x8"}), std::vector<std::string>{"8x8x8"});
  auto refused = [](std::vector<std::string> k, std::vector<std::string> problems,
                    std::vector<std::string> shapes) {
    return usage_error([&] { cli::user_problem_shapes(k, problems, shapes); });
  };
  EXPECT_THAT(refused({"ustencil"}, {}, {}),
              HasSubstr("'ustencil' takes its problem as --problem nx=N"));
  EXPECT_THAT(refused({"ustencil"}, {"nx=1,ny=1"}, {"8x8x8"}), HasSubstr("were both given"));
  EXPECT_THAT(refused({"ustencil", "naive"}, {"nx=1,ny=1"}, {}), HasSubstr("separate runs"));
  EXPECT_THAT(refused({"ustencil", "ureduce"}, {"nx=1,ny=1"}, {}),
              HasSubstr("different problem dimensions (nx,ny and n)"));
  EXPECT_THAT(refused({}, {"nx=1,ny=1"}, {}), HasSubstr("registered: ustencil, ureduce"));
  EXPECT_THAT(refused({"ustencil"}, {"nx=1"}, {}), HasSubstr("dimension 'ny' is missing"));
}

TEST(UserKernelWork, TheWorkMeasureIsTheFamilysAndTheGemmsForBuiltInFamilies) {
  const Work stencil = problem_work("ustencil", Shape{4096, 2048, 1});
  EXPECT_EQ(stencil.bytes, 2.0 * 4096 * 2048 * 4);
  EXPECT_EQ(stencil.flops, 0.0);  // no flops measure registered
  const Work gemm = problem_work("tiled_dynamic", Shape{8, 8, 8});
  EXPECT_EQ(gemm.flops, 1024.0);
  EXPECT_EQ(gemm.bytes, 0.0);
  EXPECT_EQ(problem_work("ureduce", Shape{64, 1, 1}).bytes, 0.0);  // no measure at all
}

TEST(UserKernelWork, TheDeviceLimitsComeFromTheDeviceInfoAndSayHow) {
  const DeviceInfo h100 = load_device_profile("h100");
  EXPECT_DOUBLE_EQ(dram_bandwidth(h100), 2.0 * 2619e6 * 5120 / 8);  // 3.35 TB/s
  EXPECT_DOUBLE_EQ(fma_peak_flops(h100), 2.0 * 132 * 128 * 1980e6);
  EXPECT_THAT(limits_line(h100), AllOf(HasSubstr("profile:h100"),
                                       HasSubstr("DRAM 3352 GB/s = 2 x 2619 MHz x 5120 bit / 8"),
                                       HasSubstr("FMA 66.9 TFLOP/s = 2 x 132 SMs x 128 lanes")));
  // The share is of the limit the launch came closest to.
  const LimitShare bw = share_of_limit(1e9, dram_bandwidth(h100) * 0.5e-3, 1e-3, h100);
  EXPECT_STREQ(bw.limit, "DRAM");
  EXPECT_NEAR(bw.fraction, 0.5, 1e-12);
  EXPECT_EQ(share_text(bw), "50% DRAM");
  const LimitShare fma = share_of_limit(fma_peak_flops(h100) * 0.8e-3, 1e6, 1e-3, h100);
  EXPECT_STREQ(fma.limit, "FMA");
  EXPECT_EQ(share_text(share_of_limit(0, 0, 1e-3, h100)), "-");
  DeviceInfo unknown;  // no memory clock: no DRAM share rather than a division by zero
  EXPECT_EQ(share_of_limit(0, 1e9, 1e-3, unknown).fraction, 0.0);
}

TEST(UserKernelWork, TuneTablesJsonAndCsvShowGbpsAndTheShareOfTheLimit) {
  const DeviceInfo h100 = load_device_profile("h100");
  ShapeResult r;
  r.shape = Shape{4096, 4096, 1};
  KernelResult k;
  k.kernel = "ustencil";
  Measurement m;
  m.candidate.variant = kernels::variants_of("ustencil")[2];
  m.candidate.threads = 256;
  const Work work = problem_work("ustencil", r.shape);
  m.flops = work.flops;
  m.bytes = work.bytes;  // 134 MB
  m.timing.samples_ms = {0.08, 0.08, 0.08};
  m.timing.summary = summarize(m.timing.samples_ms);
  k.measurements = {m};
  k.winner = 0;
  r.kernels.push_back(k);
  std::ostringstream table;
  cli::print_shape_table(table, r, h100, false);
  // 134217728 B in 0.08 ms: 1678 GB/s, 50% of the H100's 3352 GB/s.
  EXPECT_THAT(table.str(), AllOf(HasSubstr("problem nx=4096,ny=4096 of ustencil"),
                                 HasSubstr("GB/s"), HasSubstr("of limit"), HasSubstr("1678"),
                                 HasSubstr("50% DRAM"), HasSubstr("limits of NVIDIA H100")));
  EXPECT_THAT(table.str(), ::testing::Not(HasSubstr("vs cuBLAS")));
  const auto doc = cli::shape_json(r, h100);
  const auto& c = doc["kernels"][0]["candidates"][0];
  EXPECT_NEAR(c["gbps"].get<double>(), 1677.7216, 1e-6);
  EXPECT_EQ(c["share_of_limit"]["limit"], "DRAM");
  EXPECT_NEAR(c["share_of_limit"]["fraction"].get<double>(), 0.5005, 1e-4);
  EXPECT_DOUBLE_EQ(doc["limits"]["dram_bytes_per_s"].get<double>(), dram_bandwidth(h100));
  std::ostringstream csv;
  cli::print_csv_header(csv);
  cli::print_csv_rows(csv, h100, r);
  EXPECT_THAT(csv.str(), AllOf(HasSubstr("gbps,share_of_limit,limit"), HasSubstr(",DRAM,\"nx=4096,ny=4096\"\r\n")));
}

TEST(UserKernelJobFile, ProblemsAreNamedDimensionsWrittenAsProblemFlagsAre) {
  const std::string head = "version = 1\n[job]\nkernels = [\"ustencil\"]\n";
  EXPECT_EQ(parse_job_config(head + "problem = { ny = 2048, nx = 4096 }\n", "j.toml").problems,
            std::vector<std::string>{"nx=4096,ny=2048"});
  EXPECT_EQ(parse_job_config(head + "problems = [{ nx = 8, ny = 8 }, { nx = 16, ny = 4 }]\n",
                             "j.toml")
                .problems,
            (std::vector<std::string>{"nx=8,ny=8", "nx=16,ny=4"}));
  auto refused = [&](const std::string& job) {
    return usage_error([&] { parse_job_config(head + job, "j.toml"); });
  };
  EXPECT_THAT(refused("problem = { nx = \"4k\", ny = 1 }\n"),
              AllOf(HasSubstr("config j.toml"), HasSubstr("'job.problem.nx' = \"4k\" must be an "
                                                           "integer"),
                    HasSubstr("line 4")));
  EXPECT_THAT(refused("problems = [{ nx = 8, ny = 8 }, { nx = 1.5, ny = 2 }]\n"),
              HasSubstr("'job.problems[1].nx' = 1.5 must be an integer"));
  EXPECT_THAT(refused("problem = { nx = 1, ny = 1 }\nproblems = [{ nx = 1, ny = 1 }]\n"),
              HasSubstr("both given"));
  EXPECT_THAT(refused("problem = 4096\n"), HasSubstr("'job.problem' must be a table"));
  EXPECT_THAT(refused("problems = []\n"), HasSubstr("'job.problems' must be a non-empty array"));
}

// select_job on a job file written to a temporary directory.
struct JobFile {
  occtune::testing::TempDir dir;
  std::string path;
  explicit JobFile(const std::string& job) : path((dir.path / "job.toml").string()) {
    std::ofstream(path) << "version = 1\n[job]\n" << job;
  }
  JobConfig select(const std::vector<std::string>& problems = {},
                   const std::vector<std::string>& shapes = {}) const {
    return cli::select_job(path, {}, problems, shapes, "tune");
  }
};

TEST(UserKernelJobFile, TheFilesProblemsBecomeShapesAndProblemFlagsOverrideThem) {
  const JobFile file("kernels = [\"ustencil\"]\nproblems = [{ nx = 4096, ny = 2048 }, "
                     "{ nx = 64, ny = 64 }]\n");
  const JobConfig job = file.select();
  EXPECT_EQ(job.kernels, std::vector<std::string>{"ustencil"});
  EXPECT_EQ(job.shapes, (std::vector<Shape>{{4096, 2048, 1}, {64, 64, 1}}));
  // --problem replaces the file's problems; the file still names the family.
  EXPECT_EQ(file.select({"nx=100,ny=7"}).shapes, (std::vector<Shape>{Shape{100, 7, 1}}));
  const JobFile family_only("kernels = [\"ustencil\"]\n");
  EXPECT_EQ(family_only.select({"nx=5,ny=6"}).shapes, (std::vector<Shape>{Shape{5, 6, 1}}));
  EXPECT_THAT(usage_error([&] { family_only.select(); }),
              AllOf(HasSubstr("--problem nx=N"), HasSubstr("[job] problem = { nx = N")));
}

TEST(UserKernelJobFile, AFilesBadProblemIsRefusedAsTheFlagIsWithTheFileNamed) {
  auto refused = [](const std::string& problem) {
    const JobFile file("kernels = [\"ustencil\"]\nproblem = " + problem + "\n");
    return usage_error([&] { file.select(); });
  };
  EXPECT_THAT(refused("{ nx = 4096 }"),
              AllOf(HasSubstr("job.toml: [job] problem"), HasSubstr("'ustencil'"),
                    HasSubstr("'nx=4096'"), HasSubstr("dimension 'ny' is missing")));
  EXPECT_THAT(refused("{ nx = 1, ny = 1, nz = 1 }"),
              AllOf(HasSubstr("'nz' is not one of its dimensions (nx, ny)")));
  EXPECT_THAT(refused("{ nx = 0, ny = 1 }"), HasSubstr("nx = '0' is not an integer in 1.."));
  // Problems for a GEMM family: the file's kernels are no user family.
  const JobFile gemm("kernels = [\"naive\"]\nproblem = { nx = 1, ny = 1 }\n");
  EXPECT_THAT(usage_error([&] { gemm.select(); }),
              AllOf(HasSubstr("job.toml: [job] problem"), HasSubstr("user kernel family")));
}

TEST(UserKernelProblemText, AUserFamilysProblemIsWrittenByItsDimensions) {
  EXPECT_EQ(problem_text("ustencil", Shape{4096, 2048, 1}), "nx=4096,ny=2048");
  EXPECT_EQ(problem_text("ureduce", Shape{1 << 20, 1, 1}), "n=1048576");
  EXPECT_EQ(problem_text("naive", Shape{8, 8, 8}), "8x8x8");
  EXPECT_EQ(problem_text("", Shape{8, 8, 8}), "8x8x8");
  nlohmann::json j = {{"shape", "4096x2048x1"}};
  output::add_problem(j, "ustencil", Shape{4096, 2048, 1});
  EXPECT_EQ(j["problem"], (nlohmann::json{{"nx", 4096}, {"ny", 2048}}));
  nlohmann::json gemm = nlohmann::json::object();
  output::add_problem(gemm, "naive", Shape{8, 8, 8});
  EXPECT_FALSE(gemm.contains("problem"));
}

TEST(UserKernelProblemText, CheckAndCompareReportsWriteTheProblem) {
  gate::GateReport report;
  report.kind = "check";
  report.device = "test GPU";
  gate::KeyVerdict key;
  key.kernel = "ustencil";
  key.shape = Shape{4096, 2048, 1};
  key.verdict = Verdict::kMissing;
  key.reason = "no baseline";
  key.notes = {"a note"};
  report.keys = {key};
  std::ostringstream table, csv;
  output::print_gate_table(table, report);
  EXPECT_THAT(table.str(), AllOf(HasSubstr("nx=4096,ny=2048"), HasSubstr("ustencil nx=4096,ny=2048: a note")));
  EXPECT_THAT(table.str(), ::testing::Not(HasSubstr("4096x2048x1")));
  EXPECT_THAT(output::gate_markdown(report), HasSubstr("| nx=4096,ny=2048 |"));
  EXPECT_THAT(output::gate_junit(report), HasSubstr("name=\"nx=4096,ny=2048 f32\""));
  output::print_gate_csv(csv, report);
  EXPECT_THAT(csv.str(), AllOf(HasSubstr(",problem\r\n"), HasSubstr(",\"nx=4096,ny=2048\"\r\n")));
  const auto doc = output::gate_json(report);
  EXPECT_EQ(doc["keys"][0]["problem"]["ny"], 2048);
  EXPECT_EQ(doc["keys"][0]["shape"], "4096x2048x1");  // the store's key stays beside it
}

// `occtune query` in this process on a store holding one run of ustencil; returns stdout.
std::string query_output(const std::string& db, const std::string& uuid,
                         std::vector<std::string> extra) {
  std::vector<std::string> args = {"occtune", "query", "--kernel", "ustencil", "--problem",
                                   "nx=4096,ny=2048", "--device", uuid, "--db", db};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream captured;
  auto* previous = std::cout.rdbuf(captured.rdbuf());
  const int code = cli::run(int(argv.size()), argv.data());
  std::cout.rdbuf(previous);
  spdlog::drop("occtune");  // the CLI names its logger once per run
  EXPECT_EQ(code, 0) << captured.str();
  return captured.str();
}

TEST(UserKernelProblemText, QueryWritesTheProblemInItsTableCsvAndJson) {
  occtune::testing::TempDir dir;
  const std::string db = (dir.path / "query.db").string();
  DeviceInfo device = load_device_profile("h100");
  device.uuid = "GPU-13131313-1313-1313-1313-131313131313";
  device.source = "runtime";
  device.driver_version = device.runtime_version = 13000;
  {
    auto store = db::Store::open(db);
    db::RunStart start;
    start.device = device;
    start.kernel = "ustencil";
    start.build_id = family_build_id("ustencil", "");
    start.shape = Shape{4096, 2048, 1};
    start.tool_version = "0.0.0-test";
    start.argv = {"occtune", "tune"};
    const auto run = store.begin_run(start);
    Measurement m;
    m.candidate.variant = kernels::variants_of("ustencil")[2];
    m.candidate.origin = "occupancy-api";
    m.candidate.threads = 256;
    m.candidate.occupancy = 1.0;
    m.candidate.limiter = "warps";
    m.rel_error = 1e-8;
    m.timing.samples_ms = {0.1, 0.1, 0.1};
    m.timing.summary = summarize(m.timing.samples_ms);
    store.add_measurement(run, m);
    store.finish_run(run, db::RunStatus::kComplete);
  }
  const std::string table = query_output(db, device.uuid, {});
  EXPECT_THAT(table, AllOf(HasSubstr("problem"), HasSubstr("nx=4096,ny=2048")));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("4096x2048x1")));
  const std::string csv = query_output(db, device.uuid, {"--format", "csv"});
  EXPECT_THAT(csv, AllOf(HasSubstr(",problem\r\n"), HasSubstr("\"nx=4096,ny=2048\"")));
  const auto doc = nlohmann::json::parse(query_output(db, device.uuid, {"--format", "json"}));
  EXPECT_EQ(doc["problem"], (nlohmann::json{{"nx", 4096}, {"ny", 2048}})) << doc.dump(2);
}

TEST(UserKernelCheck, OutputsAreComparedByTheFamilysNormAndNaNFails) {
  const std::vector<float> ref = {1, 2, 3, 4};
  EXPECT_EQ(cuda::compare_outputs(ref, ref, Comparison::Norm::kRelativeFrobenius), 0.0);
  EXPECT_NEAR(cuda::compare_outputs({1, 2, 3, 5}, ref, Comparison::Norm::kRelativeFrobenius),
              1.0 / std::sqrt(30.0), 1e-12);
  EXPECT_EQ(cuda::compare_outputs({1, 2.5f, 3, 4}, ref, Comparison::Norm::kMaxAbsolute), 0.5);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(
      std::isnan(cuda::compare_outputs({1, nan, 3, 4}, ref, Comparison::Norm::kRelativeFrobenius)));
  EXPECT_TRUE(
      std::isnan(cuda::compare_outputs({1, nan, 3, 4}, ref, Comparison::Norm::kMaxAbsolute)));
}

}  // namespace
}  // namespace occtune
