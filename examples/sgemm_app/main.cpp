// sgemm_app: what an application does with occtune. It calls occtune::sgemm (the configuration
// tuned for this GPU, from the store at OCCTUNE_DB or the default path) in both majors and all
// four op combinations, with alpha and beta and padded leading dimensions, and compares every
// element of C with cuBLAS. Exit 0 when all agree, 1 otherwise, 2 when there is no GPU.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <occtune/sgemm.hpp>
#include <random>
#include <vector>

namespace {

bool check(cublasHandle_t handle, occtune::Major major, occtune::Op op_a, occtune::Op op_b, int m,
           int n, int k, float alpha, float beta) {
  const bool row = major == occtune::Major::kRow;
  const int a_rows = op_a == occtune::Op::kN ? m : k, a_cols = op_a == occtune::Op::kN ? k : m;
  const int b_rows = op_b == occtune::Op::kN ? k : n, b_cols = op_b == occtune::Op::kN ? n : k;
  const int pad = 2;
  const int lda = (row ? a_cols : a_rows) + pad, ldb = (row ? b_cols : b_rows) + pad;
  const int ldc = (row ? n : m) + pad;
  const size_t na = size_t(row ? a_rows : a_cols) * lda, nb = size_t(row ? b_rows : b_cols) * ldb;
  const size_t nc = size_t(row ? m : n) * ldc;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> ha(na), hb(nb), hc(nc);
  for (auto& x : ha) x = dist(rng);
  for (auto& x : hb) x = dist(rng);
  for (auto& x : hc) x = dist(rng);
  float *a, *b, *c, *ref;
  cudaMalloc(&a, na * 4);
  cudaMalloc(&b, nb * 4);
  cudaMalloc(&c, nc * 4);
  cudaMalloc(&ref, nc * 4);
  cudaMemcpy(a, ha.data(), na * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), nb * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(c, hc.data(), nc * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(ref, hc.data(), nc * 4, cudaMemcpyHostToDevice);

  occtune::sgemm(major, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);

  auto op = [](occtune::Op o) { return o == occtune::Op::kN ? CUBLAS_OP_N : CUBLAS_OP_T; };
  if (row)  // cuBLAS is column-major: the row-major product is C^T = op(B)^T op(A)^T
    cublasSgemm(handle, op(op_b), op(op_a), n, m, k, &alpha, b, ldb, a, lda, &beta, ref, ldc);
  else
    cublasSgemm(handle, op(op_a), op(op_b), m, n, k, &alpha, a, lda, b, ldb, &beta, ref, ldc);
  std::vector<float> got(nc), want(nc);
  cudaMemcpy(got.data(), c, nc * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(want.data(), ref, nc * 4, cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(ref);
  double worst = 0;
  for (size_t i = 0; i < nc; ++i) worst = std::fmax(worst, std::fabs(double(got[i]) - want[i]));
  const bool ok = worst <= 1e-4 * k;
  std::printf("%s %s%s %dx%dx%d alpha %.2f beta %.2f: max |C - cuBLAS| = %.3g %s\n",
              row ? "row-major" : "col-major", op_a == occtune::Op::kN ? "N" : "T",
              op_b == occtune::Op::kN ? "N" : "T", m, n, k, alpha, beta, worst,
              ok ? "ok" : "WRONG");
  return ok;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("sgemm_app: no CUDA device\n");
    return 2;
  }
  cublasHandle_t handle;
  cublasCreate(&handle);
  bool ok = true;
  try {
    for (auto major : {occtune::Major::kRow, occtune::Major::kColumn})
      for (auto op_a : {occtune::Op::kN, occtune::Op::kT})
        for (auto op_b : {occtune::Op::kN, occtune::Op::kT}) {
          std::printf("  configuration: %s\n",
                      occtune::sgemm_prepare(major, op_a, op_b, 1000, 777, 333).c_str());
          ok &= check(handle, major, op_a, op_b, 1000, 777, 333, 1.5f, -0.5f);
        }
  } catch (const occtune::Error& e) {
    std::printf("sgemm_app: %s\n", e.what());
    ok = false;
  }
  cublasDestroy(handle);
  return ok ? 0 : 1;
}
