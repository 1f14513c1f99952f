// A source kernel as a user kernel family (autotuner/cuda/source_family), without a GPU: the
// example's 148 configurations become fixed-block variants whose shared memory, grid and
// buffers follow the job's expressions at any problem; the family's version (the store's build
// id) changes with a source byte, an included file, an option, a launch expression, never with
// nothing; what cannot be tuned is refused naming the fix; a job file registers its kernels;
// planned offline, its registers are those of its code compiled for the profile's architecture.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/core/outcome.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/core/user_plan.hpp"
#include "autotuner/cuda/source_family.hpp"
#include "autotuner/source/configurations.hpp"
#include "autotuner/source/kernel_cache.hpp"
#include "autotuner/source/space_compile.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune::cuda {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
const fs::path kExampleDir = fs::path(OCCTUNE_SOURCE_DIR) / "examples/source_kernel";

source::SourceKernel example() {
  return source::load_source_job(kExampleDir / "stencil.toml").kernels.at(0);
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// A copy of the example in `dir`, so its files can be changed.
source::SourceKernel copied_example(const fs::path& dir) {
  for (const char* f : {"stencil.toml", "stencil.cu", "stencil_coefficients.cuh"})
    fs::copy_file(kExampleDir / f, dir / f);
  return source::load_source_job(dir / "stencil.toml").kernels.at(0);
}

ExitCode code_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return ExitCode::kOk;
}

TEST(SourceFamily, ConfigurationsBecomeFixedBlockConfigurationsOfTheFamily) {
  const source::SourceKernel k = example();
  const SourceFamily sf = make_source_family(k, {});
  const KernelFamily& f = sf.family;
  const auto configs = source::enumerate_configurations(k);
  ASSERT_EQ(f.configs.size(), configs.size());
  ASSERT_EQ(f.configs.size(), 148u);
  EXPECT_EQ(f.name, "stencil2d");
  EXPECT_EQ(f.block_rule, BlockRule::kFixed);
  EXPECT_EQ(f.dims, (std::vector<std::string>{"nx", "ny"}));
  EXPECT_DOUBLE_EQ(f.compare.tolerance, 1e-5);
  EXPECT_TRUE(sf.compile);
  const Dims at_job{{{"nx", 4096}, {"ny", 4096}}};
  const Dims ragged{{{"nx", 1000}, {"ny", 777}}};
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const auto& c = configs[i];
    const KernelConfig& kc = f.configs[i];
    ASSERT_EQ(kc.params.size(), 4u);
    EXPECT_EQ(kc.param("BX"), c.launch.block[0]);
    EXPECT_EQ(kc.block.x, c.launch.block[0]);
    EXPECT_EQ(kc.block.y, c.launch.block[1]);
    EXPECT_TRUE(kc.resolve) << "the function comes from NVRTC, in the process that measures";
    // smem = (block_x + 2 + PAD) * (block_y * UNROLL + 2) * 4, as the job says.
    const std::int64_t bx = kc.param("BX"), by = kc.param("BY");
    EXPECT_EQ(f.smem(kc.block, kc),
              std::size_t((bx + 2 + kc.param("PAD")) * (by * kc.param("UNROLL") + 2) * 4));
    // The grid follows the problem tuned, not the job's.
    const Grid g = f.grid(ragged, kc, kc.block);
    EXPECT_EQ(g.x, (1000 + bx - 1) / bx);
    EXPECT_EQ(g.y, (777 + by * kc.param("UNROLL") - 1) / (by * kc.param("UNROLL")));
    EXPECT_EQ(g.z, 1);
    EXPECT_EQ(f.grid(at_job, kc, kc.block).x, c.launch.grid[0]);
  }
  // Buffers: the inputs and outputs in argument order (scalars are not buffers), sized by the
  // problem.
  const auto buffers = f.buffers(ragged);
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_EQ(buffers[0].name, "in");
  EXPECT_EQ(buffers[0].role, Buffer::Role::kInput);
  EXPECT_EQ(buffers[0].count, 1000u * 777u);
  EXPECT_EQ(buffers[1].name, "out");
  EXPECT_EQ(buffers[1].role, Buffer::Role::kOutput);
}

TEST(SourceFamily, RegisteredItHasOneVariantPerConfigurationNamedByItsParameters) {
  source::SourceKernel k = example();
  k.name = "stencil2d_registered";  // distinct from the job registration below
  SourceFamily sf = make_source_family(k, {});
  register_user_family(std::move(sf.family));
  const UserFamily* f = find_user_family("stencil2d_registered");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->variants.size(), 148u);
  const auto& v = f->variants.front();
  EXPECT_EQ(v.symbol, "stencil2d_registered<BX=8,BY=8,UNROLL=1,PAD=0>/8x8");
  EXPECT_EQ(v.label(), "BX=8,BY=8,UNROLL=1,PAD=0");  // no block parameter: the block is fixed
  EXPECT_EQ(v.dynamic_smem, std::size_t((8 + 2 + 0) * (8 * 1 + 2) * 4));
  const UserVariant uv = parse_variant_name(*f, v.symbol);
  EXPECT_EQ(uv.config, 0);
  EXPECT_EQ(uv.block.x, 8);
  EXPECT_EQ(family_build_id("stencil2d_registered", "x"), "user:" + f->def.version);
}

