// Kernel lab: times experimental block-tile main loops against cuBLAS at a few large shapes.
// Not part of occtune; a scratch program for choosing what to register.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/regblocked.cuh"
#include "kernels/pipelined.cuh"

using namespace occtune::kernels;

#define CK(x)                                                                     \
  do {                                                                            \
    cudaError_t e = (x);                                                          \
    if (e != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// Register-blocked main loop with fragments double-buffered in registers: the fragments of
// k + 1 are read while k is computed, and at the slab boundary the store of the next slab and
// the barrier happen before the last k of the slab is computed, so the first fragments of the
// next slab are in flight during it.
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int ORDER>
struct RegPf {
  using Tile = tile::BlockTile<TileFamily::kRegBlocked, BM, BN, BK, TM, TN, WM, WN, 2, 1, 0, (ORDER > 1 ? 0 : ORDER)>;
  static constexpr int kMaxThreads = Tile::kThreads;
  static constexpr int kMinBlocksPerSm = Tile::kMinBlocksPerSm;
  static constexpr std::size_t kSmemBytes = Tile::kSmemBytes;

  template <class C>
  __device__ static void frags(const float* stage, C at, int kk, float* a,
                               float* b) {
    const float* as = stage + at.m + kk * Tile::kLdA;
    const float* bs = stage + BK * Tile::kLdA + at.n + kk * Tile::kLdB;
#pragma unroll
    for (int i = 0; i < TM / Tile::kSubM; ++i)
      tile::load_fragment<Tile::kSubM>(as + i * Tile::kLanesM * Tile::kSubM, a + i * Tile::kSubM);
#pragma unroll
    for (int j = 0; j < TN / Tile::kSubN; ++j)
      tile::load_fragment<Tile::kSubN>(bs + j * Tile::kLanesN * Tile::kSubN, b + j * Tile::kSubN);
  }

  __device__ static void fma(const float* a, const float* b, float (&acc)[TM][TN]) {
    if constexpr (ORDER == 2) {  // serpentine rows: b[j] reused across the row boundary
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int jj = 0; jj < TN; ++jj) {
          const int j = (i & 1) ? TN - 1 - jj : jj;
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    } else if constexpr (ORDER == 3) {  // serpentine columns
#pragma unroll
      for (int j = 0; j < TN; ++j)
#pragma unroll
        for (int ii = 0; ii < TM; ++ii) {
          const int i = (j & 1) ? TM - 1 - ii : ii;
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    } else if constexpr (ORDER == 1) {
#pragma unroll
      for (int j = 0; j < TN; ++j)
#pragma unroll
        for (int i = 0; i < TM; ++i) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    } else {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    float* stages = reinterpret_cast<float*>(smem);
    int m0, n0;
    Tile::block_origin(m0, n0);
    const auto at = Tile::thread_coords();
    const auto loader = Tile::make_staged_loader(p, m0, n0);
    const bool vec_a = tile::aligned16(p.a) && p.lda % 4 == 0;
    const bool vec_b = tile::aligned16(p.b) && p.ldb % 4 == 0;
    float acc[TM][TN];
    Tile::zero(acc);
    const int slabs = (p.k + BK - 1) / BK;
    typename Tile::Staged staged;
    float a[2][TM], b[2][TN];
    if (slabs > 0) {
      Tile::load_staged(p, loader, staged, 0, vec_a, vec_b);
      Tile::store_staged(loader, staged, stages);
    }
    __syncthreads();
    frags(stages, at, 0, a[0], b[0]);
    for (int t = 0; t < slabs; ++t) {
      const bool more = t + 1 < slabs;
      float* current = stages + (t & 1) * Tile::kStageFloats;
      float* other = stages + ((t + 1) & 1) * Tile::kStageFloats;
      if (more) Tile::load_staged(p, loader, staged, (t + 1) * BK, vec_a, vec_b);
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        if (kk + 1 < BK) {
          frags(current, at, kk + 1, a[(kk + 1) & 1], b[(kk + 1) & 1]);
        } else {
          if (more) Tile::store_staged(loader, staged, other);
          __syncthreads();
          frags(other, at, 0, a[(kk + 1) & 1], b[(kk + 1) & 1]);
        }
        fma(a[kk & 1], b[kk & 1], acc);
      }
    }
    Tile::store(acc, at, p.c, p.ldc, m0, n0, p.m, p.n);
  }
};


// RegPf with knobs: SWZ block rows per launch-order group, STORE_KK the k at which the staged
// slab is stored (the barrier stays before the last k), LOADKK the k at which the next slab's
// global loads are issued.
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int ORDER, int SWZ, int STORE_KK, int LOAD_KK>
struct RegPfX {
  using Tile = tile::BlockTile<TileFamily::kRegBlocked, BM, BN, BK, TM, TN, WM, WN, 2, 1, 0, (ORDER > 1 ? 0 : ORDER)>;
  using R = RegPf<BM, BN, BK, TM, TN, WM, WN, ORDER>;
  static constexpr int kMaxThreads = Tile::kThreads;
  static constexpr int kMinBlocksPerSm = Tile::kMinBlocksPerSm;
  static constexpr std::size_t kSmemBytes = Tile::kSmemBytes;

  __device__ static void origin(int& m0, int& n0) {
    const int gx = int(gridDim.x), gy = int(gridDim.y);
    const int pid = int(blockIdx.y) * gx + int(blockIdx.x);
    const int span = SWZ * gx;
    const int first = (pid / span) * SWZ;
    const int rows = gy - first < SWZ ? gy - first : SWZ;
    const int local = pid % span;
    m0 = (first + local % rows) * BM;
    n0 = (local / rows) * BN;
  }

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    float* stages = reinterpret_cast<float*>(smem);
    int m0, n0;
    origin(m0, n0);
    const auto at = Tile::thread_coords();
    const auto loader = Tile::make_staged_loader(p, m0, n0);
    const bool vec_a = tile::aligned16(p.a) && p.lda % 4 == 0;
    const bool vec_b = tile::aligned16(p.b) && p.ldb % 4 == 0;
    float acc[TM][TN];
    Tile::zero(acc);
    const int slabs = (p.k + BK - 1) / BK;
    typename Tile::Staged staged;
    float a[2][TM], b[2][TN];
    if (slabs > 0) {
      Tile::load_staged(p, loader, staged, 0, vec_a, vec_b);
      Tile::store_staged(loader, staged, stages);
    }
    __syncthreads();
    R::frags(stages, at, 0, a[0], b[0]);
    for (int t = 0; t < slabs; ++t) {
      const bool more = t + 1 < slabs;
      float* current = stages + (t & 1) * Tile::kStageFloats;
      float* other = stages + ((t + 1) & 1) * Tile::kStageFloats;
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        if (kk == LOAD_KK && more) Tile::load_staged(p, loader, staged, (t + 1) * BK, vec_a, vec_b);
        if (kk == STORE_KK && more) Tile::store_staged(loader, staged, other);
        if (kk + 1 < BK) {
          R::frags(current, at, kk + 1, a[(kk + 1) & 1], b[(kk + 1) & 1]);
        } else {
          __syncthreads();
          R::frags(other, at, 0, a[(kk + 1) & 1], b[(kk + 1) & 1]);
        }
        R::fma(a[kk & 1], b[kk & 1], acc);
      }
    }
    Tile::store(acc, at, p.c, p.ldc, m0, n0, p.m, p.n);
  }
};

// The pipelined (cp.async ring) main loop with the same fragment double-buffering: the wait and
// barrier for slab t + 1 happen before the last k of slab t is computed.
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG, int ORDER>
struct PipePf {
  using Tile =
      tile::BlockTile<TileFamily::kPipelined, BM, BN, BK, TM, TN, WM, WN, STAGES, 1, AREG, ORDER>;
  using R = RegPf<BM, BN, BK, TM, TN, WM, WN, ORDER>;
  static constexpr int kMaxThreads = Tile::kThreads;
  static constexpr int kMinBlocksPerSm = Tile::kMinBlocksPerSm;
  static constexpr std::size_t kSmemBytes = Tile::kSmemBytes;

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    float* stages = reinterpret_cast<float*>(smem);
    int m0, n0;
    Tile::block_origin(m0, n0);
    const auto at = Tile::thread_coords();
    float acc[TM][TN];
    Tile::zero(acc);
    const auto l = Tile::make_loader(p, m0, n0, tile::aligned16(p.b) && p.ldb % 4 == 0);
    const int k_begin = 0, k_end = p.k;
    const int length = k_end;
    const int slabs = (length + BK - 1) / BK;
    const int residue = length % BK;
    const int k_base = k_begin - (residue ? BK - residue : 0);
    [[maybe_unused]] const bool vec_a = tile::aligned16(p.a) && p.lda % 4 == 0 && k_base % 4 == 0;
    [[maybe_unused]] float4 ra[Tile::kIterA] = {};
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < slabs) {
        float* stage = stages + s * Tile::kStageFloats;
        const int k0 = k_base + s * BK;
        if (s == 0 && residue) {
          Tile::template issue_slab<false>(p, l, stage, k0, k_begin, k_end);
          if constexpr (AREG != 0) Tile::template load_a_regs<false>(p, l, ra, k0, k_begin, k_end, vec_a);
        } else {
          Tile::template issue_slab<true>(p, l, stage, k0, k_begin, k_end);
          if constexpr (AREG != 0) Tile::template load_a_regs<true>(p, l, ra, k0, k_begin, k_end, vec_a);
        }
        if constexpr (AREG != 0) Tile::store_a_regs(l, ra, stage);
      }
      tile::copy_commit();
    }
    tile::copy_wait<STAGES - 2>();
    __syncthreads();
    float a[2][TM], b[2][TN];
    R::frags(stages, at, 0, a[0], b[0]);
    for (int t = 0; t < slabs; ++t) {
      const int next = t + STAGES - 1;
      const int read = t % STAGES, write = next % STAGES;
      const bool refill = next < slabs;
      if (refill) {
        Tile::template issue_slab<true>(p, l, stages + write * Tile::kStageFloats, k_base + next * BK, k_begin, k_end);
        if constexpr (AREG != 0)
          Tile::template load_a_regs<true>(p, l, ra, k_base + next * BK, k_begin, k_end, vec_a);
      }
      tile::copy_commit();
      const float* cur = stages + read * Tile::kStageFloats;
      const float* nxt = stages + ((t + 1) % STAGES) * Tile::kStageFloats;
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        if (kk + 1 < BK) {
          R::frags(cur, at, kk + 1, a[(kk + 1) & 1], b[(kk + 1) & 1]);
        } else {
          if constexpr (AREG != 0)
            if (refill) Tile::store_a_regs(l, ra, stages + write * Tile::kStageFloats);
          tile::copy_wait<STAGES - 2>();
          __syncthreads();
          if (t + 1 < slabs) R::frags(nxt, at, 0, a[(kk + 1) & 1], b[(kk + 1) & 1]);
        }
        R::fma(a[kk & 1], b[kk & 1], acc);
      }
    }
    Tile::store(acc, at, p.c, p.ldc, m0, n0, p.m, p.n);
  }
};

