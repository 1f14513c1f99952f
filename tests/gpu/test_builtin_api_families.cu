// Issue #13 on the device: every built-in family as registered through the registration API
// (kernels/gemm_family.cuh), each configuration launched through the family's own
// KernelFamily::launch (with its shared memory, grid and workspace from the family's functions)
// and checked against the family's device_reference, and that reference against cuBLAS, in
// every layout, on odd shapes. (The engine measures them through ShapeBench and the registry's
// entries; this is the API side, known correct before the engine uses it.)
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "autotuner/core/layout.hpp"
#include "kernels/builtin_families.hpp"
#include "kernels/registry.hpp"
#include "tests/support/applicable.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

#define CHECK_CUDA(call) ASSERT_EQ(int(call), 0) << #call

double relative_frobenius(const std::vector<float>& out, const std::vector<float>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    diff += (double(out[i]) - ref[i]) * (double(out[i]) - ref[i]);
    norm += double(ref[i]) * ref[i];
  }
  return std::isnan(diff) ? INFINITY : std::sqrt(diff / norm);
}

// The registry's variant of a configuration: where the applicability rule's data lives.
const kernels::VariantInfo* variant_of(const KernelFamily& f, const KernelConfig& config) {
  for (const kernels::VariantInfo& v : kernels::variants())
    if (v.family == f.name && v.symbol == config.symbol) return &v;
  return nullptr;
}

void check_family(const KernelFamily& f) {
  // The aligned shapes (K and N multiples of 4) are the ones the TMA family runs on.
  const std::int64_t shapes[][3] = {
      {17, 33, 65}, {129, 65, 1000}, {1, 1, 1}, {129, 68, 1000}, {256, 512, 384}};
  for (const auto& s : shapes)
    for (const std::string mode : {"nn", "nt", "tn", "tt"}) {
      Dims problem;
      problem.values = {{"m", s[0]}, {"n", s[1]}, {"k", s[2]}};
      problem.mode = mode;
      const auto buffers = f.buffers(problem);
      ASSERT_EQ(buffers.size(), 3u);
      std::mt19937 rng(unsigned(s[0] * 7 + s[1] * 3 + s[2]));
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      std::vector<float*> device(4, nullptr);
      for (int i = 0; i < 2; ++i) {
        std::vector<float> host(buffers[std::size_t(i)].count);
        for (float& x : host) x = dist(rng);
        CHECK_CUDA(cudaMalloc(&device[std::size_t(i)], host.size() * sizeof(float)));
        CHECK_CUDA(cudaMemcpy(device[std::size_t(i)], host.data(), host.size() * sizeof(float),
                              cudaMemcpyHostToDevice));
      }
      const std::size_t c_count = buffers[2].count;
      CHECK_CUDA(cudaMalloc(&device[2], c_count * sizeof(float)));
      CHECK_CUDA(cudaMalloc(&device[3], c_count * sizeof(float)));
      auto download = [&](float* d) {
        std::vector<float> h(c_count);
        EXPECT_EQ(int(cudaMemcpy(h.data(), d, c_count * sizeof(float), cudaMemcpyDeviceToHost)),
                  0);
        return h;
      };
      ReferenceArgs r{&problem, nullptr, {device[0], device[1], device[3]}};
      ASSERT_EQ(f.device_reference(r), 0);
      const auto reference = download(device[3]);
      // The reference against cuBLAS on the same stored operands (row-major C = op(A) op(B) is
      // column-major C^T = op(B)^T op(A)^T).
      const Layout l = *parse_layout(mode);
      const int m = int(s[0]), n = int(s[1]), k = int(s[2]);
      const int lda = transposes_a(l) ? m : k, ldb = transposes_b(l) ? k : n;
      cublasHandle_t handle;
      ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
      const float one = 1, zero = 0;
      auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
      ASSERT_EQ(cublasSgemm(handle, op(transposes_b(l)), op(transposes_a(l)), n, m, k, &one,
                            device[1], ldb, device[0], lda, &zero, device[2], n),
                CUBLAS_STATUS_SUCCESS);
      cublasDestroy(handle);
      EXPECT_LE(relative_frobenius(download(device[2]), reference), f.compare.tolerance)
          << f.name << " reference vs cuBLAS, " << mode;
      for (const KernelConfig& config : f.configs) {
        if (config.mode != mode) continue;
        const kernels::VariantInfo* variant = variant_of(f, config);
        ASSERT_NE(variant, nullptr) << config.symbol;
        // Skipped exactly where planning rejects it (kernels/applicability.hpp).
        if (!test_support::runs_here(*variant, {lda, ldb, n,
                                                reinterpret_cast<std::uintptr_t>(device[0]),
                                                reinterpret_cast<std::uintptr_t>(device[1]),
                                                reinterpret_cast<std::uintptr_t>(device[2])}))
          continue;
        CHECK_CUDA(cudaMemset(device[2], 0xff, c_count * sizeof(float)));  // NaN
        LaunchArgs a;
        a.problem = &problem;
        a.config = &config;
        a.function = config.function;
        a.block = config.block;
        a.grid = f.grid(problem, config, config.block);
        a.dynamic_smem = f.smem(config.block, config);
        a.buffers = {device[0], device[1], device[2]};
        if (a.dynamic_smem > 48 * 1024)
          ASSERT_EQ(f.cuda.set_max_dynamic_smem(config.function, int(a.dynamic_smem)), 0)
              << config.symbol;
        a.workspace_bytes = f.workspace ? f.workspace(problem, config, config.block) : 0;
        if (a.workspace_bytes > 0) {
          CHECK_CUDA(cudaMalloc(&a.workspace, a.workspace_bytes));
          CHECK_CUDA(cudaMemset(a.workspace, 0xff, a.workspace_bytes));  // NaN, as while tuning
        }
        ASSERT_EQ(f.launch(a), 0) << config.symbol;
        CHECK_CUDA(cudaDeviceSynchronize());
        if (a.workspace) CHECK_CUDA(cudaFree(a.workspace));
        EXPECT_LE(relative_frobenius(download(device[2]), reference), f.compare.tolerance)
            << config.symbol << " at " << s[0] << "x" << s[1] << "x" << s[2];
      }
      for (float* d : device) cudaFree(d);
    }
}

TEST(BuiltinApiFamilies, EveryConfigurationOfEveryFamilyMatchesTheReference) {
  OCCTUNE_REQUIRE_GPU();
  int checked = 0;
  for (const kernels::FamilyInfo& info : kernels::families()) {
    const KernelFamily* f = kernels::builtin_family(info.name);
    ASSERT_NE(f, nullptr) << info.name << " is not registered through the API";
    SCOPED_TRACE(info.name);
    check_family(*f);
    ++checked;
  }
  EXPECT_GE(checked, 10);  // tiled_dynamic ... repacked
}

}  // namespace
}  // namespace occtune
