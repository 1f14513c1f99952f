// Lab (issue #18, wave 8): the mid-size and long-K shapes where occtune stays below 0.90x
// cuBLAS. Calls B and C of docs/results/2026-11-28-h100-wave8 ran its first versions (lab
// copies of the fbuf-2 pipeline and the grouped second pass, in git history); it now times
// the kernels as registered. cuBLAS's own choice there (docs/results/2026-11-28-h100-wave8, call A, under ncu):
// data-parallel 64x64x8 tiles of 4 warps at 1025^3 and 2049^3, 64x128x8 at 698x2077x4461,
// 128x128x8 at 3001x1000x4097, split-K over 256x128x8 / 128x64x8 tiles plus a reduction for
// the long-K small outputs. This times occtune's existing tiles next to candidate new
// instantiations (and the same tile under another register budget) on those shapes and on an
// aligned twin of each misaligned one, every result checked against cuBLAS.
// Not part of occtune: a scratch program for choosing what to register.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I. lab/midsize_lab.cu -lcublas -o midsize_lab
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/pipelined.cuh"
#include "kernels/splitk.cuh"
#include "kernels/streamk.cuh"
#include "kernels/streamk_launch.cuh"
#include "lab_support.cuh"

using namespace occtune::kernels;

// The entry with a chosen minimum of blocks per SM (0: the variant's own), to see what the
// register budget does to one tile.
template <class V, int MINB>
__global__ void __launch_bounds__(V::kMaxThreads, MINB ? MINB : MinBlocksPerSm<V>::value)
    lab_entry(GemmArgs args) {
  extern __shared__ __align__(16) unsigned char smem[];
  V::run(args, smem);
}

// Split-K's second pass as kernels/splitk.cu launches it (SplitKIn::reduce_block).
template <class V, int G>
__global__ void __launch_bounds__(V::kReduceThreads) lab_reduce(GemmArgs args) {
  __shared__ float4 part[V::kReduceThreads];
  V::template reduce_block<G>(args, part);
}

enum class Kind { kTile, kSplitK, kStreamK };

struct Variant {
  std::string name;
  Kind kind;
  // Launches on args (workspace set by the caller); returns the error.
  cudaError_t (*launch)(const GemmArgs&);
  std::size_t (*workspace)(int m, int n, int k);
  int (*regs)();
};

template <class V, int MINB>
int regs_of() {
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, lab_entry<V, MINB>);
  return a.numRegs;
}

template <class V, int MINB>
cudaError_t prepare(const void*& fn) {
  fn = reinterpret_cast<const void*>(&lab_entry<V, MINB>);
  if (V::kSmemBytes > 48 * 1024)
    return cudaFuncSetAttribute(lab_entry<V, MINB>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(V::kSmemBytes));
  return cudaSuccess;
}

template <class V, int MINB>
cudaError_t launch_tile(const GemmArgs& p) {
  const void* fn;
  if (auto e = prepare<V, MINB>(fn)) return e;
  constexpr auto q = V::kParams;
  const dim3 grid((p.n + q.bn - 1) / q.bn, (p.m + q.bm - 1) / q.bm, q.splits);
  lab_entry<V, MINB><<<grid, V::kMaxThreads, V::kSmemBytes>>>(p);
  if (auto e = cudaGetLastError()) return e;
  if constexpr (q.splits > 1) {
    const long long count = (long long)p.m * p.n, items = p.n % 4 == 0 ? count / 4 : count;
    return with_reduce_groups<q.splits>(p.m, p.n, [&](auto g) {
      constexpr int kItems = V::kReduceThreads / decltype(g)::value;
      const long long blocks = (items + kItems - 1) / kItems;
      lab_reduce<V, decltype(g)::value>
          <<<unsigned(blocks < 4096 ? blocks : 4096), V::kReduceThreads>>>(p);
      return cudaGetLastError();
    });
  }
  return cudaSuccess;
}
template <class V>
std::size_t tile_ws(int m, int n, int) {
  return tile_workspace_bytes(V::kParams, m, n);
}

