// GEMM layouts (issue #12, autotuner/core/layout.hpp): spelling, and the column-major
// reduction checked numerically: a column-major BLAS call computed directly and as the
// row-major problem to_row_major gives, on the same buffers, agree element for element.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "autotuner/core/layout.hpp"

namespace occtune {
namespace {

TEST(Layout, NamesRoundTrip) {
  for (Layout l : kAllLayouts) {
    const auto parsed = parse_layout(layout_name(l));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, l);
  }
  EXPECT_EQ(parse_layout("NT"), Layout::kNT);
  EXPECT_EQ(parse_layout("Tn"), Layout::kTN);
  EXPECT_EQ(layout_of(Op::kT, Op::kN), Layout::kTN);
  EXPECT_TRUE(transposes_a(Layout::kTT) && transposes_b(Layout::kTT));
  EXPECT_TRUE(!transposes_a(Layout::kNT) && transposes_b(Layout::kNT));
}

TEST(Layout, RejectsOtherSpellingsWithAMessageNamingThem) {
  for (const char* bad : {"", "n", "nnn", "ab", "tx", " nn", "c"})
    EXPECT_FALSE(parse_layout(bad).has_value()) << bad;
  const std::string message = layout_error("xy");
  EXPECT_NE(message.find("'xy'"), std::string::npos);
  EXPECT_NE(message.find("nn, nt, tn or tt"), std::string::npos);
}

// C = alpha op(A) op(B) + beta C, the BLAS way, for either storage order.
struct Call {
  Major major;
  Op op_a, op_b;
  int m, n, k, lda, ldb, ldc;
};

// Element (i, j) of a matrix stored with leading dimension ld in `major` order.
double at(const std::vector<double>& x, Major major, int ld, int i, int j) {
  return major == Major::kRow ? x[std::size_t(i) * ld + j] : x[std::size_t(j) * ld + i];
}

// The call computed as written (reference), C as stored in its own order.
std::vector<double> blas(const Call& c, const std::vector<double>& a, const std::vector<double>& b,
                         std::vector<double> cm) {
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double s = 0;
      for (int p = 0; p < c.k; ++p) {
        const double av = c.op_a == Op::kN ? at(a, c.major, c.lda, i, p) : at(a, c.major, c.lda, p, i);
        const double bv = c.op_b == Op::kN ? at(b, c.major, c.ldb, p, j) : at(b, c.major, c.ldb, j, p);
        s += av * bv;
      }
      double& out = c.major == Major::kRow ? cm[std::size_t(i) * c.ldc + j]
                                           : cm[std::size_t(j) * c.ldc + i];
      out = 2.0 * s + 0.5 * out;
    }
  return cm;
}

// The same call through to_row_major: a row-major kernel of the resulting layout, fed the
// (possibly swapped) buffers, as the kernels index them (op(A) = T: A stored K x M).
std::vector<double> via_row_major(const Call& c, const std::vector<double>& a,
                                  const std::vector<double>& b, std::vector<double> cm) {
  const RowMajorGemm g = to_row_major(c.major, c.op_a, c.op_b, c.m, c.n, c.k, c.lda, c.ldb, c.ldc);
  EXPECT_EQ(row_major_violation(g), "");
  const auto& ra = g.swap_operands ? b : a;
  const auto& rb = g.swap_operands ? a : b;
  for (std::int64_t i = 0; i < g.m; ++i)
    for (std::int64_t j = 0; j < g.n; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < g.k; ++p) {
        const double av = transposes_a(g.layout) ? ra[std::size_t(p * g.lda + i)]
                                                 : ra[std::size_t(i * g.lda + p)];
        const double bv = transposes_b(g.layout) ? rb[std::size_t(j * g.ldb + p)]
                                                 : rb[std::size_t(p * g.ldb + j)];
        s += av * bv;
      }
      double& out = cm[std::size_t(i * g.ldc + j)];
      out = 2.0 * s + 0.5 * out;
    }
  return cm;
}

