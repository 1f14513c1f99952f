// Every registered kernel variant against a CPU double-precision reference (small and odd
// shapes) and against cuBLAS (large and odd shapes), on random inputs with a NaN-poisoned
// output, independently of ShapeBench's own buffers.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "autotuner/core/shape.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "kernels/launch.cuh"
#include "tests/support/applicable.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

struct Buffers {
  Shape shape;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  std::vector<float> ha, hb;
  explicit Buffers(Shape s) : shape(s) {
    std::mt19937 rng(unsigned(s.m * 131 + s.n * 17 + s.k));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    ha.resize(size_t(s.m * s.k));
    hb.resize(size_t(s.k * s.n));
    for (auto& x : ha) x = dist(rng);
    for (auto& x : hb) x = dist(rng);
    OCCTUNE_CUDA_CHECK(cudaMalloc(&a, ha.size() * 4));
    OCCTUNE_CUDA_CHECK(cudaMalloc(&b, hb.size() * 4));
    OCCTUNE_CUDA_CHECK(cudaMalloc(&c, size_t(s.m * s.n) * 4));
    OCCTUNE_CUDA_CHECK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    OCCTUNE_CUDA_CHECK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
  }
  ~Buffers() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  kernels::GemmArgs args() const {
    return {a, b, c, int(shape.m), int(shape.n), int(shape.k), int(shape.k), int(shape.n),
            int(shape.n)};
  }
  void poison() { OCCTUNE_CUDA_CHECK(cudaMemset(c, 0xff, size_t(shape.m * shape.n) * 4)); }
  std::vector<float> result() const {
    std::vector<float> out(size_t(shape.m * shape.n));
    OCCTUNE_CUDA_CHECK(cudaMemcpy(out.data(), c, out.size() * 4, cudaMemcpyDeviceToHost));
    return out;
  }
  std::vector<double> cpu_reference() const {
    std::vector<double> out(size_t(shape.m * shape.n), 0.0);
    for (int64_t i = 0; i < shape.m; ++i)
      for (int64_t p = 0; p < shape.k; ++p) {
        const double av = ha[size_t(i * shape.k + p)];
        for (int64_t j = 0; j < shape.n; ++j) out[size_t(i * shape.n + j)] += av * hb[size_t(p * shape.n + j)];
      }
    return out;
  }
  std::vector<float> cublas_reference() {
    cublasHandle_t h;
    OCCTUNE_CUBLAS_CHECK(cublasCreate(&h));
    const float one = 1, zero = 0;
    poison();
    OCCTUNE_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(shape.n), int(shape.m),
                                     int(shape.k), &one, b, int(shape.n), a, int(shape.k), &zero,
                                     c, int(shape.n)));
    OCCTUNE_CUDA_CHECK(cudaDeviceSynchronize());
    cublasDestroy(h);
    return result();
  }
};

template <class Ref>
double relative_frobenius(const std::vector<float>& got, const std::vector<Ref>& want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = double(got[i]) - double(want[i]);
    diff += d * d;
    norm += double(want[i]) * double(want[i]);
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

std::vector<const kernels::VariantInfo*> all_candidates() {
  std::vector<const kernels::VariantInfo*> out;
  for (auto& f : kernels::families())
    for (auto* v : kernels::variants_of(f.name)) out.push_back(v);
  return out;
}

void run_variant(const kernels::VariantInfo& v, Buffers& buf) {
  buf.poison();
  auto args = buf.args();
  // Split-K variants need scratch memory for their partial sums.
  float* workspace = nullptr;
  if (const size_t bytes = v.workspace(args.m, args.n, args.k)) {
    OCCTUNE_CUDA_CHECK(cudaMalloc(&workspace, bytes));
    args.workspace = workspace;
    args.workspace_bytes = bytes;
  }
  EXPECT_EQ(kernels::launch_variant(v, args, nullptr), cudaSuccess) << v.symbol;
  OCCTUNE_CUDA_CHECK(cudaDeviceSynchronize());
  if (workspace) OCCTUNE_CUDA_CHECK(cudaFree(workspace));
}

TEST(KernelCorrectness, SmallAndOddShapesMatchCpuDoubleReference) {
  OCCTUNE_REQUIRE_GPU();
  const Shape shapes[] = {{1, 1, 1},    {17, 17, 17}, {1, 17, 1000}, {17, 1, 33},
                          {33, 65, 1},  {65, 33, 17}, {100, 3, 257}, {1, 1, 4097}};
  for (auto shape : shapes) {
    Buffers buf(shape);
    const auto cpu = buf.cpu_reference();
    EXPECT_LT(relative_frobenius(buf.cublas_reference(), cpu), 1e-5) << "cuBLAS " << shape.str();
    for (auto* v : all_candidates()) {
      if (!test_support::runs_here(*v, buf.args())) continue;  // what planning rejects
      run_variant(*v, buf);
      const auto got = buf.result();
      EXPECT_LT(relative_frobenius(got, cpu), 1e-5) << v->symbol << " at " << shape.str();
    }
  }
}

TEST(KernelCorrectness, LargeAndOddShapesMatchCublas) {
  OCCTUNE_REQUIRE_GPU();
  const Shape shapes[] = {{1000, 1000, 1000}, {1023, 1023, 1023}, {1024, 1024, 1024},
                          {4097, 17, 1000},   {17, 4097, 1023},   {1000, 1, 4097},
                          {1023, 4097, 17},   {4097, 4097, 4097}};
  for (auto shape : shapes) {
    Buffers buf(shape);
    const auto ref = buf.cublas_reference();
    for (auto* v : all_candidates()) {
      // One- and two-thread tiles are correct on the small shapes above; at 4097^3 they would
      // take minutes and prove nothing new.
      if (v->threads() < 16 && shape.m * shape.n * shape.k > (int64_t(1) << 30)) continue;
      if (!test_support::runs_here(*v, buf.args())) continue;  // what planning rejects
      run_variant(*v, buf);
      const auto got = buf.result();
      EXPECT_LT(relative_frobenius(got, ref), 1e-5) << v->symbol << " at " << shape.str();
    }
  }
}

}  // namespace
}  // namespace occtune
