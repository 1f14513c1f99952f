// The application: launches the tuned stencil5 configuration for its problem through
// occtune::launch (the store at OCCTUNE_DB, else the default path; without an entry the
// occupancy API's answer on this GPU) and checks the result against the host reference.
// Usage: stencil5_app [NX NY]; exit 0 when the result matches, 1 when not, 4 on a CUDA error.
#include <cuda_runtime.h>
#include <occtune/launch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "stencil5.cuh"

namespace {

int cuda_failed(const char* what, cudaError_t err) {
  std::fprintf(stderr, "stencil5_app: %s: %s\n", what, cudaGetErrorString(err));
  return 4;
}

}  // namespace

int main(int argc, char** argv) {
  occtune::register_family(stencil5::family());
  const int nx = argc > 2 ? std::atoi(argv[1]) : 2048, ny = argc > 2 ? std::atoi(argv[2]) : 2048;
  const occtune::Dims problem{{{"nx", nx}, {"ny", ny}}};
  const std::size_t n = std::size_t(nx) * std::size_t(ny);
  std::vector<float> in(n), out(n), expected(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& v : in) v = uniform(rng);

  float *d_in = nullptr, *d_out = nullptr;
  if (auto e = cudaMalloc(&d_in, n * sizeof(float)); e != cudaSuccess) return cuda_failed("cudaMalloc", e);
  if (auto e = cudaMalloc(&d_out, n * sizeof(float)); e != cudaSuccess) return cuda_failed("cudaMalloc", e);
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  try {
    const occtune::LaunchChoice choice = occtune::launch_prepare("stencil5", problem);
    std::printf("stencil5 %s: %s, block %dx%d, grid %lldx%lld, %zu B shared memory, %s\n",
                problem.str().c_str(), choice.variant.c_str(), choice.block.x, choice.block.y,
                static_cast<long long>(choice.grid.x), static_cast<long long>(choice.grid.y),
                choice.dynamic_smem, choice.how.c_str());
    occtune::launch("stencil5", problem, {d_in, d_out});
  } catch (const occtune::Error& e) {
    std::fprintf(stderr, "stencil5_app: %s\n", e.what());
    return int(e.code());
  }
  if (auto e = cudaDeviceSynchronize(); e != cudaSuccess) return cuda_failed("the stencil", e);
  cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  stencil5::reference(nx, ny, in, expected);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < n; ++i) {
    diff += (double(out[i]) - expected[i]) * (double(out[i]) - expected[i]);
    norm += double(expected[i]) * expected[i];
  }
  const double rel = std::sqrt(diff / norm);
  std::printf("relative error against the host reference: %.3g (%s)\n", rel,
              rel <= 1e-6 ? "ok" : "WRONG");
  cudaFree(d_in);
  cudaFree(d_out);
  return rel <= 1e-6 ? 0 : 1;
}
