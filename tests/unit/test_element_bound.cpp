// The element-wise correctness bound (autotuner/core/element_bound.hpp) on the CPU: two fp32
// GEMMs summed in different orders stay within it, and one planted wrong element that the
// relative Frobenius error (tolerance 1e-5) lets through is caught, as are NaN and a dropped
// slab of terms.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "autotuner/core/element_bound.hpp"

namespace occtune {
namespace {

struct Product {
  int m, n, k;
  std::vector<float> a, b;
  std::vector<float> sequential, blocked, magnitude;
};

// C two ways in fp32 (one FMA chain; eight interleaved partial sums added at the end, as a
// split-K kernel would) and sum_k |a_ik b_kj|.
Product make_product(int m, int n, int k) {
  Product p{m, n, k, {}, {}, {}, {}, {}};
  std::mt19937 rng(20261124);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < m * k; ++i) p.a.push_back(u(rng));
  for (int i = 0; i < k * n; ++i) p.b.push_back(u(rng));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float seq = 0, mag = 0, part[8] = {};
      for (int x = 0; x < k; ++x) {
        const float av = p.a[size_t(i) * k + x], bv = p.b[size_t(x) * n + j];
        seq = std::fma(av, bv, seq);
        part[x % 8] = std::fma(av, bv, part[x % 8]);
        mag = std::fma(std::fabs(av), std::fabs(bv), mag);
      }
      float blocked = 0;
      for (float v : part) blocked += v;
      p.sequential.push_back(seq);
      p.blocked.push_back(blocked);
      p.magnitude.push_back(mag);
    }
  return p;
}

double relative_frobenius(const std::vector<float>& c, const std::vector<float>& ref) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    diff += (double(c[i]) - ref[i]) * (double(c[i]) - ref[i]);
    norm += double(ref[i]) * ref[i];
  }
  return std::sqrt(diff / norm);
}

TEST(ElementBound, ToleranceIsTheDeterministicBoundForShortSumsAndProbabilisticAbove) {
  EXPECT_DOUBLE_EQ(element_tolerance(1), 1.01 * 2 * kFp32Unit);
  EXPECT_DOUBLE_EQ(element_tolerance(0), element_tolerance(1));
  EXPECT_DOUBLE_EQ(element_tolerance(64), 1.01 * 2 * kFp32Unit * 64);
  EXPECT_DOUBLE_EQ(element_tolerance(100), 1.01 * 2 * kFp32Unit * 100);  // K = lambda^2
  EXPECT_DOUBLE_EQ(element_tolerance(10000), 1.01 * 2 * kFp32Unit * 1000);
  for (std::int64_t k = 1; k < 20000; k = k * 3 + 1)
    EXPECT_LT(element_tolerance(k), element_tolerance(k * 3 + 1));
}

TEST(ElementBound, TwoSummationOrdersOfACorrectProductPass) {
  for (auto [m, n, k] : {std::tuple{64, 48, 1}, std::tuple{33, 65, 17}, std::tuple{16, 16, 4097}}) {
    const Product p = make_product(m, n, k);
    const ElementCheck r = check_elements(p.blocked.data(), p.sequential.data(), p.magnitude.data(),
                                          p.sequential.size(), element_tolerance(k));
    EXPECT_EQ(r.violations, 0u) << m << "x" << n << "x" << k << ": first " << r.first;
  }
}

TEST(ElementBound, OneWrongElementHiddenInTheNormIsCaught) {
  const int m = 512, n = 512, k = 256;
  Product p = make_product(m, n, k);
  const size_t planted = size_t(300) * n + 17;
  std::vector<float> c = p.blocked;
  c[planted] += 0.01f;  // far past this element's bound (about 1e-3), small for the norm
  EXPECT_LT(relative_frobenius(c, p.sequential), 1e-5) << "the norm should not see it";
  const ElementCheck r = check_elements(c.data(), p.sequential.data(), p.magnitude.data(), c.size(),
                                        element_tolerance(k));
  EXPECT_EQ(r.violations, 1u);
  EXPECT_EQ(r.first, planted);

  c = p.blocked;
  c[planted] = std::numeric_limits<float>::quiet_NaN();
  c[planted + 5] = std::numeric_limits<float>::infinity();
  const ElementCheck bad = check_elements(c.data(), p.sequential.data(), p.magnitude.data(),
                                          c.size(), element_tolerance(k));
  EXPECT_EQ(bad.violations, 2u);
  EXPECT_EQ(bad.first, planted);
}

// Each element in turn without its first 8 terms (what a kernel that skips one BK = 8 slab
// returns): the 8 terms sum to about N(0, 0.94^2) and the bound at K = 4096 is about 0.08, so
// about 93% are caught; the rest are exactly those whose 8 terms nearly cancel.
TEST(ElementBound, ADroppedSlabOfTermsIsCaughtUnlessItsTermsCancel) {
  const int m = 8, n = 8, k = 4096;
  const Product p = make_product(m, n, k);
  const double tol = element_tolerance(k);
  int caught = 0;
  for (int e = 0; e < m * n; ++e) {
    const int i = e / n, j = e % n;
    float partial = 0, dropped = 0;
    for (int x = 0; x < k; ++x) {
      const float t = p.a[size_t(i) * k + x] * p.b[size_t(x) * n + j];
      if (x < 8)
        dropped += t;
      else
        partial = std::fma(p.a[size_t(i) * k + x], p.b[size_t(x) * n + j], partial);
    }
    std::vector<float> c = p.blocked;
    c[size_t(e)] = partial;
    const ElementCheck r =
        check_elements(c.data(), p.sequential.data(), p.magnitude.data(), c.size(), tol);
    if (r.violations == 1 && r.first == size_t(e)) {
      ++caught;
    } else {
      EXPECT_EQ(r.violations, 0u);
      EXPECT_LT(std::fabs(dropped), 2 * tol * p.magnitude[size_t(e)]) << "element " << e;
    }
  }
  EXPECT_GE(caught, 56) << "of 64";
}

}  // namespace
}  // namespace occtune