TEST(Layout, ColumnMajorCallsReduceToTheRowMajorProblem) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  const int m = 5, n = 3, k = 4;
  for (Major major : {Major::kRow, Major::kColumn})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        Call c{major, op_a, op_b, m, n, k, 0, 0, 0};
        // Stored shapes (rows x cols in the call's own order) and padded leading dimensions.
        const bool row = major == Major::kRow;
        const int a_rows = op_a == Op::kN ? m : k, a_cols = op_a == Op::kN ? k : m;
        const int b_rows = op_b == Op::kN ? k : n, b_cols = op_b == Op::kN ? n : k;
        c.lda = (row ? a_cols : a_rows) + 2;
        c.ldb = (row ? b_cols : b_rows) + 1;
        c.ldc = (row ? n : m) + 3;
        std::vector<double> a(std::size_t(c.lda) * (row ? a_rows : a_cols));
        std::vector<double> b(std::size_t(c.ldb) * (row ? b_rows : b_cols));
        std::vector<double> cm(std::size_t(c.ldc) * (row ? m : n));
        for (auto* v : {&a, &b, &cm})
          for (auto& x : *v) x = dist(rng);
        const auto want = blas(c, a, b, cm);
        const auto got = via_row_major(c, a, b, cm);
        for (std::size_t i = 0; i < want.size(); ++i)
          ASSERT_NEAR(got[i], want[i], 1e-12)
              << (row ? "row" : "column") << "-major " << (op_a == Op::kN ? 'n' : 't')
              << (op_b == Op::kN ? 'n' : 't') << " at " << i;
        const RowMajorGemm g = to_row_major(major, op_a, op_b, m, n, k, c.lda, c.ldb, c.ldc);
        EXPECT_EQ(g.swap_operands, !row);
        EXPECT_EQ(g.m, row ? m : n);
        EXPECT_EQ(g.layout, row ? layout_of(op_a, op_b) : layout_of(op_b, op_a));
      }
}

TEST(Layout, ViolationsNameTheCallersValue) {
  // Row-major nn: lda must hold K.
  auto g = to_row_major(Major::kRow, Op::kN, Op::kN, 10, 20, 30, 29, 20, 20);
  EXPECT_NE(row_major_violation(g).find("lda = 29"), std::string::npos) << row_major_violation(g);
  EXPECT_NE(row_major_violation(g).find("at least 30"), std::string::npos);
  // Row-major tn: A stored K x M, lda must hold M.
  g = to_row_major(Major::kRow, Op::kT, Op::kN, 10, 20, 30, 10, 20, 20);
  EXPECT_EQ(row_major_violation(g), "");
  // Column-major nn: the caller's lda must hold M (A is m x k column-major); it becomes the
  // row-major ldb, but the message names the caller's lda.
  g = to_row_major(Major::kColumn, Op::kN, Op::kN, 10, 20, 30, 9, 30, 10);
  EXPECT_NE(row_major_violation(g).find("lda = 9"), std::string::npos) << row_major_violation(g);
  g = to_row_major(Major::kColumn, Op::kN, Op::kN, 10, 20, 30, 10, 30, 10);
  EXPECT_EQ(row_major_violation(g), "");
  // ldc, negative and oversized dimensions.
  g = to_row_major(Major::kRow, Op::kN, Op::kN, 10, 20, 30, 30, 20, 19);
  EXPECT_NE(row_major_violation(g).find("ldc = 19"), std::string::npos);
  g = to_row_major(Major::kRow, Op::kN, Op::kN, -1, 20, 30, 30, 20, 20);
  EXPECT_NE(row_major_violation(g).find("m = -1"), std::string::npos);
  g = to_row_major(Major::kColumn, Op::kN, Op::kN, 10, std::int64_t(1) << 32, 30, 10, 30, 10);
  EXPECT_NE(row_major_violation(g).find("n = 4294967296"), std::string::npos)
      << row_major_violation(g);
  // Empty problems are legal with leading dimensions of at least 1.
  g = to_row_major(Major::kRow, Op::kN, Op::kN, 0, 0, 0, 1, 1, 1);
  EXPECT_EQ(row_major_violation(g), "");
}

}  // namespace
}  // namespace occtune