TEST(SourceFamily, VersionChangesWithEverythingThatMakesAResultStale) {
  TempDir dir;
  const source::SourceKernel k = copied_example(dir.path);
  const std::string base = source_family_version(k);
  EXPECT_EQ(base.rfind("src-", 0), 0u) << base;
  EXPECT_EQ(base.size(), 4u + 32u);
  EXPECT_EQ(source_family_version(k), base) << "the same inputs give the same version";

  const std::string source = read(dir.path / "stencil.cu");
  write(dir.path / "stencil.cu", source + " ");
  EXPECT_NE(source_family_version(k), base) << "one more source byte";
  write(dir.path / "stencil.cu", source);
  EXPECT_EQ(source_family_version(k), base);

  const std::string include = read(dir.path / "stencil_coefficients.cuh");
  write(dir.path / "stencil_coefficients.cuh", include + "\n");
  EXPECT_NE(source_family_version(k), base) << "a changed quoted include";
  write(dir.path / "stencil_coefficients.cuh", include);

  source::SourceKernel other = k;
  other.options.push_back("-DSTENCIL_EXTRA=1");
  EXPECT_NE(source_family_version(other), base) << "another option (a define)";
  other = k;
  other.options = {"--std=c++20"};
  EXPECT_NE(source_family_version(other), base) << "an option changed";
  other = k;
  other.launch.grid[1] = source::Expr::parse("ceil_div(ny, block_y)", "grid");
  EXPECT_NE(source_family_version(other), base) << "a launch expression";
  other = k;
  other.reference.tolerance = 1e-4;
  EXPECT_NE(source_family_version(other), base) << "the check's tolerance";
}

TEST(SourceFamily, WhatCannotBeTunedIsRefusedNamingTheFix) {
  source::SourceKernel k = example();
  k.args[0].type = source::ValueType::kFloat64;
  std::string message;
  EXPECT_EQ(code_of([&] { make_source_family(k, {}); }, &message), ExitCode::kUsage);
  EXPECT_NE(message.find("buffer 'in' is float64"), std::string::npos) << message;

  k = example();
  k.launch.block.push_back(source::Expr::parse("2", "block[2]"));
  EXPECT_EQ(code_of([&] { make_source_family(k, {}); }, &message), ExitCode::kUsage);
  EXPECT_NE(message.find("tuning takes 1D and 2D blocks"), std::string::npos) << message;

  // A scalar whose type cannot hold its value at the problem tuned, before any launch.
  k = example();
  k.args[2].amount = source::Expr::parse("nx * 1000000", "args[2].value");
  EXPECT_EQ(code_of(
                [&] {
                  make_source_family(k, {}).family.buffers(Dims{{{"nx", 4096}, {"ny", 1}}});
                },
                &message),
            ExitCode::kUsage);
  EXPECT_NE(message.find("scalar argument 'nx' = 'nx * 1000000' is 4096000000"), std::string::npos)
      << message;

  // A problem other than the job's, when the configurations depend on the problem.
  k = example();
  k.constraints.push_back(source::Expr::parse("BX <= nx", "constraints[3]"));
  const SourceFamily sf = make_source_family(k, {});
  EXPECT_EQ(sf.family.buffers(Dims{{{"nx", 4096}, {"ny", 4096}}}).size(), 2u);
  EXPECT_EQ(code_of(
                [&] {
                  sf.family.buffers(Dims{{{"nx", 64}, {"ny", 64}}});
                },
                &message),
            ExitCode::kUsage);
  EXPECT_NE(message.find("read the problem (nx)"), std::string::npos) << message;
}

TEST(SourceFamily, AJobFileRegistersItsKernelsForThisProcessAndItsWorkers) {
  const auto names = register_source_job(kExampleDir / "stencil.toml", {});
  EXPECT_EQ(names, (std::vector<std::string>{"stencil2d"}));
  EXPECT_EQ(register_source_job(kExampleDir / "stencil.toml", {}), names) << "once per file";
  ASSERT_NE(find_user_family("stencil2d"), nullptr);
  const char* env = std::getenv("OCCTUNE_SOURCE_JOB");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(fs::path(env), fs::absolute(kExampleDir / "stencil.toml").lexically_normal());
  const auto problem = source_job_problem("stencil2d");
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->m, 4096);
  EXPECT_EQ(problem->n, 4096);
  EXPECT_FALSE(source_job_problem("tiled_dynamic").has_value());
}