struct Launch {
  const char* name;
  void (*kernel)(GemmArgs);
  int threads, bm, bn;
  std::size_t smem;
};

template <class V>
Launch make(const char* name) {
  auto k = &gemm_entry<V>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(V::kSmemBytes)));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, k));
  std::printf("# %-60s regs %3d local %zu smem %zu\n", name, fa.numRegs, fa.localSizeBytes,
              V::kSmemBytes);
  return {name, k, V::kMaxThreads, V::Tile::kParams.bm, V::Tile::kParams.bn, V::kSmemBytes};
}

static float time_ms(cudaEvent_t e0, cudaEvent_t e1) {
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return ms;
}

int main(int argc, char** argv) {
  std::vector<Launch> ls;
#define V(...) ls.push_back(make<__VA_ARGS__>(#__VA_ARGS__));
#include "variants.inc"
#undef V
  cublasHandle_t h;
  cublasCreate(&h);
  const int sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 2048}};
  const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::size_t flush_bytes = 128u << 20;
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));
  for (auto& s : sizes) {
    const int m = s[0], n = s[1], k = s[2];
    std::vector<float> ha(std::size_t(m) * k), hb(std::size_t(k) * n);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto& x : ha) x = d(rng);
    for (auto& x : hb) x = d(rng);
    float *da, *db, *dc, *dr;
    CK(cudaMalloc(&da, ha.size() * 4));
    CK(cudaMalloc(&db, hb.size() * 4));
    CK(cudaMalloc(&dc, std::size_t(m) * n * 4));
    CK(cudaMalloc(&dr, std::size_t(m) * n * 4));
    CK(cudaMemcpy(da, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    const float one = 1, zero = 0;
    auto cublas = [&] {
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, db, n, da, k, &zero, dr, n);
    };
    auto measure = [&](auto&& f) {
      f();
      CK(cudaDeviceSynchronize());
      std::vector<float> t;
      for (int r = 0; r < reps; ++r) {
        CK(cudaMemsetAsync(flush, r, flush_bytes));
        cudaEventRecord(e0);
        f();
        cudaEventRecord(e1);
        CK(cudaEventSynchronize(e1));
        t.push_back(time_ms(e0, e1));
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    const double flops = 2.0 * m * n * k;
    std::vector<float> ref(std::size_t(m) * n), got(ref.size());
    const float cb0 = measure(cublas);
    CK(cudaMemcpy(ref.data(), dr, ref.size() * 4, cudaMemcpyDeviceToHost));
    std::printf("%dx%dx%d cublas %.4f ms %.1f TFLOP/s\n", m, n, k, cb0, flops / cb0 / 1e9);
    for (auto& l : ls) {
      GemmArgs g{da, db, dc, m, n, k, k, n, n};
      dim3 grid((n + l.bn - 1) / l.bn, (m + l.bm - 1) / l.bm);
      CK(cudaMemset(dc, 0xff, std::size_t(m) * n * 4));
      auto f = [&] { l.kernel<<<grid, l.threads, l.smem>>>(g); };
      const float ms = measure(f);
      CK(cudaGetLastError());
      CK(cudaMemcpy(got.data(), dc, got.size() * 4, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double df = double(got[i]) - ref[i];
        num += df * df;
        den += double(ref[i]) * ref[i];
      }
      const double rel = std::sqrt(num / den);
      std::printf("  %-60s %.4f ms %.1f TFLOP/s ratio %.3f rel %.1e%s\n", l.name, ms,
                  flops / ms / 1e9, cb0 / ms, rel, std::isfinite(rel) && rel < 1e-5 ? "" : " BAD");
    }
    const float cb1 = measure(cublas);
    std::printf("  cublas after %.4f ms\n", cb1);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dr);
  }
}
