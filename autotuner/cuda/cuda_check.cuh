// One CUDA check that throws occtune::Error(kRuntime) with the error's name, text and the
// failing call, and a no-throw twin for destructors (nvbench's pattern).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "autotuner/core/error.hpp"

namespace occtune::cuda {

inline std::string describe(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + std::to_string(int(err)) + "): " +
         cudaGetErrorString(err);
}

[[noreturn]] inline void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  throw Error(ExitCode::kRuntime, std::string("CUDA error ") + describe(err) + " in " + call +
                                      " (" + file + ":" + std::to_string(line) + ")");
}

[[noreturn]] inline void throw_cublas(cublasStatus_t status, const char* call) {
  throw Error(ExitCode::kRuntime, std::string("cuBLAS error ") + cublasGetStatusName(status) +
                                      ": " + cublasGetStatusString(status) + " in " + call);
}

}  // namespace occtune::cuda

#define OCCTUNE_CUDA_CHECK(call)                                              \
  do {                                                                        \
    cudaError_t occtune_err_ = (call);                                        \
    if (occtune_err_ != cudaSuccess)                                          \
      ::occtune::cuda::throw_cuda(occtune_err_, #call, __FILE__, __LINE__);  \
  } while (0)

#define OCCTUNE_CUDA_CHECK_NOTHROW(call)                                                   \
  do {                                                                                     \
    cudaError_t occtune_err_ = (call);                                                     \
    if (occtune_err_ != cudaSuccess)                                                       \
      std::fprintf(stderr, "occtune: warning: %s failed: %s\n", #call,                     \
                   ::occtune::cuda::describe(occtune_err_).c_str());                       \
  } while (0)

#define OCCTUNE_CUBLAS_CHECK(call)                                        \
  do {                                                                    \
    cublasStatus_t occtune_status_ = (call);                              \
    if (occtune_status_ != CUBLAS_STATUS_SUCCESS)                         \
      ::occtune::cuda::throw_cublas(occtune_status_, #call);              \
  } while (0)