// A family compiled at tuning time is planned after its compile hook: one candidate per
// configuration at its own block; a configuration that did not compile is a candidate whose
// rejection carries the compiler's words (the run records it as compile_failed, measures the
// others). Offline, with declared registers, so no GPU is needed.
TEST(SourceFamily, APlanHasOneCandidatePerConfigurationAndCarriesCompileFailures) {
  EXPECT_EQ(to_string(Outcome::kCompileFailed), "compile_failed");
  EXPECT_EQ(outcome_from_string("compile_failed"), Outcome::kCompileFailed);

  KernelFamily f;
  f.name = "fixed_blocks_plan";
  f.version = "1";
  f.dims = {"n"};
  f.block_rule = BlockRule::kFixed;
  for (int bx : {64, 256}) {
    KernelConfig c;
    c.params = {{"BX", bx}};
    c.block = {bx, 1};
    c.function = &f;  // never launched: planned offline
    c.registers = 32;
    f.configs.push_back(c);
  }
  f.smem = [](Block b, const KernelConfig&) { return std::size_t(b.x) * 8; };
  f.grid = [](const Dims& p, const KernelConfig&, Block b) {
    return Grid{(p["n"] + b.x - 1) / b.x, 1, 1};
  };
  f.buffers = [](const Dims&) { return std::vector<Buffer>{}; };
  f.launch = [](const LaunchArgs&) { return 0; };
  f.reference = [](const Dims&, std::vector<std::vector<float>>&) {};
  f.cuda.attributes = [](const void*, int*, int*, int*) { return 0; };
  f.cuda.max_active_blocks = [](const void*, int, std::size_t, int*) { return 0; };
  f.cuda.set_max_dynamic_smem = [](const void*, int) { return 0; };
  int compiled = 0;
  CompileSummary summary;
  summary.errors = {"", "stencil.cu(3): error: expected a \";\""};
  summary.arch = "sm_90";
  // The first call compiles (it takes the summary's wall time), later ones find it done.
  register_user_family(f, [&]() -> const CompileSummary& {
    if (compiled++ == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      summary.wall_seconds = 0.03;
    }
    return summary;
  });
  const UserFamily* uf = find_user_family("fixed_blocks_plan");
  ASSERT_NE(uf, nullptr);
  ASSERT_EQ(uf->variants.size(), 2u);
  const DeviceInfo h100 = load_device_profile("h100");
  OfflineOccupancy oracle(h100);
  const Plan plan = plan_user_family(*uf, h100, Shape{100000, 1, 1}, oracle);
  // The plan's call, then the offline lookup's for the compiled candidate (user_resources asks
  // the hook; this summary has no resources, so the declared registers are used).
  EXPECT_EQ(compiled, 2);
  EXPECT_GE(plan.compile_seconds, 0.03);
  ASSERT_EQ(plan.candidates.size(), 2u);
  const Candidate& ok = plan.candidates[0];
  EXPECT_EQ(ok.variant->symbol, "fixed_blocks_plan<BX=64>/64x1");
  EXPECT_EQ(ok.threads, 64);
  EXPECT_EQ(ok.grid_x, (100000 + 63) / 64);
  EXPECT_EQ(ok.dynamic_smem, 64u * 8);
  EXPECT_EQ(ok.registers, 32);
  EXPECT_GT(ok.active_blocks_per_sm, 0);
  EXPECT_TRUE(ok.rejection.empty()) << ok.rejection;
  const Candidate& failed = plan.candidates[1];
  EXPECT_EQ(failed.variant->symbol, "fixed_blocks_plan<BX=256>/256x1");
  EXPECT_EQ(failed.rejection, "compile_failed: stencil.cu(3): error: expected a \";\"");
  EXPECT_EQ(failed.active_blocks_per_sm, 0);
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("fixed_blocks_plan: 2 configurations for sm_90 in 0.03 s"),
            std::string::npos)
      << plan.notes[0];
  // Another problem: the same candidates, no compile time counted twice.
  const Plan again = plan_user_family(*uf, h100, Shape{5000, 1, 1}, oracle);
  EXPECT_EQ(compiled, 4);
  EXPECT_EQ(again.compile_seconds, 0.0);
  EXPECT_TRUE(again.notes.empty());
  ASSERT_EQ(again.candidates.size(), 2u);
  EXPECT_EQ(again.candidates[1].rejection, failed.rejection);
}

