// A block reduction (the sum of n floats) registered as an occtune kernel family: each thread
// adds `ept` elements (elements per thread, the tuned parameter), the block reduces its
// threads' sums in threads * 4 bytes of dynamic shared memory, writes one partial sum into the
// configuration's workspace, and one block of a second kernel adds the partial sums. The block (a power of two, 1D) comes from the
// occupancy API. Shared by the tuning harness (tuner.cu) and the application (app.cu).
#pragma once

#include <occtune/kernel.hpp>
#include <occtune/launch.cuh>

#include <cstddef>
#include <vector>

namespace reduction {

template <int EPT>
__global__ void block_sum(const float* __restrict__ x, float* __restrict__ partial, long long n) {
  extern __shared__ float sums[];
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x * EPT + threadIdx.x;
  float v = 0.0f;
  for (int e = 0; e < EPT; ++e) {
    const long long i = base + static_cast<long long>(e) * blockDim.x;
    if (i < n) v += x[i];
  }
  sums[threadIdx.x] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {  // blockDim: a power of two
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

// One block of 1024 threads adds `count` partial sums into out[0].
__global__ void finish_sum(const float* __restrict__ partial, float* __restrict__ out,
                           long long count) {
  __shared__ float sums[1024];
  float v = 0.0f;
  for (long long i = threadIdx.x; i < count; i += blockDim.x) v += partial[i];
  sums[threadIdx.x] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sums[0];
}

constexpr int kMinThreads = 32;

// Inputs in [0, 1): every partial sum is positive, so float's error is bounded relative to the
// sum: pairwise (tree) summation of n terms, each thread adding `ept` first, errs by at most
// about (log2(n) + ept) * 2^-24 relative, 2.5e-6 for n = 2^26 and ept = 16. The tolerance, 4e-6,
// is above that and below what one missing block of 32 elements costs up to n = 2^22 (7.6e-6).
constexpr double kTolerance = 4e-6;

inline double reference_sum(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += v;
  return s;
}

inline occtune::KernelFamily family() {
  occtune::KernelFamily f;
  f.name = "reduction";
  f.version = "1";
  f.description = "sum of n floats: block reduction in shared memory, then one finishing block";
  f.dims = {"n"};
  // registers: `nvcc -arch=sm_90 --resource-usage`, for `plan --profile` only.
  f.configs = {{{{"ept", 1}}, occtune::kernel_function(&block_sum<1>), {}, 12, 0},
               {{{"ept", 4}}, occtune::kernel_function(&block_sum<4>), {}, 21, 0},
               {{{"ept", 16}}, occtune::kernel_function(&block_sum<16>), {}, 31, 0}};
  f.block_rule = occtune::BlockRule::kLinear;
  f.min_threads = kMinThreads;
  f.smem = [](occtune::Block b, const occtune::KernelConfig&) {
    return std::size_t(b.threads()) * sizeof(float);
  };
  f.grid = [](const occtune::Dims& p, const occtune::KernelConfig& c, occtune::Block b) {
    const std::int64_t per_block = b.x * c.param("ept");
    return occtune::Grid{(p["n"] + per_block - 1) / per_block, 1, 1};
  };
  f.buffers = [](const occtune::Dims& p) {
    return std::vector<occtune::Buffer>{
        {"x", std::size_t(p["n"]), occtune::Buffer::Role::kInput, 0.0f, 1.0f},
        {"sum", 1, occtune::Buffer::Role::kOutput}};
  };
  // One partial sum per block: as many as this configuration's grid has, so the workspace is
  // the configuration's (occtune allocates it; the application passes only x and sum).
  f.workspace = [grid = f.grid](const occtune::Dims& p, const occtune::KernelConfig& c,
                                occtune::Block b) {
    return std::size_t(grid(p, c, b).x) * sizeof(float);
  };
  f.launch = [](const occtune::LaunchArgs& a) {
    float* partial = static_cast<float*>(a.workspace);
    const int err = occtune::launch_kernel(a, static_cast<const float*>(a.buffers[0]), partial,
                                           static_cast<long long>((*a.problem)["n"]));
    if (err != 0) return err;
    finish_sum<<<1, 1024, 0, static_cast<cudaStream_t>(a.stream)>>>(
        partial, a.buffers[1], static_cast<long long>(a.grid.x));
    return int(cudaGetLastError());
  };
  f.reference = [](const occtune::Dims&, std::vector<std::vector<float>>& host) {
    host[1][0] = float(reference_sum(host[0]));
  };
  f.compare = {occtune::Comparison::Norm::kRelativeFrobenius, kTolerance};
  f.flops = [](const occtune::Dims& p) { return double(p["n"]); };
  f.bytes = [](const occtune::Dims& p) { return double(p["n"]) * sizeof(float); };  // read once
  f.cuda = occtune::cuda_hooks();
  return f;
}

}  // namespace reduction
