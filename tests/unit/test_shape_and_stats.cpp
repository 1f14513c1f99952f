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
