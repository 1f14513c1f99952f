// The application side of a source kernel: occtune::SourceKernel reads stencil.toml, looks up the
// configuration `occtune tune --config stencil.toml` measured best for this GPU and problem (the
// store at OCCTUNE_DB, else the default path), takes its CUBIN from the kernel cache (NVRTC
// compiles it on a miss), launches it and checks the result against a host reference.
// Usage: source_kernel_app [NX NY [JOB]]; exit 0 when the result matches, 1 when not, 2 bad
// input, 4 on a CUDA error.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <occtune/source_kernel.hpp>
#include <random>
#include <vector>

#include "stencil_coefficients.cuh"

namespace {

int cuda_failed(const char* what, cudaError_t err) {
  std::fprintf(stderr, "source_kernel_app: %s: %s\n", what, cudaGetErrorString(err));
  return 4;
}

// What stencil2d_reference computes, on the host: zero outside the grid.
void reference(int nx, int ny, const std::vector<float>& in, std::vector<float>& out) {
  auto at = [&](int x, int y) {
    return x >= 0 && x < nx && y >= 0 && y < ny ? in[std::size_t(y) * nx + x] : 0.0f;
  };
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      out[std::size_t(y) * nx + x] =
          STENCIL_CENTRE * at(x, y) +
          STENCIL_SIDE * (at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1));
}

}  // namespace

int main(int argc, char** argv) {
  const int nx = argc > 2 ? std::atoi(argv[1]) : 2048, ny = argc > 2 ? std::atoi(argv[2]) : 2048;
  const char* job = argc > 3 ? argv[3] : OCCTUNE_EXAMPLE_JOB;
  if (nx < 1 || ny < 1) {
    std::fprintf(stderr, "source_kernel_app: NX and NY must be positive integers\n");
    return 2;
  }
  // Reading the job needs no GPU: a bad job file is exit 2 wherever this runs.
  std::unique_ptr<occtune::SourceKernel> stencil;
  try {
    stencil = std::make_unique<occtune::SourceKernel>(job, "stencil2d");
  } catch (const occtune::Error& e) {
    std::fprintf(stderr, "source_kernel_app: %s\n", e.what());
    return int(e.code());
  }
  const occtune::Dims problem{{{"nx", nx}, {"ny", ny}}};
  const std::size_t n = std::size_t(nx) * std::size_t(ny);
  std::vector<float> in(n), out(n), expected(n);
  std::mt19937 rng(14);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& v : in) v = uniform(rng);

  float *d_in = nullptr, *d_out = nullptr;
  if (auto e = cudaMalloc(&d_in, n * sizeof(float)); e != cudaSuccess)
    return cuda_failed("cudaMalloc", e);
  if (auto e = cudaMalloc(&d_out, n * sizeof(float)); e != cudaSuccess)
    return cuda_failed("cudaMalloc", e);
  if (auto e = cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
      e != cudaSuccess)
    return cuda_failed("cudaMemcpy", e);
  try {
    const occtune::LaunchChoice choice = stencil->prepare(problem);
    std::printf("stencil2d %s: %s, block %dx%d, grid %lldx%lld, %zu B shared memory, %s\n",
                problem.str().c_str(), choice.variant.c_str(), choice.block.x, choice.block.y,
                static_cast<long long>(choice.grid.x), static_cast<long long>(choice.grid.y),
                choice.dynamic_smem, choice.how.c_str());
    stencil->launch(problem, {d_in, d_out});  // nx and ny (scalars) come from the problem
  } catch (const occtune::Error& e) {
    std::fprintf(stderr, "source_kernel_app: %s\n", e.what());
    return int(e.code());
  }
  if (auto e = cudaDeviceSynchronize(); e != cudaSuccess) return cuda_failed("the stencil", e);
  if (auto e = cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
      e != cudaSuccess)
    return cuda_failed("cudaMemcpy", e);
  reference(nx, ny, in, expected);
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
