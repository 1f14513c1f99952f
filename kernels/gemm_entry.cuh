// The one generic entry point every GEMM variant is launched through: a kernel template over a
// variant type with compile-time traits. Dynamic shared memory is declared here once
// (extern __shared__) and handed to the variant, which carves it up as it needs.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "autotuner/core/layout.hpp"

namespace occtune::kernels {

// Row-major C[M x N] = alpha * op(A)[M x K] * op(B)[K x N] + beta * C with leading dimensions
// (elements per stored row); op is the variant's layout (autotuner/core/layout.hpp).
struct GemmArgs {
  const float* a;
  const float* b;
  float* c;
  int m, n, k;
  int lda, ldb, ldc;
  // Scratch memory of variants that need it (split-K partial sums); VariantInfo says how much.
  float* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  // BLAS semantics: with beta == 0, C is never read (it may hold NaN or be uninitialised).
  float alpha = 1.0f;
  float beta = 0.0f;
};

// A load of an input the kernel never writes: through the read-only (non-coherent) data path on
// the device, a plain load in the host emulator (tests/support/kernel_emulator.hpp).
__device__ __forceinline__ float load_readonly(const float* p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

// The epilogue of one output: alpha * acc, plus beta * C when beta != 0 (only then is c read).
__device__ __forceinline__ float scale_output(float acc, const float* c, float alpha,
                                              float beta) {
  return beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
}

// __launch_bounds__ minimum blocks per SM: a variant may steer the register allocation with
// kMinBlocksPerSm; without it the bound is the thread count alone.
template <class Variant, class = void>
struct MinBlocksPerSm : std::integral_constant<int, 0> {};
template <class Variant>
struct MinBlocksPerSm<Variant, std::void_t<decltype(Variant::kMinBlocksPerSm)>>
    : std::integral_constant<int, Variant::kMinBlocksPerSm> {};

// The layouts of a variant (autotuner/core/layout.hpp). A family's implementation takes the
// layout as its first template parameter and names itself for any other layout as
// `template <Layout L> using In`; the nn variant keeps its plain name (RegBlocked<...>, the
// symbol stored since before layouts existed) and the others are these wrappers around it:
// NT<RegBlocked<...>> is RegBlocked<...>'s tile with op(B) = T.
template <class Variant>
struct NT : Variant::template In<Layout::kNT> {};
template <class Variant>
struct TN : Variant::template In<Layout::kTN> {};
template <class Variant>
struct TT : Variant::template In<Layout::kTT> {};

// Only nvcc sees the kernel: the variant traits themselves are plain C++ so the unit tests can
// run them in a host emulator (tests/support/kernel_emulator.hpp).
#ifdef __CUDACC__
template <class Variant>
__global__ void __launch_bounds__(Variant::kMaxThreads, MinBlocksPerSm<Variant>::value)
    gemm_entry(GemmArgs args) {
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  Variant::run(args, dynamic_smem);
}
#endif

}  // namespace occtune::kernels
