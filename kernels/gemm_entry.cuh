// The one generic entry point every GEMM variant is launched through: a kernel template over a
// variant type with compile-time traits. Dynamic shared memory is declared here once
// (extern __shared__) and handed to the variant, which carves it up as it needs.
#pragma once

#include <cuda_runtime.h>

namespace occtune::kernels {

// Row-major C[M x N] = A[M x K] * B[K x N] with leading dimensions (elements per row).
struct GemmArgs {
  const float* a;
  const float* b;
  float* c;
  int m, n, k;
  int lda, ldb, ldc;
};

template <class Variant>
__global__ void __launch_bounds__(Variant::kMaxThreads) gemm_entry(GemmArgs args) {
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  Variant::run(args, dynamic_smem);
}

}  // namespace occtune::kernels
