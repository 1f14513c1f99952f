// occtune::sgemm: single-precision GEMM with the configuration tuned for this GPU, BLAS-style:
//   C = alpha * op(A) * op(B) + beta * C,  C m x n, op(A) m x k, op(B) k x n,
// all matrices row-major or all column-major, each op N or T, with leading dimensions and a
// stream. The configuration for (device, layout, m, n, k) is looked up once (occtune::Cache, the
// store at OCCTUNE_DB or the default path) and then kept in memory; later calls with the same
// shape only launch. C++17; needs no CUDA header (cudaStream_t is declared as the runtime does).
#pragma once

#include <cstdint>
#include <string>

#include "occtune/error.hpp"
#include "occtune/layout.hpp"

typedef struct CUstream_st* cudaStream_t;  // as in CUDA's driver_types.h

namespace occtune {

// What a call does when the store has no measured configuration for its shape on this device
// (set in code, or by OCCTUNE_TUNE=off|on_miss before the first call).
enum class TunePolicy {
  kOff,     // launch what the lookup chain answers (another device or shape, or the heuristic)
  kOnMiss,  // tune that shape now (at most OCCTUNE_TUNE_BUDGET_MS, default 2000), store it,
            // then launch the winner; the store must be writable
};
void set_tune_policy(TunePolicy policy);
TunePolicy tune_policy();

// Launches asynchronously on `stream` on the current device (cudaSetDevice) and returns;
// errors of the kernel itself surface at the next synchronisation, as with cuBLAS.
// Thread-safe. On the cached path (a shape already resolved on this device) it allocates
// nothing and never synchronises, so it may be captured into a CUDA graph; resolve a shape
// once before capturing (a first call, or occtune::sgemm_prepare).
// Throws Error(kUsage) for bad arguments, naming the value: a null pointer, a negative or
// over-large (above 2^31-1) dimension, a leading dimension smaller than its row; nothing is
// launched then. Throws Error(kNotFound) for a store of a newer schema, Error(kRuntime) for a
// CUDA error at launch (the message names the configuration).
void sgemm(Major major, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc, cudaStream_t stream = nullptr);

// Resolves the configuration of a shape on the current device without launching anything
// (with TunePolicy::kOnMiss this may tune). Returns a one-line description of what will be
// launched and how it was chosen.
std::string sgemm_prepare(Major major, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                          std::int64_t k);

}  // namespace occtune
