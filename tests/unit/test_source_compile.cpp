// NVRTC compilation without a GPU (sm_90 CUBINs), register counts from ptxas's report, the
// compiled-kernel cache (every input that changes the code is another entry; a warm compile
// runs NVRTC zero times; a damaged entry is recompiled) and the compile pool.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "autotuner/core/error.hpp"
#include "autotuner/source/configurations.hpp"
#include "autotuner/source/kernel_cache.hpp"
#include "autotuner/source/nvrtc_library.hpp"
#include "autotuner/source/source_compiler.hpp"
#include "autotuner/source/space_compile.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune::source {
namespace {
namespace fs = std::filesystem;

const fs::path kExampleDir = fs::path(OCCTUNE_SOURCE_DIR) / "examples/source_kernel";

const char* kTiny = R"(
template <int N> __global__ void scale(float* x) {
  __shared__ float s[N];
  s[threadIdx.x] = x[threadIdx.x] * FACTOR;
  __syncthreads();
  x[threadIdx.x] = s[N - 1 - threadIdx.x];
}
)";

CompileRequest tiny(const std::string& name = "scale<64>", const std::string& factor = "2") {
  CompileRequest r;
  r.source_text = kTiny;
  r.source_name = "tiny.cu";
  r.name_expressions = {name};
  r.options = {"-DFACTOR=" + factor};
  r.arch = "sm_90";
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SourceCompile, CompilesForSm90WithoutAGpu) {
  const CompiledProgram p = compile_program(tiny());
  ASSERT_EQ(p.status, CompileStatus::kOk) << p.log_head;
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].lowered_name, "_Z5scaleILi64EEvPf");
  EXPECT_GT(p.kernels[0].registers, 0);
  EXPECT_LE(p.kernels[0].registers, 255);
  EXPECT_EQ(p.kernels[0].static_smem, 64 * 4);
  EXPECT_EQ(p.kernels[0].barriers, 1);
  EXPECT_GT(p.compile_seconds, 0);
  ASSERT_GT(p.cubin.size(), 4u);
  EXPECT_EQ(p.cubin.substr(0, 4),
            "\x7f"
            "ELF");  // a CUBIN, not PTX
}

TEST(SourceCompile, FailuresAreOutcomesWithTheLog) {
  CompiledProgram p = compile_program(tiny("scale<64>", "2 +"));  // FACTOR expands badly
  EXPECT_EQ(p.status, CompileStatus::kCompileFailed);
  EXPECT_EQ(to_string(p.status), "compile_failed");
  EXPECT_NE(p.log_head.find("error"), std::string::npos) << p.log_head;
  EXPECT_TRUE(p.cubin.empty());
  // Name expressions that name no kernel or do not parse: outcomes too, never exceptions.
  for (const char* name : {"scael<64>", "scale<64", "scale<64>>", "scale<-1>", ""}) {
    p = compile_program(tiny(name));
    EXPECT_EQ(p.status, CompileStatus::kCompileFailed) << name;
    EXPECT_FALSE(p.log_head.empty()) << name;
  }
}

TEST(SourceCompile, ExternCKernelsAndArchitectures) {
  CompileRequest r = tiny("plain");
  r.source_text = "extern \"C\" __global__ void plain(float* x) { x[threadIdx.x] += FACTOR; }\n";
  for (const char* arch : {"sm_75", "sm_80", "sm_89", "sm_90"}) {
    r.arch = arch;
    const CompiledProgram p = compile_program(r);
    ASSERT_EQ(p.status, CompileStatus::kOk) << arch << ": " << p.log_head;
    EXPECT_EQ(p.kernels[0].lowered_name, "plain");
  }
  r.arch = "sm_1";  // not an architecture NVRTC knows
  EXPECT_EQ(compile_program(r).status, CompileStatus::kCompileFailed);
  EXPECT_EQ(normalise_arch("sm_90"), "sm_90");
  EXPECT_EQ(normalise_arch("90"), "sm_90");
  EXPECT_EQ(normalise_arch("8.9"), "sm_89");
  EXPECT_EQ(normalise_arch("100"), "sm_100");
  EXPECT_EQ(normalise_arch("sm_90a"), "sm_90a");
  for (const char* bad : {"sm90", "sm_", "9", "compute_90", "sm_90x", ""})
    EXPECT_THROW(normalise_arch(bad), Error) << bad;
}

