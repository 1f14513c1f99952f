// Shape parsing (every bad form is a usage error naming the value) and order statistics.
#include <gtest/gtest.h>

#include "autotuner/core/error.hpp"
#include "autotuner/core/outcome.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/core/stats.hpp"

namespace occtune {
namespace {

TEST(Shape, ParsesValidForms) {
  EXPECT_EQ(parse_shape("1024x512x17"), (Shape{1024, 512, 17}));
  EXPECT_EQ(parse_shape("1X1X1"), (Shape{1, 1, 1}));
  EXPECT_EQ(parse_shape("2147483647x1x1").m, kMaxShapeSide);
  EXPECT_EQ(parse_shape("3001x1000x4097").str(), "3001x1000x4097");
}

TEST(Shape, RejectsBadFormsWithTheValueInTheMessage) {
  for (const char* bad : {"", "1024", "1024x1024", "0x1x1", "1x0x1", "-5x1x1", "1x-1x1", "ax1x1",
                          "1.5x1x1", "1x1x1x", "1x1x1x1", "2147483648x1x1",
                          "99999999999999999999x1x1", "1 x1x1", "x1x1", "1xx1"}) {
    try {
      parse_shape(bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << bad;
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("MxNxK"), std::string::npos) << e.what();
    }
  }
}

TEST(Shape, OperandBytesSaturateInsteadOfWrapping) {
  EXPECT_EQ((Shape{2, 3, 4}).operand_bytes(4), (2 * 4 + 4 * 3 + 2 * 3) * 4u);
  EXPECT_EQ((Shape{kMaxShapeSide, kMaxShapeSide, kMaxShapeSide}).operand_bytes(4), UINT64_MAX);
}

TEST(Stats, QuartilesInterpolateLikeNumpy) {
  // numpy.percentile([1,2,3,4,10], [25,50,75]) == [2, 3, 4]
  auto s = summarize({10, 1, 3, 2, 4});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  // numpy.percentile([1,2,3,4], [25,50,75]) == [1.75, 2.5, 3.25]
  auto e = summarize({4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(e.q1, 1.75);
  EXPECT_DOUBLE_EQ(e.median, 2.5);
  EXPECT_DOUBLE_EQ(e.q3, 3.25);
  EXPECT_DOUBLE_EQ(e.relative_iqr(), 1.5 / 2.5);
  EXPECT_EQ(summarize({}).count, 0u);
}

TEST(Outcome, RoundTripsEveryName) {
  for (auto o : {Outcome::kOk, Outcome::kInvalidConfig, Outcome::kExceedsLimits,
                 Outcome::kLaunchFailed, Outcome::kWrongResult, Outcome::kCrashed,
                 Outcome::kTimeout})
    EXPECT_EQ(outcome_from_string(to_string(o)), o);
  EXPECT_FALSE(outcome_from_string("fine").has_value());
}

}  // namespace
}  // namespace occtune

namespace occtune {
namespace {

TEST(Stats, MedianIntervalUsesBinomialOrderStatistics) {
  // n = 10 at 95%: P(X <= 1) = 11/1024, so [x(2), x(9)] covers 1 - 22/1024 = 97.9%; [x(3), x(8)]
  // would cover only 1 - 2*56/1024 = 89%.
  std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  auto i = median_interval(v, 0.95);
  EXPECT_DOUBLE_EQ(i.low, 2);
  EXPECT_DOUBLE_EQ(i.high, 9);
  // Too few samples for the level: the whole range.
  auto few = median_interval({3, 1, 2}, 0.95);
  EXPECT_DOUBLE_EQ(few.low, 1);
  EXPECT_DOUBLE_EQ(few.high, 3);
  EXPECT_TRUE((Interval{1, 2}).overlaps({2, 3}));
  EXPECT_FALSE((Interval{1, 2}).overlaps({2.5, 3}));
}

TEST(Stats, MannWhitneySeparatesShiftedSetsAndNotEqualOnes) {
  std::vector<double> a, b, c;
  for (int i = 0; i < 20; ++i) {
    a.push_back(1.0 + 0.001 * i);
    b.push_back(2.0 + 0.001 * i);
    c.push_back(1.0 + 0.001 * i + 0.0005);
  }
  EXPECT_LT(mann_whitney_p(a, b), 1e-6);   // complete separation
  EXPECT_GT(mann_whitney_p(a, c), 0.5);    // interleaved
  EXPECT_DOUBLE_EQ(mann_whitney_p(a, {}), 1.0);
  // Identical constant sets: every value tied, no evidence of difference.
  EXPECT_DOUBLE_EQ(mann_whitney_p({1, 1, 1}, {1, 1, 1}), 1.0);
  // By hand: U = 0, mean 12.5, variance 5*5*11/12, z = (12.5 - 0.5) / 4.787 = 2.507,
  // p = erfc(z / sqrt 2) = 0.01219.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.01219, 1e-4);
}

}  // namespace
}  // namespace occtune
