// The [measure] protocol keys and the [search] keys of a job file: every key is read, and
// every bad value is a usage error naming the key.
#include <gtest/gtest.h>

#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"

namespace occtune {
namespace {

TEST(JobConfigProtocol, BuiltInDefaultSpellsOutEveryKeyWithTheDefaults) {
  auto job = load_job_config("");
  const TimingPolicy p;
  const SearchSettings s;
  EXPECT_EQ(job.policy.samples, p.samples);
  EXPECT_DOUBLE_EQ(job.policy.min_time_s, p.min_time_s);
  EXPECT_DOUBLE_EQ(job.policy.target_noise, p.target_noise);
  EXPECT_EQ(job.policy.max_samples, p.max_samples);
  EXPECT_EQ(job.policy.batch, p.batch);
  EXPECT_EQ(job.policy.settle_ms, p.settle_ms);
  EXPECT_DOUBLE_EQ(job.policy.throttle_ratio, p.throttle_ratio);
  EXPECT_EQ(job.search.strategy, s.strategy);
  EXPECT_EQ(job.search.screen_samples, s.screen_samples);
  EXPECT_DOUBLE_EQ(job.search.drop_factor, s.drop_factor);
  EXPECT_DOUBLE_EQ(job.search.tie_level, s.tie_level);
}

TEST(JobConfigProtocol, ReadsEveryProtocolAndSearchKey) {
  auto job = parse_job_config(R"(version = 1
[measure]
samples = 30
min_seconds = 0.5
target_noise = 0.01
max_seconds_per_candidate = 3
max_samples = 400
batch = 7
settle_ms = 0
settle_timeout_ms = 10
throttle_ratio = 0.8
throttle_retries = 5
[search]
strategy = "exhaustive"
screen_samples = 4
drop_factor = 3
finalists = 5
confirm_samples = 12
tie_level = 0.99
time_budget = 2.5
max_candidates = 60
)",
                              "t.toml");
  const auto& p = job.policy;
  EXPECT_EQ(p.samples, 30);
  EXPECT_DOUBLE_EQ(p.min_time_s, 0.5);
  EXPECT_DOUBLE_EQ(p.target_noise, 0.01);
  EXPECT_DOUBLE_EQ(p.max_seconds_per_candidate, 3.0);  // an integer is a number too
  EXPECT_EQ(p.max_samples, 400);
  EXPECT_EQ(p.batch, 7);
  EXPECT_EQ(p.settle_ms, 0);
  EXPECT_EQ(p.settle_timeout_ms, 10);
  EXPECT_DOUBLE_EQ(p.throttle_ratio, 0.8);
  EXPECT_EQ(p.throttle_retries, 5);
  const auto& s = job.search;
  EXPECT_EQ(s.strategy, "exhaustive");
  EXPECT_EQ(s.screen_samples, 4);
  EXPECT_DOUBLE_EQ(s.drop_factor, 3.0);
  EXPECT_EQ(s.finalists, 5);
  EXPECT_EQ(s.confirm_samples, 12);
  EXPECT_DOUBLE_EQ(s.tie_level, 0.99);
  EXPECT_DOUBLE_EQ(s.time_budget_s, 2.5);
  EXPECT_EQ(s.max_candidates, 60);
}

TEST(JobConfigProtocol, RejectsBadValuesNamingTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {"[measure]\ntarget_noise = 0\n", "'measure.target_noise' = 0"},
      {"[measure]\ntarget_noise = \"low\"\n", "'measure.target_noise' must be a number"},
      {"[measure]\nmin_seconds = -1\n", "'measure.min_seconds' = -1"},
      {"[measure]\nmax_seconds_per_candidate = 0\n", "'measure.max_seconds_per_candidate'"},
      {"[measure]\nsamples = 50\nmax_samples = 10\n", "'measure.max_samples' = 10"},
      {"[measure]\nbatch = 0\n", "'measure.batch' = 0"},
      {"[measure]\nsettle_ms = 500\nsettle_timeout_ms = 100\n", "'measure.settle_timeout_ms'"},
      {"[measure]\nthrottle_ratio = 1.5\n", "'measure.throttle_ratio' = 1.5"},
      {"[measure]\nthrottle_retries = -1\n", "'measure.throttle_retries' = -1"},
      {"[measure]\nmin_time = 1\n", "'measure.min_time'"},
      {"[search]\nstrategy = \"greedy\"\n", "unknown search strategy 'greedy'"},
      {"[search]\nstrategy = 3\n", "'search.strategy' must be a string"},
      {"[search]\ndrop_factor = 0.5\n", "'search.drop_factor' = 0.5"},
      {"[search]\nfinalists = 0\n", "'search.finalists' = 0"},
      {"[search]\ntie_level = 1\n", "'search.tie_level' = 1"},
      {"[search]\ntime_budget = -3\n", "'search.time_budget' = -3"},
      {"[search]\nmax_candidates = -1\n", "'search.max_candidates' = -1"},
      {"[search]\nbudget = 1\n", "'search.budget'"},
      {"search = 1\n", "'search' must be a table"},
  };
  for (auto& [body, must_mention] : cases) {
    const std::string text = std::string("version = 1\n") + body;
    try {
      parse_job_config(text, "bad.toml");
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << text;
      EXPECT_NE(std::string(e.what()).find(must_mention), std::string::npos)
          << "message '" << e.what() << "' lacks '" << must_mention << "'";
      EXPECT_NE(std::string(e.what()).find("bad.toml"), std::string::npos) << e.what();
    }
  }
}

TEST(JobConfigProtocol, ValidationNamesTheSettingTheCallerUses) {
  TimingPolicy p;
  p.samples = 50;
  p.max_samples = 10;
  try {
    validate_protocol(p, SearchSettings{}, [](std::string_view f) {
      return f == "samples" ? std::string("--samples") : "--" + std::string(f);
    });
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("--max_samples = 10"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--samples = 50"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace occtune
