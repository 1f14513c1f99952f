// The device tests launch every registered variant; a variant the applicability rule rules out
// (kernels/applicability.hpp: the TMA family off sm_90 or on operands TMA cannot address) is
// skipped through that same rule, never by name, so a test skips exactly what planning rejects.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/applicability.hpp"
#include "kernels/gemm_entry.cuh"

namespace occtune::test_support {

// The current device's compute capability (major * 10 + minor); 0 without one.
inline int current_compute_capability() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return major * 10 + minor;
}

inline bool runs_here(const kernels::VariantInfo& v, const kernels::OperandLayout& operands) {
  return kernels::arch_violation(v, current_compute_capability()).empty() &&
         kernels::operand_violation(v, operands).empty();
}

inline bool runs_here(const kernels::VariantInfo& v, const kernels::GemmArgs& a) {
  return runs_here(v, {a.lda, a.ldb, a.ldc, reinterpret_cast<std::uintptr_t>(a.a),
                       reinterpret_cast<std::uintptr_t>(a.b),
                       reinterpret_cast<std::uintptr_t>(a.c)});
}

}  // namespace occtune::test_support
