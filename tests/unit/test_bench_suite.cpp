// Suite files of `occtune bench --suite` (autotuner/cli/bench_suite.cpp): the committed suite
// holds what issue #18 asks for, and malformed files are usage errors naming file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "autotuner/cli/bench_suite.hpp"
#include "autotuner/core/error.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

using cli::load_bench_suite;
using cli::parse_bench_suite;

void expect_usage(const std::string& text, const std::string& mention) {
  try {
    parse_bench_suite(text, "t.txt");
    FAIL() << "accepted: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
  }
}

TEST(BenchSuite, ParsesShapesCategoriesAndComments) {
  const auto s = parse_bench_suite("# head\n\n1x2x3  gemv # trailing\n  4x5x6\n", "t.txt");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].shape.str(), "1x2x3");
  EXPECT_EQ(s[0].category, "gemv");
  EXPECT_EQ(s[1].shape.str(), "4x5x6");
  EXPECT_EQ(s[1].category, "");
}

TEST(BenchSuite, MalformedLinesAreUsageErrorsWithTheirLine) {
  expect_usage("1x2x3\n12x\n", "line 2");
  expect_usage("1x2x3 a b\n", "'b'");
  expect_usage("1x2x3 a/b\n", "'a/b'");
  expect_usage("1x2x3\n# x\n1x2x3\n", "repeats line 1");
  expect_usage("# nothing\n", "no shape");
  try {
    load_bench_suite("/nonexistent/suite.txt");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/suite.txt"), std::string::npos);
  }
}

// Issue #18: at least 40 shapes, the 12 defaults, every named category, 20 random shapes whose
// buffers fit in 8 GiB, and each category shape what its name says.
TEST(BenchSuite, TheCommittedSuiteHoldsWhatTheIssueAsks) {
  const auto suite = load_bench_suite(OCCTUNE_SOURCE_DIR "/configs/bench/suite.txt");
  EXPECT_GE(suite.size(), 40u);
  std::map<std::string, int> count;
  for (auto& s : suite) ++count[s.category];
  EXPECT_EQ(count["default"], 12);
  EXPECT_EQ(count["random"], 20);
  for (auto* c :
       {"gemv", "small_odd", "past_pow2", "long_k", "tall_n128", "wave_1_09", "m8", "k256"})
    EXPECT_GE(count[c], 1) << c;
  for (auto& s : suite) {
    const std::int64_t m = s.shape.m, n = s.shape.n, k = s.shape.k;
    const std::string what = s.shape.str() + " " + s.category;
    const std::string& c = s.category;
    if (c == "gemv") {
      EXPECT_EQ(m, 1) << what;
    } else if (c == "small_odd") {
      for (auto d : {m, n, k}) EXPECT_TRUE(d >= 100 && d < 1000 && d % 4 != 0) << what;
    } else if (c == "past_pow2") {
      EXPECT_TRUE(m == n && n == k && ((m - 1) & (m - 2)) == 0) << what;
    } else if (c == "long_k") {
      EXPECT_TRUE(m * n <= 256 * 256 && k >= 32768) << what;
    } else if (c == "tall_n128") {
      EXPECT_TRUE(n == 128 && m >= 16384) << what;
    } else if (c == "wave_1_09") {
      const double tiles = double((m + 127) / 128) * double((n + 127) / 128);
      EXPECT_NEAR(tiles / 132, 1.09, 0.01) << what;
    } else if (c == "m8") {
      EXPECT_TRUE(m == 8 && n >= 4096 && k >= 4096) << what;
    } else if (c == "k256") {
      EXPECT_TRUE(k == 256 && m * n >= 8192ll * 8192) << what;
    } else if (c == "random") {
      for (auto d : {m, n, k}) EXPECT_TRUE(d >= 1 && d <= 16384) << what;
      const double bytes = 4.0 * double(m * k + k * n + m * n);
      EXPECT_LE(bytes, 8.0 * double(1ull << 30)) << what;
    } else {
      EXPECT_EQ(c, "default") << what;
    }
  }
}

TEST(BenchSuite, BenchRefusesABadSuiteBeforeAnyGpuWork) {
  auto r = testing::run_cli("bench --suite /nonexistent/suite.txt", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/suite.txt"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace occtune
