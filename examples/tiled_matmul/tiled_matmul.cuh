// The textbook tiled matmul, C[m x n] = A[m x k] B[k x n] row-major, as a user writes it: one
// kernel whose square tile is its block (TW = blockDim.x), A and B tiles staged in 2 TW^2
// floats of dynamic shared memory. Registered as an occtune kernel family, the textbook
// occupancy method picks the tile (square blocks of 4^k threads) and measurement picks among
// its answers. Shared by the tuning harness (tuner.cu) and the application (app.cu).
#pragma once

#include <occtune/kernel.hpp>
#include <occtune/launch.cuh>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tiled_matmul {

__global__ void matmul(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int m, int n, int k) {
  extern __shared__ float smem[];
  const int tw = blockDim.x;
  float* as = smem;
  float* bs = smem + tw * tw;
  const int row = blockIdx.y * tw + threadIdx.y, col = blockIdx.x * tw + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += tw) {
    as[threadIdx.y * tw + threadIdx.x] =
        row < m && t + threadIdx.x < k ? a[std::size_t(row) * k + t + threadIdx.x] : 0.0f;
    bs[threadIdx.y * tw + threadIdx.x] =
        col < n && t + threadIdx.y < k ? b[std::size_t(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < tw; ++i) acc += as[threadIdx.y * tw + i] * bs[i * tw + threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[std::size_t(row) * n + col] = acc;
}

// C = A B on the host, accumulated in double.
inline void reference(int m, int n, int k, const std::vector<float>& a,
                      const std::vector<float>& b, std::vector<float>& c) {
  std::vector<double> row(static_cast<std::size_t>(n));
  for (int i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int p = 0; p < k; ++p) {
      const double aip = a[std::size_t(i) * k + p];
      const float* bp = &b[std::size_t(p) * n];
      for (int j = 0; j < n; ++j) row[std::size_t(j)] += aip * bp[j];
    }
    for (int j = 0; j < n; ++j) c[std::size_t(i) * n + j] = float(row[std::size_t(j)]);
  }
}

inline occtune::KernelFamily family() {
  occtune::KernelFamily f;
  f.name = "tiled_matmul";
  f.version = "1";
  f.description = "textbook tiled matmul, run-time square tile, dynamic shared memory";
  f.dims = {"m", "n", "k"};
  // One configuration; registers: `nvcc -arch=sm_90 --resource-usage` (for `plan --profile`).
  f.configs = {{{}, occtune::kernel_function(&matmul), {}, 32, 0}};
  f.block_rule = occtune::BlockRule::kSquare;
  f.min_threads = 16;  // 4x4 tiles and up
  f.smem = [](occtune::Block b, const occtune::KernelConfig&) {
    return 2 * std::size_t(b.threads()) * sizeof(float);
  };
  f.grid = [](const occtune::Dims& p, const occtune::KernelConfig&, occtune::Block b) {
    return occtune::Grid{(p["n"] + b.x - 1) / b.x, (p["m"] + b.y - 1) / b.y, 1};
  };
  f.buffers = [](const occtune::Dims& p) {
    const auto m = std::size_t(p["m"]), n = std::size_t(p["n"]), k = std::size_t(p["k"]);
    return std::vector<occtune::Buffer>{{"a", m * k, occtune::Buffer::Role::kInput},
                                        {"b", k * n, occtune::Buffer::Role::kInput},
                                        {"c", m * n, occtune::Buffer::Role::kOutput}};
  };
  f.launch = [](const occtune::LaunchArgs& a) {
    const occtune::Dims& p = *a.problem;
    return occtune::launch_kernel(a, static_cast<const float*>(a.buffers[0]),
                                  static_cast<const float*>(a.buffers[1]), a.buffers[2],
                                  int(p["m"]), int(p["n"]), int(p["k"]));
  };
  f.reference = [](const occtune::Dims& p, std::vector<std::vector<float>>& host) {
    reference(int(p["m"]), int(p["n"]), int(p["k"]), host[0], host[1], host[2]);
  };
  f.compare = {occtune::Comparison::Norm::kRelativeFrobenius, 1e-5};
  f.flops = [](const occtune::Dims& p) {
    return 2.0 * double(p["m"]) * double(p["n"]) * double(p["k"]);
  };
  f.cuda = occtune::cuda_hooks();
  return f;
}

}  // namespace tiled_matmul
