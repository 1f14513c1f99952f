// The [[kernel]] job-file schema: the shipped example reads, enumerates 100+ configurations
// and evaluates their launch geometry; every malformed form is a usage error naming the key.
#include <gtest/gtest.h>

#include <fstream>

#include "autotuner/core/error.hpp"
#include "autotuner/source/configurations.hpp"
#include "autotuner/source/source_job.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/usage_error.hpp"

namespace occtune::source {
namespace {

using testing::usage_error;

const std::filesystem::path kExample =
    std::filesystem::path(OCCTUNE_SOURCE_DIR) / "examples/source_kernel/stencil.toml";

TEST(SourceJob, ExampleReadsEveryKey) {
  const SourceJob job = load_source_job(kExample);
  ASSERT_EQ(job.kernels.size(), 1u);
  const SourceKernel& k = job.kernels[0];
  EXPECT_EQ(k.name, "stencil2d");
  EXPECT_EQ(k.source, std::filesystem::weakly_canonical(kExample.parent_path() / "stencil.cu"));
  EXPECT_EQ(k.kernel, "stencil2d<{BX}, {BY}>");
  ASSERT_EQ(k.problem.size(), 2u);
  EXPECT_EQ(k.problem[0], (std::pair<std::string, std::int64_t>{"nx", 4096}));
  ASSERT_EQ(k.parameters.size(), 4u);  // in file order, not TOML's sorted order
  EXPECT_EQ(k.parameters[0].name, "BX");
  EXPECT_EQ(k.parameters[3].name, "PAD");
  EXPECT_EQ(k.parameters[2].values, (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(k.constraints.size(), 3u);
  EXPECT_EQ(k.options, std::vector<std::string>{"--std=c++17"});
  EXPECT_TRUE(k.in_name("BX"));
  EXPECT_FALSE(k.in_name("UNROLL"));
  ASSERT_EQ(k.args.size(), 4u);
  EXPECT_EQ(k.args[0].kind, ArgKind::kInput);
  EXPECT_EQ(k.args[0].count, 4096 * 4096);
  EXPECT_EQ(k.args[1].kind, ArgKind::kOutput);
  EXPECT_EQ(k.args[3].kind, ArgKind::kScalar);
  EXPECT_EQ(k.args[3].type, ValueType::kInt32);
  EXPECT_EQ(k.args[3].value, 4096);
  EXPECT_EQ(k.reference.kernel, "stencil2d_reference");
  EXPECT_DOUBLE_EQ(k.reference.tolerance, 1e-5);
}

TEST(SourceJob, ExampleEnumeratesFilteredCrossProduct) {
  const SourceKernel k = load_source_job(kExample).kernels[0];
  const auto configs = enumerate_configurations(k);
  // 5 x 6 x 4 x 2 = 240 before the constraints; 148 satisfy them (counted independently).
  ASSERT_EQ(configs.size(), 148u);
  for (auto& c : configs) {
    const auto bx = c.params[0].second, by = c.params[1].second, unroll = c.params[2].second;
    EXPECT_TRUE(bx * by >= 64 && bx * by <= 1024 && by * unroll <= 64) << c.label();
    EXPECT_EQ(c.launch.block[0], bx);
    EXPECT_EQ(c.launch.block[1], by);
    EXPECT_EQ(c.launch.grid[0], (4096 + bx - 1) / bx);
    EXPECT_EQ(c.launch.grid[1], (4096 + by * unroll - 1) / (by * unroll));
    EXPECT_EQ(c.launch.smem, (bx + 2 + c.params[3].second) * (by * unroll + 2) * 4);
  }
  // The last parameter varies fastest; template parameters are substituted, others defined.
  EXPECT_EQ(configs[0].label(), "BX=8,BY=8,UNROLL=1,PAD=0");
  EXPECT_EQ(configs[1].label(), "BX=8,BY=8,UNROLL=1,PAD=1");
  EXPECT_EQ(configs[0].name_expression, "stencil2d<8, 8>");
  EXPECT_EQ(configs[0].defines, (std::vector<std::string>{"-DUNROLL=1", "-DPAD=0"}));
}

// A minimal valid job; each bad case edits one line of it.
std::string job_text(const std::string& replace_from = "", const std::string& replace_to = "") {
  std::string text = R"toml(version = 1
[[kernel]]
name = "k"
source = "k.cu"
kernel = "k<{BX}>"
problem = { n = 1000 }
constraints = ["BX >= 32"]
[kernel.parameters]
BX = [32, 64]
U = [1, 2]
[kernel.launch]
block = ["BX"]
grid = ["ceil_div(n, BX * U)"]
smem = "threads * 4"
[[kernel.args]]
name = "x"
kind = "input"
count = "n"
[[kernel.args]]
name = "y"
kind = "output"
count = "n"
[[kernel.args]]
name = "n"
kind = "scalar"
type = "int32"
value = "n"
[kernel.reference]
kernel = "k_ref"
block = ["128"]
grid = ["ceil_div(n, 128)"]
)toml";
  if (!replace_from.empty()) {
    const auto at = text.find(replace_from);
    EXPECT_NE(at, std::string::npos) << replace_from;
    if (at != std::string::npos) text.replace(at, replace_from.size(), replace_to);
  }
  return text;
}

class SourceJobErrors : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(dir.path / "k.cu") << "// empty\n"; }
  SourceJob parse(const std::string& text) { return parse_source_job(text, "t.toml", dir.path); }
  testing::TempDir dir;
};

TEST_F(SourceJobErrors, MinimalJobParses) {
  const SourceJob job = parse(job_text());
  const auto configs = enumerate_configurations(job.kernels[0]);
  ASSERT_EQ(configs.size(), 4u);
  EXPECT_EQ(configs[3].launch.grid[0], 8);  // ceil_div(1000, 64 * 2)
  EXPECT_EQ(configs[3].launch.smem, 64 * 4);
  EXPECT_EQ(configs[3].defines, std::vector<std::string>{"-DU=2"});
}

struct BadJob {
  std::string from, to;
  std::vector<std::string> mentions;
};

TEST_F(SourceJobErrors, EveryErrorNamesTheKey) {
  const std::vector<BadJob> cases = {
      // unknown keys, at each level
      {"name = \"k\"", "name = \"k\"\ncolour = 1", {"unknown key 'kernel[0].colour'", "line"}},
      {"smem = \"threads * 4\"", "smem = \"threads * 4\"\nwarps = 2", {"'kernel[0].launch.warps'"}},
      {"count = \"n\"\n[[kernel.args]]\nname = \"y\"",
       "count = \"n\"\nsize = 4\n[[kernel.args]]\nname = \"y\"",
       {"'kernel[0].args[0].size'"}},
      {"kernel = \"k_ref\"", "kernel = \"k_ref\"\natol = 1", {"'kernel[0].reference.atol'"}},
      {"version = 1", "version = 1\n[jobs]", {"unknown key 'jobs'"}},
      // wrong types
      {"name = \"k\"", "name = 3", {"'kernel[0].name' must be a string"}},
      {"BX = [32, 64]", "BX = [32, \"64\"]", {"'kernel[0].parameters.BX' must be an integer"}},
      {"BX = [32, 64]", "BX = 32", {"'kernel[0].parameters.BX' must be a non-empty array"}},
      {"BX = [32, 64]", "BX = [32, 32]", {"'kernel[0].parameters.BX' lists 32 twice"}},
      {"block = [\"BX\"]", "block = \"BX\"", {"'kernel[0].launch.block' must be an array"}},
      {"block = [\"BX\"]", "block = []", {"'kernel[0].launch.block' must hold 1 to 3"}},
      {"block = [\"BX\"]", "block = [\"BX\", \"1\", \"1\", \"1\"]", {"must hold 1 to 3"}},
      {"smem = \"threads * 4\"", "smem = 4.5", {"'kernel[0].launch.smem' must be an expression"}},
      {"problem = { n = 1000 }", "problem = { n = 0 }", {"'kernel[0].problem.n' = 0"}},
      {"kind = \"input\"", "kind = \"inout\"", {"'kernel[0].args[0].kind' = 'inout'"}},
      {"type = \"int32\"", "type = \"int\"", {"'kernel[0].args[2].type' = 'int'", "int32"}},
      {"version = 1", "version = 2", {"unsupported 'version'"}},
      {"[kernel.reference]\nkernel = \"k_ref\"",
       "[kernel.reference]\nkernel = \"k_ref\"\ntolerance = 2",
       {"'kernel[0].reference.tolerance' = 2"}},
      // missing required keys
      {"source = \"k.cu\"\n", "", {"missing 'kernel[0].source'"}},
      {"[kernel.launch]\nblock = [\"BX\"]\n",
       "[kernel.launch]\n",
       {"missing 'kernel[0].launch.block'"}},
      {"[kernel.parameters]\nBX = [32, 64]\nU = [1, 2]\n", "", {"missing 'kernel[0].parameters'"}},
      {"version = 1\n", "", {"missing 'version'"}},
      // bad expressions and undeclared parameters
      {"grid = [\"ceil_div(n, BX * U)\"]",
       "grid = [\"ceil_div(n, BX * V)\"]",
       {"kernel[0].launch.grid[0]", "unknown name 'V'"}},
      {"constraints = [\"BX >= 32\"]",
       "constraints = [\"BX >= threads\"]",
       {"kernel[0].constraints[0]", "unknown name 'threads'"}},
      {"block = [\"BX\"]", "block = [\"threads\"]", {"kernel[0].launch.block[0]", "'threads'"}},
      {"kernel = \"k<{BX}>\"", "kernel = \"k<{BZ}>\"", {"'kernel[0].kernel'", "'{BZ}'"}},
      {"kernel = \"k<{BX}>\"", "kernel = \"k<{BX>\"", {"unpaired brace"}},
      {"smem = \"threads * 4\"",
       "smem = \"threads * \"",
       {"kernel[0].launch.smem", "syntax error"}},
      {"smem = \"threads * 4\"",
       "smem = \"threads / 0\"",
       {"kernel[0].launch.smem", "division by zero"}},
      {"count = \"n\"\n[[kernel.args]]\nname = \"y\"",
       "count = \"n * BX\"\n[[kernel.args]]\nname = \"y\"",
       {"kernel[0].args[0].count", "unknown name 'BX'"}},
      {"value = \"n\"", "value = \"n * 10000000\"", {"'kernel[0].args[2].value'", "int32"}},
      // declarations
      {"U = [1, 2]", "threads = [1, 2]", {"'threads' is reserved"}},
      {"U = [1, 2]", "n = [1, 2]", {"'n' is declared twice"}},
  };
  for (const BadJob& c : cases) {
    const std::string text = job_text(c.from, c.to);
    const std::string msg = usage_error([&] { parse(text); });
    for (auto& m : c.mentions)
      EXPECT_NE(msg.find(m), std::string::npos) << "'" << m << "' not in: " << msg;
  }
}

TEST_F(SourceJobErrors, OptionsMayNotSetTheArchitectureOrAParameter) {
  for (const std::string option :
       {"-arch=sm_80", "--gpu-architecture=sm_80", "-DBX=3", "-dlto", "-rdc=true"}) {
    const std::string msg = usage_error([&] {
      parse(job_text("constraints = ", "options = [\"" + option + "\"]\nconstraints = "));
    });
    EXPECT_NE(msg.find("'kernel[0].options' holds '" + option + "'"), std::string::npos) << msg;
  }
}

TEST_F(SourceJobErrors, SourceAndReferenceAreChecked) {
  auto message = [&](const std::string& text) { return usage_error([&] { parse(text); }); };
  EXPECT_NE(message(job_text("source = \"k.cu\"", "source = \"missing.cu\""))
                .find("'kernel[0].source' = 'missing.cu': no such file"),
            std::string::npos);
  EXPECT_NE(message(job_text("kernel = \"k_ref\"", "kernel = \"k_ref\"\nfile = \"e.bin\""))
                .find("exactly one of 'kernel'"),
            std::string::npos);
  // An expected-output file must exist and hold exactly the outputs' bytes (1000 floats).
  const std::string with_file =
      job_text("kernel = \"k_ref\"\nblock = [\"128\"]\ngrid = [\"ceil_div(n, 128)\"]",
               "file = \"expected.bin\"");
  EXPECT_NE(message(with_file).find("'kernel[0].reference.file' = 'expected.bin': no such file"),
            std::string::npos)
      << message(with_file);
  std::ofstream(dir.path / "expected.bin") << std::string(3999, 'x');
  EXPECT_NE(message(with_file).find("has 3999 bytes, but the outputs need 4000"), std::string::npos)
      << message(with_file);
  std::ofstream(dir.path / "expected.bin") << std::string(4000, 'x');
  const SourceJob job = parse(with_file);
  EXPECT_EQ(job.kernels[0].reference.file, dir.path / "expected.bin");
  EXPECT_TRUE(job.kernels[0].reference.kernel.empty());
  EXPECT_NE(message(job_text("kind = \"output\"", "kind = \"input\"")).find("has no output"),
            std::string::npos);
  const std::string twice = job_text() + job_text().substr(job_text().find("[[kernel]]"));
  EXPECT_NE(message(twice).find("two [[kernel]] tables are named 'k'"), std::string::npos)
      << message(twice);
}

TEST_F(SourceJobErrors, EvaluationErrorsNameTheConfiguration) {
  auto enumerate = [&](const std::string& text) {
    return usage_error([&] { enumerate_configurations(parse(text).kernels[0]); });
  };
  // Division by zero only for U = 2.
  auto msg = enumerate(job_text("grid = [\"ceil_div(n, BX * U)\"]", "grid = [\"n / (2 - U)\"]"));
  EXPECT_NE(msg.find("kernel 'k': kernel[0].launch.grid[0] = 'n / (2 - U)': division by zero"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("U=2"), std::string::npos) << msg;
  // A block extent below 1.
  msg = enumerate(job_text("block = [\"BX\"]", "block = [\"BX - 32\"]"));
  EXPECT_NE(msg.find("kernel[0].launch.block[0] = 'BX - 32' is 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("constraint"), std::string::npos) << msg;
  // Negative shared memory; constraints that leave nothing.
  msg = enumerate(job_text("smem = \"threads * 4\"", "smem = \"16 - threads\""));
  EXPECT_NE(msg.find("kernel[0].launch.smem = '16 - threads' is -16 bytes"), std::string::npos)
      << msg;
  msg = enumerate(job_text("BX >= 32", "BX > 64"));
  EXPECT_NE(msg.find("exclude every one of the 4 configurations"), std::string::npos) << msg;
  // The reference's launch is evaluated too.
  msg = enumerate(job_text("grid = [\"ceil_div(n, 128)\"]", "grid = [\"n - 1000\"]"));
  EXPECT_NE(msg.find("kernel[0].reference.grid[0] = 'n - 1000' is 0"), std::string::npos) << msg;
}

TEST_F(SourceJobErrors, MalformedTomlNamesTheLine) {
  const std::string msg = usage_error([&] { parse("version = 1\n[[kernel]\n"); });
  EXPECT_NE(msg.find("malformed TOML at line 2"), std::string::npos) << msg;
}

}  // namespace
}  // namespace occtune::source
