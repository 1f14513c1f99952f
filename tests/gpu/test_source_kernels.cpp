// Source kernels on the GPU (issue #14): every configuration of examples/source_kernel,
// compiled with NVRTC for the device's architecture, loads through the runtime's library API,
// and the runtime agrees with what occtune read from the compiled code (registers, static shared
// memory) and with the occupancy twin fed by those numbers; each configuration's output equals
// the reference kernel's on a problem with ragged edges.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/source/configurations.hpp"
#include "autotuner/source/source_compiler.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune::source {
namespace {

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << #x

struct Loaded {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  ~Loaded() {
    if (library) cudaLibraryUnload(library);
  }
};

void load(const CompiledProgram& p, Loaded& out) {
  ASSERT_EQ(p.status, CompileStatus::kOk) << p.log_head;
  CUDA_OK(
      cudaLibraryLoadData(&out.library, p.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUDA_OK(cudaLibraryGetKernel(&out.kernel, out.library, p.kernels[0].lowered_name.c_str()));
}

void launch(const Loaded& k, const LaunchGeometry& g, const float* in, float* out, int nx, int ny) {
  void* args[] = {&in, &out, &nx, &ny};
  const dim3 grid(unsigned(g.grid[0]), unsigned(g.grid[1]), unsigned(g.grid[2]));
  const dim3 block(unsigned(g.block[0]), unsigned(g.block[1]), unsigned(g.block[2]));
  CUDA_OK(cudaLaunchKernel(reinterpret_cast<const void*>(k.kernel), grid, block, args,
                           std::size_t(g.smem), nullptr));
  CUDA_OK(cudaDeviceSynchronize());
}

TEST(SourceKernelsGpu, EveryConfigurationLoadsAgreesAndMatchesTheReference) {
  OCCTUNE_REQUIRE_GPU();
  const DeviceInfo device = cuda::select_device("0");
  SourceKernel k = load_source_job(std::filesystem::path(OCCTUNE_SOURCE_DIR) /
                                   "examples/source_kernel/stencil.toml")
                       .kernels[0];
  // Not a multiple of any block: every configuration's edge handling runs.
  const int nx = 1000, ny = 777;
  k.problem = {{"nx", nx}, {"ny", ny}};
  const std::vector<Configuration> configs = enumerate_configurations(k);
  ASSERT_GE(configs.size(), 100u);

  const std::string source = read_source(k);
  SourceCompiler compiler{std::nullopt};
  std::vector<CompileRequest> requests;
  for (auto& c : configs) requests.push_back(configuration_request(k, source, c, device.arch()));
  requests.push_back(reference_request(k, source, device.arch()));
  const std::vector<CompileOutcome> compiled = compiler.compile_all(requests);

  const std::size_t n = std::size_t(nx) * ny;
  std::vector<float> host(n);
  std::mt19937 rng(14);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& x : host) x = uniform(rng);
  float *in = nullptr, *out = nullptr, *expected = nullptr;
  CUDA_OK(cudaMalloc(&in, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&out, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&expected, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  Loaded reference;
  load(compiled.back().program, reference);
  launch(reference, evaluate_launch(k.reference.launch, k.problem_bindings(), ""), in, expected, nx,
         ny);
  std::vector<float> want(n), got(n);
  CUDA_OK(cudaMemcpy(want.data(), expected, n * sizeof(float), cudaMemcpyDeviceToHost));

  for (std::size_t i = 0; i < configs.size(); ++i) {
    SCOPED_TRACE(configs[i].label());
    const CompiledProgram& p = compiled[i].program;
    Loaded kernel;
    load(p, kernel);
    if (HasFatalFailure()) return;
    cudaFuncAttributes attr{};
    CUDA_OK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel.kernel)));
    EXPECT_EQ(attr.numRegs, p.kernels[0].registers);
    EXPECT_EQ(int(attr.sharedSizeBytes), p.kernels[0].static_smem);

    const LaunchGeometry& g = configs[i].launch;
    int blocks = 0;
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, reinterpret_cast<const void*>(kernel.kernel), int(g.threads()),
        std::size_t(g.smem)));
    const OccupancyAnswer twin = OfflineOccupancy::compute(
        device, p.kernels[0].registers, p.kernels[0].static_smem, attr.maxThreadsPerBlock,
        p.kernels[0].barriers, int(g.threads()), std::size_t(g.smem));
    EXPECT_EQ(twin.active_blocks_per_sm, blocks);

    CUDA_OK(cudaMemset(out, 0xFF, n * sizeof(float)));  // NaN: an unwritten output fails
    launch(kernel, g, in, out, nx, ny);
    CUDA_OK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double d = double(got[j]) - double(want[j]);
      err += d * d;
      norm += double(want[j]) * double(want[j]);
    }
    const double relative = std::sqrt(err / norm);
    EXPECT_TRUE(relative <= k.reference.tolerance) << "relative error " << relative;
  }
  cudaFree(in);
  cudaFree(out);
  cudaFree(expected);
}

}  // namespace
}  // namespace occtune::source
