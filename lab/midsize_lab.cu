// Lab (issue #18, wave 8): the mid-size and long-K shapes where occtune stays below 0.90x
// cuBLAS. cuBLAS's own choice there (docs/results/2026-11-28-h100-wave8, call A, under ncu):
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

using namespace occtune::kernels;

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

// The entry with a chosen minimum of blocks per SM (0: the variant's own), to see what the
// register budget does to one tile.
template <class V, int MINB>
__global__ void __launch_bounds__(V::kMaxThreads, MINB ? MINB : MinBlocksPerSm<V>::value)
    lab_entry(GemmArgs args) {
  extern __shared__ __align__(16) unsigned char smem[];
  V::run(args, smem);
}

template <class V>
__global__ void __launch_bounds__(256) lab_reduce(GemmArgs args) {
  const bool vec = V::reduce_vectorized(args);
  const long long items = V::reduce_items(args, vec);
  for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < items;
       i += (long long)gridDim.x * 256)
    V::reduce_item(args, i, vec);
}

// The cp.async pipeline with fragments double-buffered in registers (CUTLASS's multistage
// order): the fragments of k + 1 are read while k is computed; at the last k of a slab the
// wait for the next slab and the barrier come first, then the next slab's first fragments are
// read, then the last FMAs of this slab. One barrier per slab as before.
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int STAGES, int AREG,
          int SPLITS>
struct PipeFb {
  using Tile = tile::BlockTile<TileFamily::kPipelined, BM, BN, BK, TM, TN, WM, WN, STAGES, 1, AREG,
                               0, 1, 0, occtune::Layout::kNN>;
  static constexpr TileParams kParams{BM, BN, BK, TM, TN, WM, WN, STAGES, SPLITS, AREG, 0, 2, 0};
  static constexpr int kMaxThreads = Tile::kThreads;
  static constexpr int kMinBlocksPerSm = Tile::kMinBlocksPerSm;
  static constexpr std::size_t kSmemBytes = Tile::kSmemBytes;

  __device__ static void mainloop(const GemmArgs& p, float* stages, int m0, int n0, int k_begin,
                                  int k_end, typename Tile::Coords at, float (&acc)[TM][TN]) {
    const auto l = Tile::make_loader(p, m0, n0, tile::aligned16(p.b) && p.ldb % 4 == 0);
    const int length = k_end > k_begin ? k_end - k_begin : 0;
    const int slabs = (length + BK - 1) / BK;
    if (slabs == 0) return;
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
    float fa[2][TM], fb[2][TN];
    Tile::load_fragments(stages, at, 0, fa[0], fb[0]);
    for (int t = 0; t < slabs; ++t) {
      const int next = t + STAGES - 1;
      const int write = next % STAGES;
      const bool refill = next < slabs;
      if (refill) {
        Tile::template issue_slab<true>(p, l, stages + write * Tile::kStageFloats,
                                        k_base + next * BK, k_begin, k_end);
        if constexpr (AREG != 0)
          Tile::template load_a_regs<true>(p, l, ra, k_base + next * BK, k_begin, k_end, vec_a);
      }
      tile::copy_commit();
      const float* read = stages + (t % STAGES) * Tile::kStageFloats;
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        const int cur = kk & 1;
        if (kk < BK - 1) {
          Tile::load_fragments(read, at, kk + 1, fa[cur ^ 1], fb[cur ^ 1]);
        } else if (t + 1 < slabs) {
          tile::copy_wait<STAGES - 2>();
          // AREG: the staged A of slab `next` goes into its stage before the barrier that
          // publishes slab t + 1 (every thread is done with that stage since the last barrier).
          if constexpr (AREG != 0)
            if (refill) Tile::store_a_regs(l, ra, stages + write * Tile::kStageFloats);
          __syncthreads();
          Tile::load_fragments(stages + ((t + 1) % STAGES) * Tile::kStageFloats, at, 0,
                               fa[cur ^ 1], fb[cur ^ 1]);
        }
        Tile::fma_fragments(fa[cur], fb[cur], acc);
      }
    }
  }

  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    int m0, n0;
    Tile::block_origin(m0, n0);
    const auto at = Tile::thread_coords();
    float acc[TM][TN];
    Tile::zero(acc);
    if constexpr (SPLITS == 1) {
      mainloop(p, reinterpret_cast<float*>(smem), m0, n0, 0, p.k, at, acc);
      Tile::template store<true>(acc, at, p.c, p.ldc, m0, n0, p.m, p.n, p.alpha, p.beta);
    } else {
      int kb, ke;
      SplitK<BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, SPLITS, 0>::k_range(p.k, int(blockIdx.z), kb, ke);
      mainloop(p, reinterpret_cast<float*>(smem), m0, n0, kb, ke, at, acc);
      float* slice = p.workspace + std::size_t(blockIdx.z) * std::size_t(p.m) * std::size_t(p.n);
      Tile::template store<false>(acc, at, slice, p.n, m0, n0, p.m, p.n);
    }
  }
  // split-K's second pass, as SplitK's
  __device__ static bool reduce_vectorized(const GemmArgs& p) {
    return SplitK<BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, (SPLITS > 1 ? SPLITS : 2), 0>::reduce_vectorized(p);
  }
  __device__ static long long reduce_items(const GemmArgs& p, bool vec) {
    return vec ? (long long)p.m * p.n / 4 : (long long)p.m * p.n;
  }
  __device__ static void reduce_item(const GemmArgs& p, long long i, bool vec) {
    SplitK<BM, BN, BK, TM, TN, WM, WN, STAGES, AREG, (SPLITS > 1 ? SPLITS : 2), 0>::reduce_item(p, i, vec);
  }
};

