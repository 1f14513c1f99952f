// Lab (issue #18): which kernels cuBLAS SGEMM launches for a shape, and how long each takes, so
// occtune's families can be compared with cuBLAS's choice (tile, split-K, stream-K) on the
// shapes where they lose. Run under `ncu --clock-control none --metrics gpu__time_duration.sum`
// for the kernel names; without ncu it prints cuBLAS's median time per shape (CUDA events, L2
// flushed before every sample).
// Build (from the repository root): nvcc -O3 -arch=sm_90 -I. lab/cublas_probe.cu -lcublas
//   -o cublas_probe
// Usage: cublas_probe [--reps N] MxNxK...
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "lab_support.cuh"

int main(int argc, char** argv) {
  int reps = 20;
  std::vector<int> dims;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
      continue;
    }
    int m, n, k;
    if (std::sscanf(argv[i], "%dx%dx%d", &m, &n, &k) != 3) {
      std::fprintf(stderr, "bad shape '%s' (MxNxK)\n", argv[i]);
      return 2;
    }
    dims.insert(dims.end(), {m, n, k});
  }
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 4;
  cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);  // fp32 FMA, no TF32
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  float* flush;
  CK(cudaMalloc(&flush, size_t(l2) * 2));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (size_t s = 0; s < dims.size(); s += 3) {
    const int m = dims[s], n = dims[s + 1], k = dims[s + 2];
    float *a, *b, *c;
    CK(cudaMalloc(&a, size_t(m) * k * 4));
    CK(cudaMalloc(&b, size_t(k) * n * 4));
    CK(cudaMalloc(&c, size_t(m) * n * 4));
    fill<<<1024, 256>>>(a, size_t(m) * k, 1);
    fill<<<1024, 256>>>(b, size_t(k) * n, 2);
    const float one = 1, zero = 0;
    std::vector<float> ms;
    for (int r = 0; r < reps + 3; ++r) {
      CK(cudaMemsetAsync(flush, r, size_t(l2) * 2));
      CK(cudaEventRecord(e0));
      // Row-major C = A B is column-major C^T = B^T A^T.
      if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n) !=
          CUBLAS_STATUS_SUCCESS)
        return 4;
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float t;
      CK(cudaEventElapsedTime(&t, e0, e1));
      if (r >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    std::printf("%dx%dx%d cublas median %.4f ms  %.1f TFLOP/s\n", m, n, k, med,
                2.0 * m * n * k / med / 1e9);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
  }
  return 0;
}
