// Lab: GEMV-like skinny GEMM (C[S x N] = A[S x K] * B[K x N], B row-major) designs vs cuBLAS and
// occtune's Skinny<S,0,SPLITS>, timed like occtune (2xL2 memset flush, event pair per launch).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "kernels/skinny.cuh"
using namespace occtune::kernels;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

template <int SPLITS>
__global__ void __launch_bounds__(256) skinny_reduce(GemmArgs p) {
  const std::size_t mn = std::size_t(p.m) * std::size_t(p.n);
  for (std::size_t e = std::size_t(blockIdx.x) * 256 + threadIdx.x; e < mn; e += std::size_t(gridDim.x) * 256)
    skinny_reduce_item<SPLITS>(p, e);
}

// New design: one kernel; block = 8 warps x 32 lanes, lane owns 4 columns (float4), warps
// interleave k rows (UNROLL loads in flight per thread, all issued before the FMAs); K split in
// SPLITS slices (grid.y); the last slice block of a column tile (ticket) sums the slices in order.
template <int S, int SPLITS, int UNROLL>
__global__ void __launch_bounds__(256) gemv_x(const float* __restrict__ a, int lda, const float* __restrict__ b, int ldb,
                                               float* c, int ldc, int n, int k, float* ws, unsigned* tickets) {
  __shared__ float4 red[8][S][32];
  __shared__ bool last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int z = blockIdx.y;
  const int chunk = ((k + SPLITS - 1) / SPLITS + 7) / 8 * 8;
  const int kb = z * chunk, ke = min(k, kb + chunk);
  float4 acc[S];
#pragma unroll
  for (int s = 0; s < S; ++s) acc[s] = make_float4(0, 0, 0, 0);
  if (x < n) {
    for (int k0 = kb + warp; k0 < ke; k0 += 8 * UNROLL) {
      float4 v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int kk = k0 + 8 * u;
        v[u] = kk < ke ? __ldg(reinterpret_cast<const float4*>(b + size_t(kk) * ldb + x)) : make_float4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int kk = k0 + 8 * u;
#pragma unroll
        for (int s = 0; s < S; ++s) {
          const float av = kk < ke ? __ldg(a + size_t(s) * lda + kk) : 0.f;
          acc[s].x = fmaf(av, v[u].x, acc[s].x); acc[s].y = fmaf(av, v[u].y, acc[s].y);
          acc[s].z = fmaf(av, v[u].z, acc[s].z); acc[s].w = fmaf(av, v[u].w, acc[s].w);
        }
      }
    }
  }
#pragma unroll
  for (int s = 0; s < S; ++s) red[warp][s][lane] = acc[s];
  __syncthreads();
  if (warp != 0) return;
  float4 sum[S];
#pragma unroll
  for (int s = 0; s < S; ++s) {
    sum[s] = red[0][s][lane];
    for (int w = 1; w < 8; ++w) { float4 t = red[w][s][lane]; sum[s].x += t.x; sum[s].y += t.y; sum[s].z += t.z; sum[s].w += t.w; }
  }
  if (SPLITS == 1) {
    if (x < n) for (int s = 0; s < S; ++s) *reinterpret_cast<float4*>(c + size_t(s) * ldc + x) = sum[s];
    return;
  }
  float4* slot = reinterpret_cast<float4*>(ws) + (size_t(z) * gridDim.x + blockIdx.x) * S * 32;
#pragma unroll
  for (int s = 0; s < S; ++s) slot[s * 32 + lane] = sum[s];
  __threadfence();
  __syncwarp();
  if (lane == 0) last = atomicAdd(&tickets[blockIdx.x], 1u) == SPLITS - 1;
  __syncwarp();
  if (!last) return;
  __threadfence();
  for (int s = 0; s < S; ++s) {
    float4 t = make_float4(0, 0, 0, 0);
    for (int zz = 0; zz < SPLITS; ++zz) {
      const float4 q = __ldcg(reinterpret_cast<const float4*>(ws) + (size_t(zz) * gridDim.x + blockIdx.x) * S * 32 + s * 32 + lane);
      t.x += q.x; t.y += q.y; t.z += q.z; t.w += q.w;
    }
    if (x < n) *reinterpret_cast<float4*>(c + size_t(s) * ldc + x) = t;
  }
  if (lane == 0) tickets[blockIdx.x] = 0;
}

struct Timer {
  void* flush; size_t fb; cudaEvent_t e0, e1;
  Timer() { fb = 2 * 50 * 1024 * 1024; CK(cudaMalloc(&flush, fb)); cudaEventCreate(&e0); cudaEventCreate(&e1); }
  template <class F> float median(F f, int n = 60) {
    std::vector<float> t;
    for (int i = 0; i < 5; ++i) { cudaMemsetAsync(flush, i, fb); f(); }
    for (int i = 0; i < n; ++i) {
      cudaMemsetAsync(flush, i & 0xff, fb);
      cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end()); return t[n / 2];
  }
};