TEST(SourceCompile, PtxasReportIsReadPerEntryFunction) {
  const char* log = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z1aPf' for 'sm_90'
ptxas info    : Function properties for _Z1aPf
ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compiling entry function '_Z1bPf' for 'sm_90'
ptxas info    : Function properties for _Z1bPf
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers
)";
  KernelResources a, b, c;
  ASSERT_TRUE(parse_ptxas_report(log, "_Z1aPf", a));
  EXPECT_EQ(a.registers, 40);
  EXPECT_EQ(a.barriers, 1);
  EXPECT_EQ(a.static_smem, 1024);
  EXPECT_EQ(a.stack_bytes, 16);
  EXPECT_EQ(a.spill_stores, 8);
  EXPECT_EQ(a.spill_loads, 4);
  ASSERT_TRUE(parse_ptxas_report(log, "_Z1bPf", b));
  EXPECT_EQ(b.registers, 12);
  EXPECT_EQ(b.static_smem, 0);
  EXPECT_FALSE(parse_ptxas_report(log, "_Z1cPf", c));
}

TEST(SourceCompile, MissingNvrtcNamesTheLibraryAndTheFix) {
  try {
    load_nvrtc({"/nonexistent/libnvrtc.so.13"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRuntime);
    const std::string msg = e.what();
    EXPECT_NE(msg.find(nvrtc_library_name()), std::string::npos) << msg;
    EXPECT_NE(msg.find("/nonexistent/libnvrtc.so.13"), std::string::npos) << msg;
    EXPECT_NE(msg.find("LD_LIBRARY_PATH"), std::string::npos) << msg;
  }
}

TEST(SourceCache, EveryInputThatChangesTheCodeIsAnotherKey) {
  testing::TempDir dir;
  std::ofstream(dir.path / "k.cu")
      << "#include \"h.cuh\"\n__global__ void k(float* x) { x[0] = V; }\n";
  std::ofstream(dir.path / "h.cuh") << "#define V 1.0f\n";
  auto request = [&] {
    CompileRequest r;
    r.source_text = slurp(dir.path / "k.cu");
    r.source_name = (dir.path / "k.cu").string();
    r.name_expressions = {"k"};
    r.options = {"-I" + dir.path.string(), "-DA=1"};
    r.arch = "sm_90";
    return r;
  };
  auto key = [&](const CompileRequest& r, const std::string& version = "13.0") {
    return cache_key(r, quoted_includes(r.source_text, r.source_name, r.options), version);
  };
  const std::string base = key(request());
  EXPECT_EQ(base.size(), 32u);
  EXPECT_EQ(key(request()), base);  // deterministic
  std::set<std::string> keys{base};
  auto differs = [&](const std::string& what, const std::string& k) {
    EXPECT_TRUE(keys.insert(k).second) << what << " did not change the key";
  };
  CompileRequest r = request();
  r.options[1] = "-DA=2";
  differs("a define", key(r));
  r = request();
  r.options.push_back("--use_fast_math");
  differs("an option", key(r));
  r = request();
  r.name_expressions = {"k2"};
  differs("the name expression (template parameters)", key(r));
  r = request();
  r.arch = "sm_80";
  differs("the architecture", key(r));
  differs("the NVRTC version", key(request(), "13.1"));
  r = request();
  r.source_text.back() = ' ';  // one byte of the source (its final newline)
  differs("a source byte", key(r));
  std::ofstream(dir.path / "h.cuh") << "#define V 2.0f\n";  // one byte of an included file
  differs("an included file's byte", key(request()));
  // The include rule: found relative to the including file, recorded when missing.
  const auto includes = quoted_includes(request().source_text, request().source_name, {});
  ASSERT_EQ(includes.size(), 1u);
  EXPECT_EQ(includes[0].spelled, "h.cuh");
  EXPECT_EQ(includes[0].content, "#define V 2.0f\n");
  EXPECT_TRUE(quoted_includes("#include \"nope.h\"\n", request().source_name, {})[0].path.empty());
}

TEST(SourceCache, WarmCompileRunsNvrtcZeroTimesAndDamageIsRecompiled) {
  testing::TempDir dir;
  SourceCompiler compiler{KernelCache(dir.path / "kernels")};
  const CompileOutcome cold = compiler.compile(tiny());
  ASSERT_EQ(cold.program.status, CompileStatus::kOk) << cold.program.log_head;
  EXPECT_FALSE(cold.cache_hit);
  EXPECT_EQ(compiler.nvrtc_compilations(), 1);
  ASSERT_TRUE(fs::exists(compiler.cache()->entry_path(cold.key)));

  const CompileOutcome warm = compiler.compile(tiny());
  EXPECT_TRUE(warm.cache_hit);
  EXPECT_EQ(compiler.nvrtc_compilations(), 1);  // nothing compiled
  EXPECT_EQ(warm.program.cubin, cold.program.cubin);
  EXPECT_EQ(warm.program.kernels[0].registers, cold.program.kernels[0].registers);
  EXPECT_EQ(warm.program.kernels[0].lowered_name, cold.program.kernels[0].lowered_name);
  EXPECT_DOUBLE_EQ(warm.program.compile_seconds, cold.program.compile_seconds);

  // Another define is another entry, compiled once.
  EXPECT_FALSE(compiler.compile(tiny("scale<64>", "3")).cache_hit);
  EXPECT_EQ(compiler.nvrtc_compilations(), 2);

  // A flipped CUBIN byte, a truncated file, a foreign file: recompiled, never trusted.
  const fs::path entry = compiler.cache()->entry_path(cold.key);
  const std::string sound = slurp(entry);
  std::string flipped = sound;
  flipped[flipped.size() - 10] ^= 0x40;
  const std::vector<std::pair<std::string, std::string>> damage = {
      {flipped, "checksum"},
      {sound.substr(0, sound.size() - 7), "truncated"},
      {"hello", "no header"},
      {"junk\n\nmore", "not a cache entry"}};
  int expected = 2;
  for (auto& [bytes, reason] : damage) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    const CompileOutcome again = compiler.compile(tiny());
    EXPECT_FALSE(again.cache_hit) << reason;
    EXPECT_EQ(compiler.nvrtc_compilations(), ++expected) << reason;
    EXPECT_NE(again.cache_note.find(reason), std::string::npos) << again.cache_note;
    EXPECT_EQ(again.program.cubin, cold.program.cubin);
    EXPECT_TRUE(compiler.cache()->load(cold.key, nvrtc().version_text).program)
        << "the entry was not rewritten after: " << reason;
  }
  // No temporary file is left behind.
  for (auto& f : fs::directory_iterator(dir.path / "kernels"))
    EXPECT_EQ(f.path().extension(), ".cubin") << f.path();
}

