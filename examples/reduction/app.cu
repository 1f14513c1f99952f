// The application: sums n floats with the tuned reduction configuration (occtune::launch) and
// checks the sum against the host's, in double, within the family's tolerance.
// Usage: reduction_app [N]; exit 0 when the sum matches, 1 when not, 4 on a CUDA error.
#include <cuda_runtime.h>
#include <occtune/launch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "reduction.cuh"

int main(int argc, char** argv) {
  occtune::register_family(reduction::family());
  const long long n = argc > 1 ? std::atoll(argv[1]) : 1 << 22;
  const occtune::Dims problem{{{"n", n}}};
  std::vector<float> x(static_cast<std::size_t>(n));
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (auto& v : x) v = uniform(rng);
  float *d_x = nullptr, *d_sum = nullptr;  // the partial sums are the configuration's workspace
  if (cudaMalloc(&d_x, x.size() * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&d_sum, sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "reduction_app: cudaMalloc failed\n");
    return 4;
  }
  cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
  try {
    const occtune::LaunchChoice c = occtune::launch_prepare("reduction", problem);
    std::printf("reduction %s: %s, %d threads, %lld blocks, %zu B shared memory, %zu B "
                "workspace, %s\n",
                problem.str().c_str(), c.variant.c_str(), c.block.threads(),
                static_cast<long long>(c.grid.x), c.dynamic_smem, c.workspace_bytes,
                c.how.c_str());
    occtune::launch("reduction", problem, {d_x, d_sum});
  } catch (const occtune::Error& e) {
    std::fprintf(stderr, "reduction_app: %s\n", e.what());
    return int(e.code());
  }
  float sum = 0;
  if (const cudaError_t e = cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    std::fprintf(stderr, "reduction_app: %s\n", cudaGetErrorString(e));
    return 4;
  }
  const double expected = reduction::reference_sum(x);
  const double rel = std::fabs(double(sum) - expected) / expected;
  std::printf("sum %.8g, host %.8g, relative error %.3g (%s)\n", double(sum), expected, rel,
              rel <= reduction::kTolerance ? "ok" : "WRONG");
  cudaFree(d_x);
  cudaFree(d_sum);
  return rel <= reduction::kTolerance ? 0 : 1;
}
