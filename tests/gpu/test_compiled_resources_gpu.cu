// Registers from the compiled code (issue #13) on a real GPU: for every configuration of the
// example families and every test kernel of tests/support/compiled_kernels.cu, what offline
// planning reads from this program's cubin for the device's architecture must be what the CUDA
// runtime reports for the same function (cudaFuncGetAttributes).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autotuner/core/compiled_resources.hpp"
#include "examples/reduction/reduction.cuh"
#include "examples/stencil5/stencil5.cuh"
#include "examples/tiled_matmul/tiled_matmul.cuh"
#include "tests/support/compiled_kernels.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

TEST(CompiledResourcesGpu, OfflineReadingMatchesCudaFuncGetAttributes) {
  OCCTUNE_REQUIRE_GPU();
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  const int arch = prop.major * 10 + prop.minor;
  std::vector<ProbeKernel> kernels;
  for (const auto& family : {stencil5::family(), reduction::family(), tiled_matmul::family()})
    for (std::size_t c = 0; c < family.configs.size(); ++c)
      kernels.push_back({family.name + "#" + std::to_string(c), family.configs[c].function});
  for (auto list : {probe_kernels_default(), probe_kernels_none(), probe_kernels_zstd(),
                    probe_kernels_lz4()})
    kernels.insert(kernels.end(), list.begin(), list.end());
  for (const auto& k : kernels) {
    SCOPED_TRACE(k.name + " on sm_" + std::to_string(arch));
    ASSERT_NE(k.function, nullptr);
    cudaFuncAttributes attr{};
    ASSERT_EQ(cudaFuncGetAttributes(&attr, k.function), cudaSuccess);
    const CompiledLookup found = compiled_resources(k.function, arch);
    ASSERT_TRUE(found.resources) << found.why;
    EXPECT_EQ(found.resources->registers, attr.numRegs) << found.mangled;
    EXPECT_EQ(found.resources->static_smem, int(attr.sharedSizeBytes)) << found.mangled;
    EXPECT_EQ(found.cubin_arch, attr.binaryVersion) << found.mangled;
  }
}

}  // namespace
}  // namespace occtune