// plan --profile for a source kernel (no GPU here: any CUDA call would fail the test): the
// family made with an explicit architecture compiles for it through the cache, and the offline
// twin takes each configuration's registers, static shared memory and barriers from that code,
// so every candidate is what `occtune compile --profile` (compile_space with the device) says;
// a configuration with a syntax error is a compile_failed candidate with the log; another
// family of the same space compiles only what failed; another architecture compiles anew.
TEST(SourceFamily, PlannedOfflineWithTheRegistersOfCodeCompiledForTheProfile) {
  TempDir dir;
  source::SourceKernel k = copied_example(dir.path);
  k.name = "stencil2d_offline";
  for (auto& p : k.parameters)
    p.values = p.name == "BX" ? std::vector<std::int64_t>{32}
               : p.name == "BY" ? std::vector<std::int64_t>{8}
                                : std::vector<std::int64_t>{p.values.at(0), p.values.at(1)};
  write(dir.path / "stencil.cu",
        read(dir.path / "stencil.cu") + "\n#if UNROLL == 2 && PAD == 1\nthis is not C++;\n#endif\n");
  SourceFamilyOptions options;
  options.cache_dir = dir.path / "cache";
  options.compile_threads = 2;
  options.arch = "sm_90";
  SourceFamily sf = make_source_family(k, options);
  register_user_family(std::move(sf.family), std::move(sf.compile));
  const UserFamily* f = find_user_family("stencil2d_offline");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->variants.size(), 4u);  // UNROLL 1, 2 x PAD 0, 1

  const DeviceInfo h100 = load_device_profile("h100");
  OfflineOccupancy oracle(h100);
  const Plan plan = plan_user_family(*f, h100, Shape{4096, 4096, 1}, oracle);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("4 configurations for sm_90"), std::string::npos) << plan.notes[0];
  EXPECT_NE(plan.notes[0].find("(5 programs compiled by NVRTC, 0 from the kernel cache, 1 "
                               "compile_failed)"),
            std::string::npos)
      << plan.notes[0];
  EXPECT_GT(plan.compile_seconds, 0.0);

  // What `occtune compile --profile h100` computes for the same configurations (cache hits).
  source::SourceCompiler compiler(source::KernelCache(dir.path / "cache"));
  const source::SpaceCompile space = source::compile_space(
      k, source::enumerate_configurations(k), "sm_90", compiler, 1, &h100);
  ASSERT_EQ(plan.candidates.size(), space.configs.size());
  for (std::size_t i = 0; i < space.configs.size(); ++i) {
    const Candidate& c = plan.candidates[i];
    const source::CompiledConfiguration& cc = space.configs[i];
    SCOPED_TRACE(cc.config.label());
    EXPECT_EQ(c.variant->label(), cc.config.label());
    EXPECT_EQ(c.threads, 32 * 8);
    if (cc.config.label() == "BX=32,BY=8,UNROLL=2,PAD=1") {
      EXPECT_EQ(cc.compile.program.status, source::CompileStatus::kCompileFailed);
      EXPECT_EQ(c.rejection.rfind("compile_failed: ", 0), 0u) << c.rejection;
      EXPECT_NE(c.rejection.find("error"), std::string::npos) << c.rejection;
      EXPECT_EQ(c.active_blocks_per_sm, 0);
      continue;
    }
    ASSERT_EQ(cc.compile.program.status, source::CompileStatus::kOk);
    EXPECT_TRUE(cc.compile.cache_hit);
    EXPECT_TRUE(c.rejection.empty()) << c.rejection;
    const source::KernelResources& r = cc.compile.program.kernels.front();
    EXPECT_GT(r.registers, 0);
    EXPECT_EQ(c.registers, r.registers);
    ASSERT_TRUE(cc.occupancy.has_value());
    EXPECT_EQ(c.active_blocks_per_sm, cc.occupancy->active_blocks_per_sm);
    EXPECT_EQ(c.limiter, cc.occupancy->limiter);
    EXPECT_EQ(c.dynamic_smem, std::size_t(cc.config.launch.smem));
  }
  EXPECT_EQ(compiler.nvrtc_compilations(), 1) << "only the broken configuration, never cached";

  // The same space again (another process planning it): only the failure is compiled again.
  const SourceFamily again = make_source_family(k, options);
  const CompileSummary& warm = again.compile();
  EXPECT_EQ(warm.arch, "sm_90");
  EXPECT_EQ(warm.nvrtc_runs, 1);
  EXPECT_EQ(warm.cache_hits, 4);  // three configurations and the reference
  ASSERT_EQ(warm.resources.size(), 4u);
  EXPECT_EQ(warm.resources[3].registers, 0) << "the broken configuration has no code";

  // Another architecture is other code: every program compiled for it, none from sm_90's.
  options.arch = "sm_80";
  const SourceFamily other_arch = make_source_family(k, options);
  const CompileSummary& sm80 = other_arch.compile();
  EXPECT_EQ(sm80.arch, "sm_80");
  EXPECT_EQ(sm80.nvrtc_runs, 5);
  EXPECT_EQ(sm80.cache_hits, 0);
}

}  // namespace
}  // namespace occtune::cuda
