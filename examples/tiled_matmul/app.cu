// The application: multiplies two matrices with the tuned tile (occtune::launch) and checks the
// product against the host's, in double, by relative Frobenius error.
// Usage: tiled_matmul_app [M N K]; exit 0 when it matches, 1 when not, 4 on a CUDA error.
#include <cuda_runtime.h>
#include <occtune/launch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "tiled_matmul.cuh"

int main(int argc, char** argv) {
  occtune::register_family(tiled_matmul::family());
  const int m = argc > 3 ? std::atoi(argv[1]) : 1024, n = argc > 3 ? std::atoi(argv[2]) : 1024,
            k = argc > 3 ? std::atoi(argv[3]) : 1024;
  const occtune::Dims problem{{{"m", m}, {"n", n}, {"k", k}}};
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n),
      expected(c.size());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& v : a) v = uniform(rng);
  for (auto& v : b) v = uniform(rng);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  if (cudaMalloc(&d_a, a.size() * 4) != cudaSuccess || cudaMalloc(&d_b, b.size() * 4) != cudaSuccess ||
      cudaMalloc(&d_c, c.size() * 4) != cudaSuccess) {
    std::fprintf(stderr, "tiled_matmul_app: cudaMalloc failed\n");
    return 4;
  }
  cudaMemcpy(d_a, a.data(), a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  try {
    const occtune::LaunchChoice ch = occtune::launch_prepare("tiled_matmul", problem);
    std::printf("tiled_matmul %s: %s, block %dx%d, %zu B shared memory, %s\n",
                problem.str().c_str(), ch.variant.c_str(), ch.block.x, ch.block.y,
                ch.dynamic_smem, ch.how.c_str());
    occtune::launch("tiled_matmul", problem, {d_a, d_b, d_c});
  } catch (const occtune::Error& e) {
    std::fprintf(stderr, "tiled_matmul_app: %s\n", e.what());
    return int(e.code());
  }
  if (const cudaError_t e = cudaMemcpy(c.data(), d_c, c.size() * 4, cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    std::fprintf(stderr, "tiled_matmul_app: %s\n", cudaGetErrorString(e));
    return 4;
  }
  tiled_matmul::reference(m, n, k, a, b, expected);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    diff += (double(c[i]) - expected[i]) * (double(c[i]) - expected[i]);
    norm += double(expected[i]) * expected[i];
  }
  const double rel = std::sqrt(diff / norm);
  std::printf("relative error against the host reference: %.3g (%s)\n", rel,
              rel <= 1e-5 ? "ok" : "WRONG");
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  return rel <= 1e-5 ? 0 : 1;
}