template <int S> void run_shape(cublasHandle_t h, Timer& tm, int n, int k) {
  const int m = S;
  float *a, *b, *c, *ref, *ws; unsigned* tickets;
  size_t bb = size_t(k) * n;
  CK(cudaMalloc(&a, sizeof(float) * m * k)); CK(cudaMalloc(&b, sizeof(float) * bb));
  CK(cudaMalloc(&c, sizeof(float) * m * n)); CK(cudaMalloc(&ref, sizeof(float) * m * n));
  CK(cudaMalloc(&ws, sizeof(float) * size_t(m) * n * 64 + 4096 * 64)); CK(cudaMalloc(&tickets, 4 * 65536));
  CK(cudaMemset(tickets, 0, 4 * 65536));
  { std::vector<float> ha(size_t(m) * k); for (auto& v : ha) v = rand() / float(RAND_MAX) - 0.5f; cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice); }
  { std::vector<float> hb(bb); for (auto& v : hb) v = rand() / float(RAND_MAX) - 0.5f; cudaMemcpy(b, hb.data(), bb * 4, cudaMemcpyHostToDevice); }
  const float one = 1, zero = 0;
  auto cub = [&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, ref, n); };
  float tc = tm.median(cub);
  std::vector<float> href(size_t(m) * n), hc(size_t(m) * n);
  cudaMemcpy(href.data(), ref, href.size() * 4, cudaMemcpyDeviceToHost);
  double bytes = 4.0 * (double(bb) + double(m) * k + double(m) * n);
  auto report = [&](const char* name, float t) {
    cudaMemcpy(hc.data(), c, hc.size() * 4, cudaMemcpyDeviceToHost);
    double err = 0, nr = 0; for (size_t i = 0; i < hc.size(); ++i) { double d = hc[i] - href[i]; err += d * d; nr += double(href[i]) * href[i]; }
    printf("%dx%dx%d %-22s %8.2f us  %5.2f TB/s  ratio %.3f  err %.1e\n", m, n, k, name, t * 1e3, bytes / (t * 1e-3) / 1e12, tc / t, std::sqrt(err / nr));
    cudaMemset(c, 0xff, hc.size() * 4);
  };
  printf("%dx%dx%d cublas %8.2f us  %5.2f TB/s\n", m, n, k, tc * 1e3, bytes / (tc * 1e-3) / 1e12);
  GemmArgs p{a, b, c, m, n, k, k, n, n, ws, sizeof(float) * size_t(m) * n * 64, 1.f, 0.f};
  auto old = [&](auto splits_tag) {
    constexpr int SP = decltype(splits_tag)::value;
    using V = Skinny<S, 0, SP>;
    dim3 grid((n + 127) / 128, (m + S - 1) / S, SP);
    auto f = [&] { gemm_entry<V><<<grid, 256, V::kSmemBytes>>>(p); if (SP > 1) skinny_reduce<SP><<<std::max(1, std::min(4096, (m * n + 255) / 256)), 256>>>(p); };
    float t = tm.median(f); char nm[64]; snprintf(nm, 64, "old splits=%d", SP); report(nm, t);
    auto f1 = [&] { gemm_entry<V><<<grid, 256, V::kSmemBytes>>>(p); };
    t = tm.median(f1); snprintf(nm, 64, "old-k1only splits=%d", SP); printf("   %s %.2f us\n", nm, t * 1e3);
  };
  old(std::integral_constant<int, 1>{}); old(std::integral_constant<int, 8>{}); old(std::integral_constant<int, 32>{});
  auto nw = [&](auto sp, auto un) {
    constexpr int SP = decltype(sp)::value, UN = decltype(un)::value;
    dim3 grid((n + 127) / 128, SP);
    auto f = [&] { gemv_x<S, SP, UN><<<grid, 256>>>(a, k, b, n, c, n, n, k, ws, tickets); };
    float t = tm.median(f); char nm[64]; snprintf(nm, 64, "new sp=%d un=%d", SP, UN); report(nm, t);
  };
  using namespace std;
  nw(integral_constant<int, 1>{}, integral_constant<int, 8>{});
  nw(integral_constant<int, 8>{}, integral_constant<int, 4>{});
  nw(integral_constant<int, 8>{}, integral_constant<int, 8>{});
  nw(integral_constant<int, 16>{}, integral_constant<int, 4>{});
  nw(integral_constant<int, 16>{}, integral_constant<int, 8>{});
  nw(integral_constant<int, 32>{}, integral_constant<int, 4>{});
  nw(integral_constant<int, 32>{}, integral_constant<int, 8>{});
  nw(integral_constant<int, 64>{}, integral_constant<int, 4>{});
  nw(integral_constant<int, 64>{}, integral_constant<int, 8>{});
  cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(ref); cudaFree(ws); cudaFree(tickets);
}

int main() {
  cublasHandle_t h; cublasCreate(&h);
  Timer tm;
  run_shape<1>(h, tm, 4096, 4096);
  run_shape<1>(h, tm, 8192, 8192);
  run_shape<1>(h, tm, 16384, 16384);
  run_shape<1>(h, tm, 4096, 1024);
  run_shape<1>(h, tm, 1024, 16384);
  run_shape<8>(h, tm, 4096, 4096);
  run_shape<8>(h, tm, 8192, 8192);
  run_shape<8>(h, tm, 16384, 16384);

  return 0;
}
