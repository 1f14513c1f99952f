// The verdict rule (autotuner/core/verdict.hpp) on hand-made cases, and its error rates on
// synthetic GPU-like samples with known truth: 1,000 comparisons per setting, seeded, so the
// rates are exact and repeatable. The rate table is printed (docs/ci.md quotes it); with
// OCCTUNE_SIM_REPORT=FILE it is also written there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "autotuner/core/verdict.hpp"
#include "tests/support/gate_fixtures.hpp"

namespace occtune {
namespace {

using testing::gpu_like_samples;
using testing::NoiseModel;

std::vector<double> scaled(std::vector<double> v, double factor) {
  for (double& x : v) x *= factor;
  return v;
}

TEST(Verdict, NamesAreStable) {
  EXPECT_EQ(to_string(Verdict::kSlow), "SLOW");
  EXPECT_EQ(to_string(Verdict::kSame), "SAME");
  EXPECT_EQ(to_string(Verdict::kFast), "FAST");
  EXPECT_EQ(to_string(Verdict::kAmbiguous), "AMBIGUOUS");
  EXPECT_EQ(to_string(Verdict::kWrong), "WRONG");
  EXPECT_EQ(to_string(Verdict::kMissing), "MISSING");
  EXPECT_EQ(to_string(Verdict::kDrift), "DRIFT");
  EXPECT_EQ(to_string(Verdict::kIncompatible), "INCOMPATIBLE");
}

TEST(Verdict, ClearSlowDownIsSlowAndSpeedUpIsFast) {
  std::vector<double> base;
  for (int i = 0; i < 20; ++i) base.push_back(1.0 + 0.001 * i);
  const auto slow = compare_samples(base, scaled(base, 1.2), {});
  EXPECT_EQ(slow.verdict, Verdict::kSlow);
  EXPECT_NEAR(slow.ratio, 1.2, 1e-12);
  EXPECT_TRUE(slow.intervals_apart);
  EXPECT_TRUE(slow.clearly_separated);
  EXPECT_LT(slow.p_value, 1e-6);
  const auto fast = compare_samples(base, scaled(base, 1.0 / 1.2), {});
  EXPECT_EQ(fast.verdict, Verdict::kFast);
}

TEST(Verdict, SeparatedButSmallChangeIsSame) {
  // A 2% shift with almost no noise is statistically certain and practically irrelevant.
  std::vector<double> base;
  for (int i = 0; i < 20; ++i) base.push_back(1.0 + 1e-5 * i);
  const auto c = compare_samples(base, scaled(base, 1.02), {});
  EXPECT_TRUE(c.clearly_separated);
  EXPECT_EQ(c.verdict, Verdict::kSame);
}

TEST(Verdict, LargeChangeWithOverlappingSamplesIsAmbiguous) {
  // Medians 10% apart, but each set spans the other: no separation, so no SLOW.
  const std::vector<double> base = {0.6, 0.8, 1.0, 1.2, 1.4, 0.7, 0.9, 1.0, 1.1, 1.3, 1.0};
  const auto c = compare_samples(base, scaled(base, 1.1), {});
  EXPECT_GT(c.ratio, 1.05);
  EXPECT_FALSE(c.clearly_separated);
  EXPECT_EQ(c.verdict, Verdict::kAmbiguous);
}

TEST(Verdict, RankTestNeedsEnoughSamples) {
  // Five samples each: the rank test is not used and the 99% interval is the whole range, so a
  // slow-down whose ranges touch stays AMBIGUOUS; fully apart ranges are SLOW.
  const std::vector<double> base = {1.0, 1.01, 1.02, 1.03, 1.20};
  const std::vector<double> touching = {1.10, 1.11, 1.12, 1.13, 1.14};
  const auto c = compare_samples(base, touching, {});
  EXPECT_FALSE(c.rank_test_applies);
  EXPECT_EQ(c.verdict, Verdict::kAmbiguous);
  const auto apart = compare_samples(base, scaled(base, 1.25), {});
  EXPECT_EQ(apart.verdict, Verdict::kSlow);
}

TEST(Verdict, ThresholdIsAParameter) {
  std::vector<double> base;
  for (int i = 0; i < 20; ++i) base.push_back(1.0 + 1e-4 * i);
  VerdictPolicy tight;
  tight.threshold = 0.01;
  EXPECT_EQ(compare_samples(base, scaled(base, 1.03), tight).verdict, Verdict::kSlow);
  EXPECT_EQ(compare_samples(base, scaled(base, 1.03), {}).verdict, Verdict::kSame);
}

TEST(Verdict, EmptySideIsAmbiguous) {
  EXPECT_EQ(compare_samples({}, {1.0}, {}).verdict, Verdict::kAmbiguous);
  EXPECT_EQ(compare_samples({1.0}, {}, {}).verdict, Verdict::kAmbiguous);
}

TEST(Verdict, SlowCountsOnlyWhenConfirmed) {
  SampleComparison slow, same, ambiguous;
  slow.verdict = Verdict::kSlow;
  same.verdict = Verdict::kSame;
  ambiguous.verdict = Verdict::kAmbiguous;
  EXPECT_EQ(confirm_slow(slow, slow), Verdict::kSlow);
  EXPECT_EQ(confirm_slow(slow, same), Verdict::kAmbiguous);
  EXPECT_EQ(confirm_slow(slow, ambiguous), Verdict::kAmbiguous);
  EXPECT_EQ(confirm_slow(same, slow), Verdict::kSame);  // only a suspected SLOW is re-measured
}

// --- simulation with known truth ----------------------------------------------------------------

struct Rates {
  double slow = 0, fast = 0, ambiguous = 0, same = 0;
  double slow_confirmed = 0;  // check's rule: a SLOW stands only if a fresh draw agrees
  double separated = 0;       // the statistical half alone, whatever the threshold says
};

constexpr int kTrials = 1000;

// `trials` comparisons of a baseline against a current set slowed by `slowdown` (0.05 = 5%).
Rates simulate(double slowdown, const NoiseModel& noise, int samples, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Rates r;
  const VerdictPolicy policy;
  for (int t = 0; t < kTrials; ++t) {
    const auto base = gpu_like_samples(rng, 1.0, samples, noise);
    const auto current = gpu_like_samples(rng, 1.0 + slowdown, samples, noise);
    const auto c = compare_samples(base, current, policy);
    Verdict confirmed = c.verdict;
    if (c.verdict == Verdict::kSlow) {
      const auto again = gpu_like_samples(rng, 1.0 + slowdown, samples, noise);
      confirmed = confirm_slow(c, compare_samples(base, again, policy));
    }
    r.slow += c.verdict == Verdict::kSlow;
    r.fast += c.verdict == Verdict::kFast;
    r.ambiguous += c.verdict == Verdict::kAmbiguous;
    r.same += c.verdict == Verdict::kSame;
    r.slow_confirmed += confirmed == Verdict::kSlow;
    r.separated += c.clearly_separated;
  }
  for (double* v : {&r.slow, &r.fast, &r.ambiguous, &r.same, &r.slow_confirmed, &r.separated})
    *v /= kTrials;
  return r;
}

struct Setting {
  const char* name;
  NoiseModel noise;
};

const std::vector<Setting>& settings() {
  static const std::vector<Setting> s = {
      {"0.5% spread, 2% outliers", {0.005, 0.02, 0.5}},
      {"1% spread, 2% outliers", {0.01, 0.02, 0.5}},
      {"2% spread, 5% outliers", {0.02, 0.05, 0.5}},
  };
  return s;
}

std::string pct(double v) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << v * 100 << "%";
  return s.str();
}

// Every expectation of issue #6 in one table: the false-failure rate on identical
// distributions, and the detection of injected slow-downs of 3, 5, 10 and 30%.
TEST(VerdictSimulation, RatesMatchTheContract) {
  std::ostringstream table;
  table << "| noise | samples | injected | SLOW | SLOW after re-measure | AMBIGUOUS | SAME | FAST "
           "| separated |\n"
        << "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::uint64_t seed = 20261122;
  for (auto& setting : settings()) {
    for (int samples : {30, 20, 10}) {
      for (double slowdown : {0.0, 0.03, 0.05, 0.10, 0.30}) {
        const Rates r = simulate(slowdown, setting.noise, samples, seed++);
        table << "| " << setting.name << " | " << samples << " | " << pct(slowdown) << " | "
              << pct(r.slow) << " | " << pct(r.slow_confirmed) << " | " << pct(r.ambiguous) << " | "
              << pct(r.same) << " | " << pct(r.fast) << " | " << pct(r.separated) << " |\n";
        SCOPED_TRACE(std::string(setting.name) + ", " + std::to_string(samples) +
                     " samples, injected " + pct(slowdown));
        if (slowdown == 0.0) {
          EXPECT_LT(r.slow, 0.01) << "false failures on identical distributions";
          EXPECT_LT(r.fast, 0.01);
          // The statistical half alone is strict too: the threshold is not what keeps it quiet.
          EXPECT_LT(r.separated, 0.01);
        } else if (slowdown == 0.03) {
          // Below the 5% threshold: SAME (or AMBIGUOUS). With 20 samples a single comparison
          // almost never says SLOW; with 10 noisy ones it can, and check's re-measurement
          // removes that.
          EXPECT_LT(r.slow_confirmed, 0.01);
          if (samples >= 20) {
            EXPECT_LT(r.slow, 0.01);
          }
        } else if (slowdown == 0.05) {
          // Exactly at the threshold: the median ratio falls on either side about half of the
          // time; SLOW or SAME/AMBIGUOUS are both acceptable, FAST is not.
          EXPECT_EQ(r.fast, 0.0);
          EXPECT_GT(r.slow, 0.1);
          EXPECT_LT(r.slow, 0.9);
        } else if (samples >= 20) {
          EXPECT_GE(r.slow, 0.99) << "a " << pct(slowdown) << " slow-down must be caught";
          EXPECT_GE(r.slow_confirmed, 0.99);
        } else {
          // Ten samples: the 99% median interval is the whole range and the rank test at 0.001
          // tolerates about five inversions, so one baseline outlier beyond every current sample
          // hides the shift. The gate then says AMBIGUOUS (exit 0), never SAME or FAST: it
          // stays quiet rather than guess (docs/ci.md: use 20 or more samples).
          EXPECT_GE(r.slow, 0.6);
          EXPECT_EQ(r.same + r.fast, 0.0);
        }
      }
    }
  }
  std::cout << table.str();
  if (const char* path = std::getenv("OCCTUNE_SIM_REPORT")) std::ofstream(path) << table.str();
}

// Five samples (what the tuner keeps for very slow candidates): the rank test is off and the
// 99% interval is the full range, so the gate is conservative: few false failures, and a 30%
// slow-down is still caught.
TEST(VerdictSimulation, FewSamplesStayConservative) {
  const NoiseModel noise{0.01, 0.02, 0.5};
  const Rates same = simulate(0.0, noise, 5, 7);
  EXPECT_LT(same.slow, 0.01);
  const Rates big = simulate(0.30, noise, 5, 8);
  EXPECT_GE(big.slow, 0.9);
}

}  // namespace
}  // namespace occtune
