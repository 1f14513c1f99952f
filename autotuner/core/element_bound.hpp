// The element-wise correctness bound of a checked GEMM result (issue #18): every element must
// satisfy |c - ref| <= tol(K) * sum_k |a_ik * b_kj|, so a few wrong elements cannot hide in the
// relative Frobenius norm. Shared by the GPU check (autotuner/cuda/element_check.cu) and the
// CPU tests; C++17, no CUDA types. Why this tolerance: docs/architecture.md, "Issue #18".
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define OCCTUNE_HOST_DEVICE __host__ __device__
#else
#define OCCTUNE_HOST_DEVICE
#endif

namespace occtune {

// Unit roundoff of fp32 (round to nearest).
inline constexpr double kFp32Unit = 1.0 / 16777216.0;
// Higham and Mary's probabilistic bound holds with probability at least
// 1 - 2K exp(-lambda^2 / 2) per element: 6e-18 at K = 16384 with lambda = 10.
inline constexpr double kElementBoundLambda = 10.0;

// tol(K) for two independently rounded fp32 dot products of length K (the candidate's and
// cuBLAS's): 2u * min(K, lambda * sqrt(K)), with 1% slack for the rounding of the magnitude
// itself. Below K = lambda^2 the deterministic bound K*u of any summation order is the smaller.
inline double element_tolerance(std::int64_t k) {
  const double n = k > 1 ? double(k) : 1.0;
  const double terms = std::fmin(n, kElementBoundLambda * std::sqrt(n));
  return 1.01 * 2.0 * kFp32Unit * terms;
}

// True when c is within `tolerance` * magnitude of ref; false for NaN or infinity in c.
OCCTUNE_HOST_DEVICE inline bool within_element_bound(float c, float ref, float magnitude,
                                                     double tolerance) {
  double d = double(c) - double(ref);
  d = d < 0 ? -d : d;
  return d <= tolerance * double(magnitude);  // NaN compares false
}

// The host twin of the GPU check (tests, small outputs): how many elements break the bound and
// the first of them (count when none).
struct ElementCheck {
  std::size_t violations = 0;
  std::size_t first = 0;
};

inline ElementCheck check_elements(const float* c, const float* ref, const float* magnitude,
                                   std::size_t count, double tolerance) {
  ElementCheck r;
  r.first = count;
  for (std::size_t i = 0; i < count; ++i) {
    if (within_element_bound(c[i], ref[i], magnitude[i], tolerance)) continue;
    if (r.violations++ == 0) r.first = i;
  }
  return r;
}

}  // namespace occtune