TEST(SourceCache, FailuresAreNotCached) {
  testing::TempDir dir;
  SourceCompiler compiler{KernelCache(dir.path)};
  EXPECT_EQ(compiler.compile(tiny("scale<64>", "2 +")).program.status,
            CompileStatus::kCompileFailed);
  EXPECT_EQ(compiler.compile(tiny("scale<64>", "2 +")).program.status,
            CompileStatus::kCompileFailed);
  EXPECT_EQ(compiler.nvrtc_compilations(), 2);
  EXPECT_TRUE(fs::is_empty(dir.path));
}

// Writers that share a cache directory (several tuners, several processes) never leave a
// partial entry: each installs a whole file by rename, and every entry reads back sound.
TEST(SourceCache, ConcurrentWritersOfOneEntryLeaveItSound) {
  testing::TempDir dir;
  const std::vector<CompileRequest> requests{tiny("scale<32>"), tiny("scale<64>"),
                                             tiny("scale<128>")};
  std::vector<std::thread> writers;
  std::vector<std::vector<CompileOutcome>> results(4);
  for (std::size_t w = 0; w < results.size(); ++w)
    writers.emplace_back([&, w] {
      SourceCompiler compiler{KernelCache(dir.path)};  // one per writer, as separate processes
      results[w] = compiler.compile_all(requests, 1);
    });
  for (auto& t : writers) t.join();
  for (auto& r : results) {
    ASSERT_EQ(r.size(), requests.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
      EXPECT_EQ(r[i].program.status, CompileStatus::kOk);
      EXPECT_TRUE(r[i].cache_note.empty()) << r[i].cache_note;
      EXPECT_EQ(r[i].key, results[0][i].key);
    }
  }
  const KernelCache cache(dir.path);
  for (auto& outcome : results[0])
    EXPECT_TRUE(cache.load(outcome.key, nvrtc().version_text).program) << outcome.key;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 3);
}