template <class V>
StreamKPlan sk_plan(int m, int n, int k) {
  constexpr auto q = V::kParams;
  return streamk::device_plan<V>({reinterpret_cast<const void*>(&lab_entry<V, 0>), V::kMaxThreads,
                                  V::kSmemBytes, V::kBlocksPerSm},
                                 m, n, k, q.bm, q.bn, q.bk);
}
template <class V>
std::size_t sk_ws(int m, int n, int k) {
  return streamk::workspace_bytes(sk_plan<V>(m, n, k), V::kParams.bm, V::kParams.bn);
}
template <class V>
cudaError_t launch_sk(const GemmArgs& p) {
  const void* fn;
  if (auto e = prepare<V, 0>(fn)) return e;
  const StreamKPlan plan = sk_plan<V>(p.m, p.n, p.k);
  if (plan.tiles == 0) return cudaErrorInvalidValue;
  lab_entry<V, 0><<<unsigned(plan.blocks), V::kMaxThreads, V::kSmemBytes>>>(p);
  if (auto e = cudaGetLastError()) return e;
  if (streamk::workspace_bytes(plan, V::kParams.bm, V::kParams.bn) == 0) return cudaSuccess;
  return streamk::launch_fixup<V>(p, plan, 0);
}

#define TILE(MINB, ...) \
  Variant{#__VA_ARGS__ " minb " #MINB, Kind::kTile, &launch_tile<__VA_ARGS__, MINB>, &tile_ws<__VA_ARGS__>, &regs_of<__VA_ARGS__, MINB>}
#define SK(...) \
  Variant{#__VA_ARGS__, Kind::kStreamK, &launch_sk<__VA_ARGS__>, &sk_ws<__VA_ARGS__>, &regs_of<__VA_ARGS__, 0>}

std::vector<Variant> variants() {
  return {
      // before wave 8
      TILE(0, Pipelined<64, 128, 8, 8, 8, 32, 64, 3, 1, 0>),
      SK(StreamK<64, 128, 8, 8, 8, 32, 64, 3, 1, 0, 4, 1>),
      TILE(0, SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 8, 0>),
      TILE(0, SplitK<128, 128, 8, 8, 8, 32, 64, 3, 1, 4, 0>),
      // split-K as registered, now with the grouped second pass
      TILE(0, SplitK<128, 128, 8, 8, 8, 32, 64, 3, 1, 32, 0>),
      TILE(0, SplitK<64, 128, 8, 8, 8, 32, 64, 3, 1, 64, 0>),
      TILE(0, SplitK<32, 128, 32, 4, 8, 16, 64, 4, 0, 32, 0>),
      TILE(0, SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 128, 0>),
      // wave 8's new instantiations
      TILE(0, PipelinedFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 0>),
      TILE(0, SplitK<64, 64, 8, 8, 4, 32, 32, 3, 1, 2, 0>),
      TILE(0, SplitKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 2, 0>),
      TILE(0, SplitKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 4, 0>),
      // session 2026-11-28 (evening): data-parallel and narrower tiles for 1025^3 (cuBLAS runs
      // data-parallel 64x64x8 tiles of 4 warps there), the 256x128 split-K tile for the long-K
      // small outputs
      TILE(0, Pipelined<64, 64, 16, 4, 4, 16, 32, 3, 0, 0>),
      TILE(0, Pipelined<64, 64, 8, 8, 4, 32, 32, 3, 1, 0>),
      TILE(0, Pipelined<64, 64, 8, 8, 4, 32, 32, 4, 1, 0>),
      TILE(0, PipelinedFb<64, 64, 16, 8, 4, 32, 32, 3, 1, 0>),
      TILE(0, Pipelined<64, 32, 8, 8, 4, 32, 32, 3, 1, 0>),
      TILE(0, Pipelined<32, 64, 8, 4, 8, 16, 64, 3, 1, 0>),
      TILE(0, SplitK<64, 64, 8, 8, 4, 32, 32, 3, 1, 4, 0>),
      TILE(0, SplitKFb<64, 64, 16, 8, 4, 32, 32, 3, 1, 2, 0>),
      TILE(0, SplitK<64, 32, 8, 8, 4, 32, 32, 3, 1, 2, 0>),
      TILE(0, SplitK<256, 128, 8, 16, 8, 64, 64, 3, 1, 64, 0>),
      TILE(0, SplitK<256, 128, 8, 16, 8, 64, 64, 3, 1, 32, 0>),
      TILE(0, SplitKFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 64, 0>),
  };
}

__global__ void poison(float* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = __int_as_float(0x7fc00000);
}

// The median of `reps` flushed samples after two unrecorded ones (lab_support.cuh).
struct Timer {
  FlushTimer flushed;
  template <class F>
  double median_ms(F&& f, int reps) {
    std::vector<float> t;
    for (int r = 0; r < reps + 2; ++r) {
      const float ms = flushed.sample_ms(f, r);
      if (r >= 2) t.push_back(ms);
    }
    return median_of(t);
  }
};

int main(int argc, char** argv) {
  std::vector<std::string> shapes;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else
      shapes.push_back(argv[i]);
  }
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 4;
  cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
  Timer timer;
  const auto all = variants();
  int failures = 0;
  for (auto& s : shapes) {
    int m, n, k;
    if (std::sscanf(s.c_str(), "%dx%dx%d", &m, &n, &k) != 3) return 2;
    const std::size_t ea = std::size_t(m) * k, eb = std::size_t(k) * n, ec = std::size_t(m) * n;
    float *a, *b, *c, *ref, *ws = nullptr;
    CK(cudaMalloc(&a, ea * 4));
    CK(cudaMalloc(&b, eb * 4));
    CK(cudaMalloc(&c, ec * 4));
    CK(cudaMalloc(&ref, ec * 4));
    fill<<<1024, 256>>>(a, ea, 11u + unsigned(m));
    fill<<<1024, 256>>>(b, eb, 29u + unsigned(n));
    const float one = 1, zero = 0;
    auto cublas = [&] {
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, ref, n);
    };
    cublas();
    CK(cudaDeviceSynchronize());
    std::vector<float> href(ec), hc(ec);
    CK(cudaMemcpy(href.data(), ref, ec * 4, cudaMemcpyDeviceToHost));
    double rnorm = 0;
    for (float v : href) rnorm += double(v) * v;
    const int reps = ec * std::size_t(k) > (std::size_t(1) << 33) ? 20 : 40;
    const double cub0 = timer.median_ms(cublas, reps);
    std::printf("%s  cublas %.4f ms (%.1f TFLOP/s)\n", s.c_str(), cub0,
                2.0 * m * n * double(k) / cub0 / 1e9);
    std::fflush(stdout);
    for (auto& v : all) {
      if (!only.empty() && v.name.find(only) == std::string::npos) continue;
      const std::size_t need = v.workspace(m, n, k);
      if (need) CK(cudaMalloc(&ws, need));
      GemmArgs p{a, b, c, m, n, k, k, n, n, ws, need, 1.0f, 0.0f};
      poison<<<1024, 256>>>(c, ec);
      if (need) poison<<<1024, 256>>>(ws, need / 4);
      cudaError_t e = v.launch(p);
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        std::printf("  %-62s launch error %s\n", v.name.c_str(), cudaGetErrorString(e));
        cudaGetLastError();
        if (ws) cudaFree(ws), ws = nullptr;
        continue;
      }
      CK(cudaMemcpy(hc.data(), c, ec * 4, cudaMemcpyDeviceToHost));
      double d = 0;
      for (std::size_t i = 0; i < ec; ++i) {
        const double x = double(hc[i]) - href[i];
        d += std::isfinite(hc[i]) ? x * x : 1e30;
      }
      const double err = std::sqrt(d / rnorm);
      const double t = timer.median_ms([&] { v.launch(p); }, reps);
      const bool ok = err < 1e-5;
      failures += !ok;
      std::printf("  %-62s regs %3d  %.4f ms  ratio %.3f  err %.1e%s\n", v.name.c_str(), v.regs(),
                  t, cub0 / t, err, ok ? "" : "  WRONG");
      std::fflush(stdout);
      if (ws) { CK(cudaFree(ws)); ws = nullptr; }
    }
    const double cub1 = timer.median_ms(cublas, reps);
    std::printf("  cublas again %.4f ms\n", cub1);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(ref));
  }
  std::printf("%d wrong results\n", failures);
  return failures ? 1 : 0;
}
