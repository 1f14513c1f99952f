// Kernels of different register pressure, shared memory and barrier counts for the offline
// reading of a program's compiled code (tests/unit/test_compiled_resources.cpp). Compiled once
// per fatbin compression mode, each time in its own namespace (PROBE_NS) so that the test's
// program holds every mode's cubins side by side; ptxas's report of the same compilation is the
// expectation (tests/CMakeLists.txt).
#include "tests/support/compiled_kernels.hpp"

namespace PROBE_NS {

__global__ void light(float* a) { a[threadIdx.x] += 1.0f; }

// N values live at once: the register count grows with N.
template <int N>
__global__ void heavy(float* a, const float* b) {
  float acc[N];
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = b[threadIdx.x + i * 1024];
  float s = 0;
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int j = 0; j < N; ++j) s += acc[i] * acc[(i + j) % N];
  a[threadIdx.x] = s;
}

__global__ void tiled(float* a) {
  __shared__ float tile[512];
  __shared__ double extra[3];
  tile[threadIdx.x] = a[threadIdx.x];
  extra[threadIdx.x % 3] = 1.0;
  __syncthreads();
  a[threadIdx.x] = tile[511 - threadIdx.x] + float(extra[1]);
}

// Named barrier 3 besides __syncthreads' barrier 0: ptxas counts four.
__global__ void named_barriers(float* a) {
  __shared__ float t[256];
  t[threadIdx.x] = a[threadIdx.x];
  asm volatile("bar.sync 3, 128;");
  __syncthreads();
  a[threadIdx.x] = t[255 - threadIdx.x];
}

}  // namespace PROBE_NS

std::vector<ProbeKernel> PROBE_LIST() {
  return {{"light", reinterpret_cast<const void*>(&PROBE_NS::light)},
          {"heavy<4>", reinterpret_cast<const void*>(&PROBE_NS::heavy<4>)},
          {"heavy<40>", reinterpret_cast<const void*>(&PROBE_NS::heavy<40>)},
          {"tiled", reinterpret_cast<const void*>(&PROBE_NS::tiled)},
          {"named_barriers", reinterpret_cast<const void*>(&PROBE_NS::named_barriers)}};
}
