// Tuning job files: the shipped default parses; each malformed form is a usage error naming
// the key or value.
#include <gtest/gtest.h>

#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "kernels/registry.hpp"

namespace occtune {
namespace {

TEST(JobConfig, BuiltInDefaultParses) {
  auto job = load_job_config("");
  // The main job (scripts/tune.sh) tunes every registered family, textbook kernels included.
  std::vector<std::string> families;
  for (auto& f : kernels::families()) families.push_back(f.name);
  EXPECT_EQ(job.kernels, families);
  EXPECT_GE(job.shapes.size(), 3u);
  bool non_square = false;
  for (auto& s : job.shapes) non_square |= !(s.m == s.n && s.n == s.k);
  EXPECT_TRUE(non_square);
  EXPECT_TRUE(job.policy.flush_l2);
}

TEST(JobConfig, ReadsEverySetting) {
  auto job = parse_job_config(R"(version = 1
[job]
kernels = ["naive"]
shapes = ["17x1x1000"]
layout = "tn"
min_tile = 8
device = "GPU-1234"
db = "/tmp/x.db"
[measure]
warmup = 0
samples = 9
flush_l2 = false
tolerance = 1e-4
seed = 7
max_seconds_per_candidate = 0.5
)", "t.toml");
  EXPECT_EQ(job.kernels, std::vector<std::string>{"naive"});
  EXPECT_EQ(job.shapes.at(0), (Shape{17, 1, 1000}));
  EXPECT_EQ(job.min_tile, 8);
  EXPECT_EQ(job.layout, Layout::kTN);
  EXPECT_EQ(load_job_config("").layout, Layout::kNN);
  EXPECT_EQ(job.device, "GPU-1234");
  EXPECT_EQ(job.db, "/tmp/x.db");
  EXPECT_EQ(job.policy.warmup, 0);
  EXPECT_EQ(job.policy.samples, 9);
  EXPECT_FALSE(job.policy.flush_l2);
  EXPECT_DOUBLE_EQ(job.policy.tolerance, 1e-4);
  EXPECT_EQ(job.policy.seed, 7u);
  EXPECT_DOUBLE_EQ(job.policy.max_seconds_per_candidate, 0.5);
}

struct BadConfig {
  const char* text;
  const char* must_mention;
};

TEST(JobConfig, RejectsBadFilesNamingTheProblem) {
  const BadConfig cases[] = {
      {"[job]\nkernels = [\"naive\"]\n", "missing 'version'"},
      {"version = 2\n", "version = 1"},
      {"version = \"1\"\n", "version"},
      {"version = 1\nbogus = 3\n", "'bogus'"},
      {"version = 1\n[job]\nkernel = [\"naive\"]\n", "'job.kernel'"},
      {"version = 1\n[measure]\nsample = 3\n", "'measure.sample'"},
      {"version = 1\n[job]\nkernels = \"naive\"\n", "array of strings"},
      {"version = 1\n[job]\nkernels = [1]\n", "only strings"},
      {"version = 1\n[job]\nkernels = [\"nope\"]\n", "unknown kernel 'nope'"},
      {"version = 1\n[job]\nshapes = [\"0x1x1\"]\n", "'0x1x1'"},
      {"version = 1\n[job]\nlayout = \"nx\"\n", "job.layout: unknown layout 'nx'"},
      {"version = 1\n[job]\nlayout = 2\n", "'job.layout'"},
      {"version = 1\n[measure]\nsamples = 0\n", "'measure.samples' = 0"},
      {"version = 1\n[measure]\nsamples = \"many\"\n", "must be an integer"},
      {"version = 1\n[measure]\nflush_l2 = 1\n", "true or false"},
      {"version = 1\n[measure]\ntolerance = 2.0\n", "tolerance"},
      {"version = 1\n[measure]\nseed = -1\n", "seed"},
      {"version = 1\n[job\n", "malformed TOML"},
      {"version = 1\njob = 3\n", "'job' must be a table"},
  };
  for (auto& c : cases) {
    try {
      parse_job_config(c.text, "bad.toml");
      FAIL() << "accepted:\n" << c.text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << c.text;
      EXPECT_NE(std::string(e.what()).find(c.must_mention), std::string::npos)
          << "message '" << e.what() << "' lacks '" << c.must_mention << "'";
      EXPECT_NE(std::string(e.what()).find("bad.toml"), std::string::npos) << e.what();
    }
  }
}

TEST(JobConfig, MissingFileIsAUsageError) {
  try {
    load_job_config("/nonexistent/job.toml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/job.toml"), std::string::npos);
  }
}

}  // namespace
}  // namespace occtune