// The shipped example, a few of its configurations compiled in parallel for sm_90; a copy
// of its source with a syntax error under one configuration's values fails that one only.
TEST(SourceExample, CompilesInParallelAndOneBrokenConfigurationFailsAlone) {
  const SourceKernel example = load_source_job(kExampleDir / "stencil.toml").kernels[0];
  std::vector<Configuration> picked;
  for (auto& c : enumerate_configurations(example))
    if (c.params[0].second == 32 && c.params[1].second == 8 && c.params[2].second <= 4)
      picked.push_back(c);  // UNROLL 1, 2, 4 x PAD 0, 1
  ASSERT_EQ(picked.size(), 6u);

  testing::TempDir dir;
  fs::copy_file(kExampleDir / "stencil_coefficients.cuh", dir.path / "stencil_coefficients.cuh");
  std::string source = slurp(kExampleDir / "stencil.cu");
  source += "\n#if UNROLL == 2 && PAD == 1\nthis is not C++;\n#endif\n";
  std::ofstream(dir.path / "stencil.cu") << source;
  SourceKernel broken = example;
  broken.source = dir.path / "stencil.cu";

  SourceCompiler compiler{KernelCache(dir.path / "cache")};
  std::vector<CompileRequest> requests;
  for (auto& c : picked) requests.push_back(configuration_request(broken, source, c, "sm_90"));
  requests.push_back(reference_request(broken, source, "sm_90"));
  const auto outcomes = compiler.compile_all(requests, 2);
  ASSERT_EQ(outcomes.size(), requests.size());
  EXPECT_EQ(compiler.nvrtc_compilations(), 7);
  for (std::size_t i = 0; i < picked.size(); ++i) {
    const bool bad = picked[i].label() == "BX=32,BY=8,UNROLL=2,PAD=1";
    const auto& p = outcomes[i].program;
    EXPECT_EQ(p.status, bad ? CompileStatus::kCompileFailed : CompileStatus::kOk)
        << picked[i].label() << ": " << p.log_head;
    if (bad) {
      EXPECT_NE(p.log_head.find("error"), std::string::npos) << p.log_head;
    } else {
      ASSERT_EQ(p.kernels.size(), 1u);
      EXPECT_EQ(p.kernels[0].lowered_name, "_Z9stencil2dILi32ELi8EEvPKfPfii");
      EXPECT_GT(p.kernels[0].registers, 0);
      EXPECT_EQ(p.kernels[0].static_smem, 0);  // the tile is dynamic shared memory
    }
  }
  const auto& ref = outcomes.back().program;
  ASSERT_EQ(ref.status, CompileStatus::kOk) << ref.log_head;
  EXPECT_EQ(ref.kernels[0].name_expression, "stencil2d_reference");

  // The same space again: all from the cache but the failure, which is compiled again.
  const auto warm = compiler.compile_all(requests, 2);
  EXPECT_EQ(compiler.nvrtc_compilations(), 8);
  for (std::size_t i = 0; i < warm.size(); ++i)
    EXPECT_EQ(warm[i].cache_hit, warm[i].program.status == CompileStatus::kOk) << i;
  // Each configuration's defines reach the code: five sound configurations, five CUBINs.
  std::set<std::string> cubins;
  for (std::size_t i = 0; i < picked.size(); ++i)
    if (warm[i].program.status == CompileStatus::kOk) cubins.insert(warm[i].program.cubin);
  EXPECT_EQ(cubins.size(), 5u);
}

}  // namespace
}  // namespace occtune::source
