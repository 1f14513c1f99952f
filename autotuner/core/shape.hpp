// A GEMM problem shape, written MxNxK: C[M x N] = A[M x K] * B[K x N], row-major.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace occtune {

struct Shape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;

  std::string str() const;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // Bytes of A, B and C in the given element size (no overflow: parse_shape bounds each side).
  std::uint64_t operand_bytes(std::uint64_t element_size) const;
  // Spelt out: this header is also compiled as C++17 by nvcc (no defaulted comparisons).
  friend bool operator==(const Shape& a, const Shape& b) {
    return a.m == b.m && a.n == b.n && a.k == b.k;
  }
};

// Largest side accepted: indices are 32-bit ints in the kernels.
inline constexpr std::int64_t kMaxShapeSide = 2147483647;

// Parses "MxNxK" (also "MXNXK"); throws Error(kUsage) naming the value and the fix.
Shape parse_shape(std::string_view text);

}  // namespace occtune