// Split-K's second pass with the splits spread over threads too: a block holds 32 float4 items
// (or elements) x G split groups; group g sums splits [g S / G, (g + 1) S / G) in order, then
// group 0 adds the groups' sums in group order. Deterministic for a given G, which depends on
// the output's size only.
template <int SPLITS, int G>
__global__ void __launch_bounds__(256) reduce_groups(GemmArgs p) {
  static_assert(32 * G <= 256 && SPLITS % G == 0, "");
  __shared__ float4 part[G][32];
  const bool vec = p.n % 4 == 0 && p.ldc % 4 == 0 && tile::aligned16(p.c) && tile::aligned16(p.workspace);
  const long long count = (long long)p.m * p.n;
  const long long items = vec ? count / 4 : count;
  const int lane = int(threadIdx.x) % 32, g = int(threadIdx.x) / 32;
  const std::size_t slice = std::size_t(count);
  for (long long base = (long long)blockIdx.x * 32; base < items; base += (long long)gridDim.x * 32) {
    const long long i = base + lane;
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    if (g < G && i < items) {
      constexpr int per = SPLITS / G;
#pragma unroll
      for (int z = 0; z < per; ++z) {
        const std::size_t at = std::size_t(g * per + z) * slice;
        if (vec) {
          const float4 v = tile::load4(p.workspace + at + std::size_t(i) * 4);
          s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
        } else {
          s.x += p.workspace[at + std::size_t(i)];
        }
      }
      part[g][lane] = s;
    }
    __syncthreads();
    if (g == 0 && i < items) {
#pragma unroll
      for (int q = 1; q < G; ++q) {
        const float4 v = part[q][lane];
        s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
      }
      if (vec) {
        const std::size_t e = std::size_t(i) * 4, row = e / p.n, col = e % p.n;
        float* c = p.c + row * std::size_t(p.ldc) + col;
        tile::store4(c, tile::scale4(s, c, p.alpha, p.beta));
      } else {
        const std::size_t row = std::size_t(i) / p.n, col = std::size_t(i) % p.n;
        float* c = p.c + row * std::size_t(p.ldc) + col;
        *c = scale_output(s.x, c, p.alpha, p.beta);
      }
    }
    __syncthreads();
  }
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
    const long long items = (long long)p.m * p.n;
    const long long blocks = (items + 255) / 256;
    lab_reduce<V><<<unsigned(blocks < 4096 ? blocks : 4096), 256>>>(p);
    return cudaGetLastError();
  }
  return cudaSuccess;
}
// The same launch, then the grouped reduction (G split groups per item).
template <class V, int G>
cudaError_t launch_tile_g(const GemmArgs& p) {
  const void* fn;
  if (auto e = prepare<V, 0>(fn)) return e;
  constexpr auto q = V::kParams;
  const dim3 grid((p.n + q.bn - 1) / q.bn, (p.m + q.bm - 1) / q.bm, q.splits);
  lab_entry<V, 0><<<grid, V::kMaxThreads, V::kSmemBytes>>>(p);
  if (auto e = cudaGetLastError()) return e;
  const long long items = (long long)p.m * p.n / 4 + 1;
  const long long blocks = (items + 31) / 32;
  reduce_groups<q.splits, G><<<unsigned(blocks < 65535 ? blocks : 65535), 256>>>(p);
  return cudaGetLastError();
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
#define TILEG(G, ...) \
  Variant{#__VA_ARGS__ " reduce G" #G, Kind::kSplitK, &launch_tile_g<__VA_ARGS__, G>, &tile_ws<__VA_ARGS__>, &regs_of<__VA_ARGS__, 0>}
#define SK(...) \
  Variant{#__VA_ARGS__, Kind::kStreamK, &launch_sk<__VA_ARGS__>, &sk_ws<__VA_ARGS__>, &regs_of<__VA_ARGS__, 0>}

std::vector<Variant> variants() {
  return {
      // occtune's registered tiles, for reference
      TILE(0, Pipelined<128, 128, 8, 8, 8, 32, 64, 3, 1, 0>),
      TILE(0, Pipelined<64, 128, 8, 8, 8, 32, 64, 3, 1, 0>),
      TILE(0, SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 8, 0>),
      TILE(0, SplitK<64, 128, 8, 8, 8, 32, 64, 3, 1, 64, 0>),
      TILE(0, SplitK<32, 128, 32, 4, 8, 16, 64, 4, 0, 32, 0>),
      TILE(0, SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 128, 0>),
      SK(StreamK<64, 128, 8, 8, 8, 32, 64, 3, 1, 0, 4, 1>),
      // call B's best new ones
      TILE(0, Pipelined<64, 64, 16, 8, 4, 32, 32, 3, 1, 0>),
      TILE(0, SplitK<64, 64, 8, 8, 4, 32, 32, 3, 1, 2, 0>),
      TILE(0, SplitK<256, 128, 8, 16, 8, 64, 64, 3, 1, 64, 0>),
      // fragments double-buffered in the cp.async pipeline
      TILE(0, PipeFb<64, 64, 16, 8, 4, 32, 32, 3, 1, 1>),
      TILE(0, PipeFb<64, 64, 8, 8, 4, 32, 32, 3, 1, 1>),
      TILE(0, PipeFb<64, 128, 8, 8, 8, 32, 64, 3, 1, 1>),
      TILE(0, PipeFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 1>),
      TILE(0, PipeFb<128, 128, 8, 8, 8, 32, 64, 3, 1, 1>),
      TILE(0, PipeFb<128, 128, 16, 8, 8, 32, 64, 3, 1, 1>),
      TILE(3, PipeFb<64, 128, 8, 8, 8, 32, 64, 3, 1, 1>),
      TILE(3, PipeFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 1>),
      TILE(2, PipeFb<128, 128, 8, 8, 8, 32, 64, 3, 1, 1>),
      TILE(0, PipeFb<64, 64, 16, 8, 4, 32, 32, 3, 1, 2>),
      TILE(0, PipeFb<64, 128, 16, 8, 8, 32, 64, 3, 1, 2>),
      // the grouped reduction on split-K
      TILEG(8, SplitK<256, 128, 8, 16, 8, 64, 64, 3, 1, 64, 0>),
      TILEG(8, SplitK<64, 128, 8, 8, 8, 32, 64, 3, 1, 64, 0>),
      TILEG(8, SplitK<32, 128, 32, 4, 8, 16, 64, 4, 0, 32, 0>),
      TILEG(8, SplitK<32, 128, 16, 4, 8, 16, 64, 3, 0, 128, 0>),
      TILEG(4, SplitK<32, 128, 32, 4, 8, 16, 64, 4, 0, 32, 0>),
      TILEG(8, PipeFb<256, 128, 8, 16, 8, 64, 64, 3, 1, 64>),
      TILEG(8, PipeFb<64, 128, 8, 8, 8, 32, 64, 3, 1, 64>),
      TILEG(8, PipeFb<128, 64, 8, 8, 8, 32, 64, 4, 1, 64>),
      TILEG(8, PipeFb<32, 128, 32, 4, 8, 16, 64, 4, 0, 32>),
      TILEG(2, PipeFb<64, 64, 8, 8, 4, 32, 32, 3, 1, 2>),
  };
}

__global__ void fill(float* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = float(h & 0xffff) / 32768.0f - 1.0f;
  }
}
__global__ void poison(float* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = __int_as_float(0x7fc00000);
}

struct Timer {
  cudaEvent_t a, b;
  float* flush;
  std::size_t flush_bytes;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    flush_bytes = std::size_t(l2) * 2;
    CK(cudaMalloc(&flush, flush_bytes));
  }
  template <class F>
  double median_ms(F&& f, int reps) {
    std::vector<float> t;
    for (int r = 0; r < reps + 2; ++r) {
      CK(cudaMemsetAsync(flush, r, flush_bytes));
      CK(cudaEventRecord(a));
      f();
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
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
