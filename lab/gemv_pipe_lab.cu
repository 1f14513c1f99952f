// Lab (issue #18): a single-row product y = a B (M = 1, B row-major K x N, leading dimension N)
// with the large operand streamed into a shared-memory ring by cp.async instead of into
// registers, against cuBLAS in the same process. The skinny family's register batches expose
// an HBM round trip between batches; a ring of STAGES slabs of ROWS rows keeps STAGES - 1 slabs
// in flight across the block's barriers. Call A of docs/results/2026-11-29-h200-wave12/ copied
// misaligned rows element by element (4-byte cp.async): far slower (0.55-0.78x cuBLAS); the
// window kernels (calls B-E) copy each row's aligned 16-byte window and read it at the row's
// offset. The K splits of a column tile form a cluster and add their sums through distributed
// shared memory in rank order (as SkinnyCluster does); the narrow tiles (calls D, E) need none.
// Wave 13 (docs/results/2026-11-29-h200-wave13/, calls A, B, F): occtune's own rings entered as
// gemm_entry enters them (make_variant): SkinnyPipeWindow's windows, more slab shapes, and the
// K split over a cluster.
// Timing as `occtune bench`: the L2 flushed (lab_support.cuh's FlushTimer) before every sample,
// events around the launch, the median; the configurations and cuBLAS interleaved per round.
// Not part of occtune: a scratch program whose output is quoted in docs/PERFORMANCE.md.
// Build (from the repository root): nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iinclude
//   lab/gemv_pipe_lab.cu -lcublas -o gemv_pipe_lab
// Usage: gemv_pipe_lab [--reps N] [--batched] [--flush-zero] [--default-math] [--full-mantissa]
//   [--own-stream] MxNxK... (M <= 8)
#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/skinny.cuh"  // occtune's SkinnyPipe, run here beside the lab's kernels
#include "lab_support.cuh"

namespace cg = cooperative_groups;
constexpr int kThreads = 256, kWarps = 8;
// --own-stream (call O): every launch, flush, event and cuBLAS call on one created non-blocking
// stream, as occtune's LaunchSampler uses; otherwise the legacy default stream.
static cudaStream_t g_stream = nullptr;

// cp.async through occtune's own wrappers (kernels/tile_core.cuh): evict-first for B (and for
// A unless PLAIN), plain copies for call I's and J's PLAIN kernels. (Call A also measured
// the .L2::256B prefetch hint, "pf": no clear gain, not kept.)
namespace tile = occtune::kernels::tile;
template <int BYTES>
__device__ __forceinline__ void copy(float* dst, const float* src, int src_bytes) {
  tile::copy_async<BYTES, true>(dst, src, src_bytes);
}

// Floats between the starts of two rows of a stage: a window row holds one float4 more, and
// the rows of one warp-pass start L banks apart, so that their LDS.32 do not collide.
template <int COLS, bool WINDOW>
__host__ __device__ constexpr int row_stride() {
  return !WINDOW ? COLS : COLS < 128 ? COLS + COLS / 4 : COLS + 4;
}
template <int S, int COLS, int ROWS, bool WINDOW>
__host__ __device__ constexpr int stage_floats() {
  return ROWS * row_stride<COLS, WINDOW>() + ROWS * S;
}

// One column tile of COLS outputs (blockIdx.x) for S rows of A (blockIdx.y), K split SPLITS ways
// (blockIdx.z, the cluster). COLS / 4 lanes share a row (four columns each), so a warp takes
// 128 / COLS rows at once. WINDOW 0: rows 16-byte aligned, LDS.128. WINDOW 1: any alignment:
// each row's aligned window (COLS / 4 + 1 float4s from x0 - o, o the row's floats past a
// 16-byte boundary) is copied whole, and lane c of a row owns columns c + (COLS / 4) j (four
// LDS.32 at o + c + (COLS / 4) j).
// ROWLOOP (window kernels, call I): the copies issued a row per group of COLS / 4 lanes (lane c
// copies float4 c, lane 0 also the window's last), without a division per copy; PLAIN: those
// copies and A's without the evict-first policy (A's also in the plain kernels, call J).
template <int S, int COLS, int ROWS, int STAGES, int SPLITS, bool WINDOW, bool ROWLOOP = false,
          bool PLAIN = false>
__global__ void __launch_bounds__(kThreads) gemv_pipe(const float* __restrict__ a,
                                                      const float* __restrict__ b,
                                                      float* __restrict__ y, int m, int n, int k) {
  constexpr int L = COLS / 4, G = 32 / L;  // lanes per row, rows per warp-pass
  static_assert(ROWS % (kWarps * G) == 0, "a stage is whole warp-passes");
  extern __shared__ float4 smem4[];
  float* sm = reinterpret_cast<float*>(smem4);
  constexpr int F = stage_floats<S, COLS, ROWS, WINDOW>(), RS = row_stride<COLS, WINDOW>();
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int x0 = blockIdx.x * COLS, s0 = blockIdx.y * S;
  const int per = (k + SPLITS - 1) / SPLITS;
  const int chunk = (per + ROWS - 1) / ROWS * ROWS;
  const int kb = blockIdx.z * chunk;
  const int ke = min(kb + chunk, k);
  const int slabs = ke > kb ? (ke - kb + ROWS - 1) / ROWS : 0;
  const unsigned first = unsigned(reinterpret_cast<uintptr_t>(b) / 4) & 3u, step = unsigned(n) & 3u;
  auto offset = [&](int kk) { return WINDOW ? int((first + unsigned(kk) * step) & 3u) : 0; };
  auto issue = [&](int st) {
    if (st < slabs) {
      float* buf = sm + (st % STAGES) * F;
      const int k0 = kb + st * ROWS;
      if constexpr (!WINDOW) {
        // Call A's loop: 16-byte copies, the tail of N zero-filled.
        for (int i = tid; i < ROWS * L; i += kThreads) {
          const int r = i / L, c = x0 + 4 * (i % L), kk = k0 + r;
          const int bytes = kk < ke ? max(0, min(16, 4 * (n - c))) : 0;
          copy<16>(buf + r * RS + 4 * (i % L), bytes ? b + size_t(kk) * n + c : b, bytes);
        }
      } else if constexpr (ROWLOOP) {
        const int slot = warp * G + lane / L, c4 = lane % L;
        for (int r = slot; r < ROWS; r += kWarps * G) {
          const int kk = k0 + r, o = offset(kk);
          for (int q = c4; q <= L; q += L) {
            if (q == L && (c4 != 0 || o == 0)) break;  // lane 0 takes the last float4
            const int c = x0 - o + 4 * q;
            float* dst = buf + r * RS + 4 * q;
            if (c >= 0 || kk >= ke) {
              const int bytes = kk < ke ? max(0, min(16, 4 * (n - c))) : 0;
              const float* src = bytes ? b + size_t(kk) * n + c : b;
              if constexpr (PLAIN)
                tile::copy_async<16>(dst, src, bytes);
              else
                copy<16>(dst, src, bytes);
            } else {
              for (int j = 0; j < 4; ++j)
                if (c + j >= 0)
                  copy<4>(dst + j, b + size_t(kk) * n + c + j, c + j < n ? 4 : 0);
            }
          }
        }
      } else {
        for (int i = tid; i < ROWS * (L + 1); i += kThreads) {
          const int r = i / (L + 1), q = i % (L + 1), kk = k0 + r, o = offset(kk);
          const int c = x0 - o + 4 * q;
          float* dst = buf + r * RS + 4 * q;
          if (c >= 0 || kk >= ke) {  // c < 0: the first window of a misaligned row at x0 = 0
            const int bytes = kk < ke && (q < L || o != 0) ? max(0, min(16, 4 * (n - c))) : 0;
            copy<16>(dst, bytes ? b + size_t(kk) * n + c : b, bytes);
          } else {
            for (int j = 0; j < 4; ++j)
              if (c + j >= 0)
                copy<4>(dst + j, b + size_t(kk) * n + c + j, c + j < n ? 4 : 0);
          }
        }
      }
      for (int i = tid; i < ROWS * S; i += kThreads) {
        const int r = i / S, s = i % S, kk = k0 + r;
        const bool in = kk < ke && s0 + s < m;
        if constexpr (PLAIN)  // call J: A without the evict-first policy, as occtune copies it
          tile::copy_async<4>(buf + ROWS * RS + i, in ? a + size_t(s0 + s) * k + kk : a,
                              in ? 4 : 0);
        else
          copy<4>(buf + ROWS * RS + i, in ? a + size_t(s0 + s) * k + kk : a, in ? 4 : 0);
      }
    }
    tile::copy_commit();
  };
  float acc[S][4];
#pragma unroll
  for (int s = 0; s < S; ++s) acc[s][0] = acc[s][1] = acc[s][2] = acc[s][3] = 0.f;
#pragma unroll
  for (int st = 0; st < STAGES - 1; ++st) issue(st);
  const int g = warp * G + lane / L, c4 = lane % L;  // this lane's row slot and float4
  for (int st = 0; st < slabs; ++st) {
    tile::copy_wait<STAGES - 2>();
    __syncthreads();
    issue(st + STAGES - 1);
    const float* buf = sm + (st % STAGES) * F;
    const int k0 = kb + st * ROWS;
#pragma unroll
    for (int jr = 0; jr < ROWS / (kWarps * G); ++jr) {
      const int r = g + kWarps * G * jr;
      float v[4];
      if constexpr (WINDOW) {
        const float* at = buf + r * RS + offset(k0 + r) + c4;
        v[0] = at[0], v[1] = at[L], v[2] = at[2 * L], v[3] = at[3 * L];
      } else {
        const float4 q = reinterpret_cast<const float4*>(buf + r * RS)[c4];
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
      }
      float as[S];
      if constexpr (S % 4 == 0) {
#pragma unroll
        for (int s = 0; s < S; s += 4) {
          const float4 q = *reinterpret_cast<const float4*>(buf + ROWS * RS + r * S + s);
          as[s] = q.x, as[s + 1] = q.y, as[s + 2] = q.z, as[s + 3] = q.w;
        }
      } else {
#pragma unroll
        for (int s = 0; s < S; ++s) as[s] = buf[ROWS * RS + r * S + s];
      }
#pragma unroll
      for (int s = 0; s < S; ++s)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[s][j] = fmaf(as[s], v[j], acc[s][j]);
    }
  }
  tile::copy_wait<0>();
  __syncthreads();
  // Row-slot sums in slot order: red[s][slot][col] (col the tile column), then part[s][col].
  constexpr int kSlots = kWarps * G;
  float* red = sm;
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      red[(s * kSlots + g) * COLS + (WINDOW ? c4 + L * j : 4 * c4 + j)] = acc[s][j];
  __syncthreads();
  float* part = sm + S * kSlots * COLS;
  for (int e = tid; e < S * COLS; e += kThreads) {
    const int s = e / COLS, c = e % COLS;
    float sum = 0.f;
    for (int w = 0; w < kSlots; ++w) sum += red[(s * kSlots + w) * COLS + c];
    part[e] = sum;
  }
  if constexpr (SPLITS == 1) {
    __syncthreads();
    for (int e = tid; e < S * COLS; e += kThreads) {
      const int s = e / COLS, x = x0 + e % COLS;
      if (s0 + s < m && x < n) y[size_t(s0 + s) * n + x] = part[e];
    }
  } else {
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    constexpr int share = S * COLS / SPLITS;
    const int lo = int(cluster.block_rank()) * share;
    for (int e = lo + tid; e < lo + share; e += kThreads) {
      const int s = e / COLS, x = x0 + e % COLS;
      if (s0 + s >= m || x >= n) continue;
      float sum = 0.f;
      for (int r = 0; r < SPLITS; ++r) sum += cluster.map_shared_rank(part, r)[e];
      y[size_t(s0 + s) * n + x] = sum;
    }
    __syncwarp();
    cluster.sync();
  }
}

struct Config {
  std::string name;
  int s, cols, rows, stages, splits;
  bool window;
  void (*f)(const float*, const float*, float*, int, int, int);
  // Whether every launch sets the kernel's shared-memory limit first, as occtune's
  // launch_variant did (call H): a host call between the start event and the launch.
  bool attr_each = false;
  // Set for the kernels entered through occtune's gemm_entry (make_variant); f is then unused.
  void (*g)(occtune::kernels::GemmArgs) = nullptr;
  // occtune's variants: their own tile width (SkinnyPipeWindow's is cols - 4) and ring bytes.
  int tile_cols = 0;
  size_t family_smem = 0;
  size_t smem() const {
    if (family_smem) return family_smem;
    const int rs = !window ? cols : cols < 128 ? cols + cols / 4 : cols + 4;
    return size_t(stages) * (rows * rs + rows * s) * sizeof(float);
  }
};

template <int S, int ROWS, int STAGES, int SPLITS, bool WINDOW, int COLS = 128,
          bool ROWLOOP = false, bool PLAIN = false>
Config make() {
  char name[64];
  std::snprintf(name, sizeof name, "%s S%d c%d r%d s%d z%d", WINDOW ? (ROWLOOP ? PLAIN ?
                "rowwin-plain" : "rowwin" : "window") : PLAIN ? "pipe-plainA" : "pipe", S, COLS,
                ROWS, STAGES, SPLITS);
  return {name, S, COLS, ROWS, STAGES, SPLITS, WINDOW,
          gemv_pipe<S, COLS, ROWS, STAGES, SPLITS, WINDOW, ROWLOOP, PLAIN>};
}

// occtune's kernel (kernels/skinny_pipe.cuh) under the lab's signature, for a comparison in one
// process (call G).
template <class V>
__global__ void __launch_bounds__(kThreads) family(const float* __restrict__ a,
                                                   const float* __restrict__ b,
                                                   float* __restrict__ y, int m, int n, int k) {
  extern __shared__ __align__(16) unsigned char family_smem[];
  occtune::kernels::GemmArgs p{a, b, y, m, n, k, k, n, n};
  V::run(p, family_smem);
}

template <int S, int COLS, int ROWS, int STAGES>
Config make_family(bool attr_each = false) {
  char name[64];
  std::snprintf(name, sizeof name, "family S%d c%d r%d s%d%s", S, COLS, ROWS, STAGES,
                attr_each ? " attr" : "");
  return {name, S, COLS, ROWS, STAGES, 1, false,
          family<occtune::kernels::SkinnyPipe<S, COLS, ROWS, STAGES>>, attr_each};
}

// Wave 13: occtune's SkinnyPipeWindow (any alignment: aligned 16-byte windows, COLS - 4
// columns a tile), SkinnyPipe's ring at more shapes of slab for the 256 MiB operands, and
// either with K split over a cluster of SPLITS blocks.
template <int S, int COLS, int ROWS, int STAGES, bool WINDOW, int SPLITS = 1>
Config make_variant() {
  using V = occtune::kernels::SkinnyPipeIn<occtune::Layout::kNN, S, COLS, ROWS, STAGES,
                                           WINDOW, SPLITS>;
  char name[64];
  std::snprintf(name, sizeof name, "%s S%d c%d r%d s%d z%d", WINDOW ? "fwindow" : "family", S,
                COLS, ROWS, STAGES, SPLITS);
  Config c{name, S, COLS, ROWS, STAGES, SPLITS, WINDOW, nullptr};
  // Entered through occtune's own gemm_entry (call P: the arguments as one GemmArgs by value,
  // so the compiler knows nothing of lda = k, ldb = ldc = n or the pointers' disjointness).
  c.g = occtune::kernels::gemm_entry<V>;
  c.tile_cols = V::kTileN;
  c.family_smem = V::kSmemBytes;
  return c;
}

#define SPLIT_SET(S, R, ST, W) \
  make<S, R, ST, 1, W>(), make<S, R, ST, 2, W>(), make<S, R, ST, 4, W>(), make<S, R, ST, 8, W>()

static cudaError_t launch(const Config& c, const float* a, const float* b, float* y, int m,
                          int n, int k) {
  if (c.attr_each) {
    const cudaError_t err =
        cudaFuncSetAttribute(c.f, cudaFuncAttributeMaxDynamicSharedMemorySize, int(c.smem()));
    if (err != cudaSuccess) return err;
  }
  cudaLaunchConfig_t cfg = {};
  const int cols = c.tile_cols ? c.tile_cols : c.cols;
  cfg.gridDim = dim3((n + cols - 1) / cols, (m + c.s - 1) / c.s, c.splits);
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = c.smem();
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 1, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = c.splits;
  cfg.attrs = attr;
  cfg.numAttrs = c.splits > 1 ? 1 : 0;
  cfg.stream = g_stream;
  if (c.g) {
    const occtune::kernels::GemmArgs p{a, b, y, m, n, k, k, n, n};
    return cudaLaunchKernelEx(&cfg, c.g, p);
  }
  return cudaLaunchKernelEx(&cfg, c.f, a, b, y, m, n, k);
}

int main(int argc, char** argv) {
  int reps = 30;
  bool batched = false, flush_zero = false, default_math = false, full_mantissa = false;
  bool own_stream = false;
  std::vector<std::array<int, 3>> shapes;
  for (int i = 1; i < argc; ++i) {
    // Call L: the flush writes zeros every time, and cuBLAS in its default math mode, as
    // occtune's ShapeBench does (the lab: the round number, and pedantic math).
    if (!std::strcmp(argv[i], "--own-stream")) {
      own_stream = true;
      continue;
    }
    if (!std::strcmp(argv[i], "--full-mantissa")) {
      full_mantissa = true;
      continue;
    }
    if (!std::strcmp(argv[i], "--flush-zero")) {
      flush_zero = true;
      continue;
    }
    if (!std::strcmp(argv[i], "--default-math")) {
      default_math = true;
      continue;
    }
    if (!std::strcmp(argv[i], "--batched")) {
      batched = true;
      continue;
    }
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
      continue;
    }
    int m, n, k;
    if (std::sscanf(argv[i], "%dx%dx%d", &m, &n, &k) != 3 || m < 1 || m > 8) {
      std::fprintf(stderr, "bad shape '%s' (MxNxK, M <= 8)\n", argv[i]);
      return 2;
    }
    shapes.push_back({m, n, k});
  }
  std::vector<Config> configs = {
      SPLIT_SET(1, 32, 3, false), SPLIT_SET(1, 32, 4, false), SPLIT_SET(1, 64, 3, false),
      SPLIT_SET(1, 32, 4, true),  SPLIT_SET(1, 64, 3, true),  SPLIT_SET(4, 32, 4, false),
      SPLIT_SET(4, 64, 3, false), SPLIT_SET(8, 32, 4, false), SPLIT_SET(8, 64, 3, false),
      SPLIT_SET(8, 32, 4, true),
      // Narrow tiles without a split (cuBLAS's gemv: 128 blocks over all of K at N = 4096).
      make<1, 128, 4, 1, false, 32>(), make<1, 256, 4, 1, false, 32>(),
      make<1, 128, 8, 1, false, 32>(), make<1, 256, 6, 1, false, 32>(),
      make<1, 128, 4, 2, false, 32>(), make<1, 128, 4, 1, false, 64>(),
      make<1, 64, 6, 1, false, 64>(), make<1, 64, 6, 2, false, 64>(),
      make<1, 256, 4, 1, false, 16>(), make<1, 512, 4, 1, false, 16>(),
      make<4, 128, 4, 1, false, 32>(), make<4, 64, 6, 1, false, 64>(),
      make<8, 128, 4, 1, false, 32>(), make<8, 64, 6, 1, false, 64>(),
      // The same narrow tiles through windows (any alignment).
      make<1, 128, 4, 1, true, 32>(), make<1, 256, 4, 1, true, 32>(),
      make<1, 256, 4, 1, true, 16>(), make<1, 512, 4, 1, true, 16>(),
      make<1, 128, 4, 1, true, 64>(), make<1, 128, 4, 2, true, 32>(),
      // Call I: the windows issued a row per lane group, with and without evict-first.
      make<1, 256, 4, 1, true, 32, true>(), make<1, 256, 4, 1, true, 32, true, true>(),
      make<1, 128, 4, 1, true, 32, true>(), make<1, 128, 4, 1, true, 32, true, true>(),
      make<1, 32, 4, 8, true, 128, true>(), make<1, 32, 4, 8, true, 128, true, true>(),
      make<1, 64, 3, 4, true, 128, true>(), make<1, 64, 3, 4, true, 128, true, true>(),
      make<1, 512, 4, 1, true, 16, true, true>(),
      // Call J: A's copies without the evict-first policy.
      make<1, 256, 4, 1, false, 32, false, true>(), make<4, 128, 4, 1, false, 32, false, true>(),
      make<8, 128, 4, 1, false, 32, false, true>(),
      make<4, 128, 4, 1, true, 32>(), make<8, 128, 4, 1, true, 32>(),
      make_family<1, 16, 512, 4>(), make_family<1, 32, 256, 4>(), make_family<1, 32, 128, 4>(),
      make_family<1, 128, 64, 3>(), make_family<4, 32, 128, 4>(), make_family<8, 32, 128, 4>(),
      make_family<1, 16, 512, 4>(true), make_family<1, 32, 256, 4>(true),
      make_family<1, 32, 128, 4>(true), make_family<8, 32, 128, 4>(true),
      // Call P's entry as gemm_entry enters the kernel (named "family-args" until wave 13).
      make_variant<1, 32, 256, 4, false>(), make_variant<1, 32, 128, 4, false>(),
      make_variant<8, 32, 128, 4, false>(),
      // Wave 13 (call A): windows, and slabs for the 256 MiB operands.
      make_variant<1, 32, 256, 4, true>(), make_variant<1, 32, 128, 4, true>(),
      make_variant<1, 64, 128, 4, true>(), make_variant<1, 64, 64, 6, true>(),
      make_variant<1, 128, 64, 3, true>(), make_variant<1, 16, 512, 4, true>(),
      make_variant<4, 32, 128, 4, true>(), make_variant<8, 32, 128, 4, true>(),
      make_variant<8, 64, 64, 4, true>(),
      make_variant<1, 32, 128, 6, false>(), make_variant<1, 32, 64, 8, false>(),
      make_variant<1, 16, 256, 6, false>(), make_variant<1, 64, 128, 4, false>(),
      make_variant<1, 64, 64, 6, false>(), make_variant<1, 32, 256, 3, false>(),
      // <8, 32, 64, 6> and <8, 16, 128, 4> (call A of wave 13) no longer build: since wave 14
      // the rings with S >= 4 copy A's rows as vectors, four rows a thread (skinny_pipe.cuh).
      make_variant<8, 32, 128, 3, false>(), make_variant<8, 64, 64, 4, false>(),
      make_variant<8, 32, 256, 2, false>(), make_variant<8, 64, 128, 3, false>(),
      // Call B: K split over a cluster, for narrow N.
      make_variant<1, 32, 128, 4, true, 2>(), make_variant<1, 32, 128, 4, true, 4>(),
      make_variant<1, 32, 128, 4, true, 8>(), make_variant<1, 64, 128, 4, true, 4>(),
      make_variant<1, 64, 128, 4, true, 8>(), make_variant<1, 32, 256, 4, true, 4>(),
      make_variant<1, 128, 64, 3, true, 4>(), make_variant<8, 32, 128, 4, true, 4>(),
      make_variant<1, 32, 128, 4, false, 4>(), make_variant<1, 32, 128, 4, false, 8>(),
      make_variant<1, 64, 128, 4, false, 4>(), make_variant<8, 32, 128, 4, false, 4>()};
  for (auto& c : configs) {
    if (c.g)
      CK(cudaFuncSetAttribute(c.g, cudaFuncAttributeMaxDynamicSharedMemorySize, int(c.smem())));
    else
      CK(cudaFuncSetAttribute(c.f, cudaFuncAttributeMaxDynamicSharedMemorySize, int(c.smem())));
  }
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 4;
  cublasSetMathMode(h, default_math ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH);
  if (own_stream) {
    CK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    if (cublasSetStream(h, g_stream) != CUBLAS_STATUS_SUCCESS) return 4;
  }
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t flush_bytes = size_t(l2) * 2;
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));
  FlushTimer timer(g_stream);
  for (const auto& shape : shapes) {
    const int m = shape[0], n = shape[1], k = shape[2];
    const size_t mn = size_t(m) * n;
    const bool aligned = n % 4 == 0;
    // The smallest S that covers M; the window kernels for any N, the plain ones for N % 4 = 0.
    const int want_s = m == 1 ? 1 : m <= 4 ? 4 : 8;
    std::vector<Config> use;
    for (auto& c : configs)
      if (c.s == want_s && (c.window || aligned)) use.push_back(c);
    float *a, *b, *y, *ref;
    CK(cudaMalloc(&a, size_t(m) * k * 4));
    CK(cudaMalloc(&b, size_t(k) * n * 4));
    CK(cudaMalloc(&y, mn * 4));
    CK(cudaMalloc(&ref, mn * 4));
    fill<<<1024, 256>>>(a, size_t(m) * k, 1, full_mantissa);
    fill<<<1024, 256>>>(b, size_t(k) * n, 2, full_mantissa);
    CK(cudaDeviceSynchronize());  // the fills are on the legacy stream, g_stream may not be
    const float one = 1.f, zero = 0.f;
    auto run_cublas = [&] {
      return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, ref, n);
    };
    if (run_cublas() != CUBLAS_STATUS_SUCCESS) return 5;
    CK(cudaDeviceSynchronize());
    std::vector<float> want(mn), got(mn);
    CK(cudaMemcpy(want.data(), ref, mn * 4, cudaMemcpyDeviceToHost));
    // Correctness of every configuration (NaN-poisoned output, max |diff| against a bound).
    std::vector<std::string> bad;
    for (auto& c : use) {
      CK(cudaMemset(y, 0xff, mn * 4));
      CK(cudaDeviceSynchronize());
      CK(launch(c, a, b, y, m, n, k));
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), y, mn * 4, cudaMemcpyDeviceToHost));
      if (worst_abs_error(got, want) > 1e-4 * std::sqrt(double(k)) + 1e-5) bad.push_back(c.name);
    }
    std::vector<std::vector<float>> t(use.size() + 1);
    // --batched (call J): occtune's LaunchSampler's pattern instead, every sample of one
    // configuration enqueued (flush, event, launch, event) before one synchronisation.
    if (batched) {
      std::vector<cudaEvent_t> ev(2 * size_t(reps));
      for (auto& e : ev) CK(cudaEventCreate(&e));
      for (size_t i = 0; i <= use.size(); ++i) {
        for (int rep = 0; rep < reps; ++rep) {
          CK(cudaMemsetAsync(flush, flush_zero ? 0 : rep, flush_bytes, g_stream));
          CK(cudaEventRecord(ev[2 * size_t(rep)], g_stream));
          if (i == 0) {
            if (run_cublas() != CUBLAS_STATUS_SUCCESS) return 5;
          } else {
            CK(launch(use[i - 1], a, b, y, m, n, k));
          }
          CK(cudaEventRecord(ev[2 * size_t(rep) + 1], g_stream));
        }
        CK(cudaEventSynchronize(ev.back()));
        for (int rep = 0; rep < reps; ++rep) {
          float ms;
          CK(cudaEventElapsedTime(&ms, ev[2 * size_t(rep)], ev[2 * size_t(rep) + 1]));
          t[i].push_back(ms);
        }
      }
      for (auto& e : ev) CK(cudaEventDestroy(e));
    }
    for (int rep = 0; rep < (batched ? 0 : reps); ++rep) {
      for (size_t i = 0; i <= use.size(); ++i)
        t[i].push_back(timer.sample_ms(
            [&] {
              if (i == 0)
                CK(run_cublas() == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown);
              else
                CK(launch(use[i - 1], a, b, y, m, n, k));
            },
            flush_zero ? 0 : rep));
    }
    const auto median = median_of;
    const double cub = median(t[0]);
    const double bytes = double(k) * n * 4;
    std::printf("%dx%dx%d %s: cuBLAS %.2f us (%.2f TB/s)\n", m, n, k,
                aligned ? "aligned" : "misaligned", cub * 1e3, bytes / cub / 1e9);
    std::vector<std::pair<double, std::string>> rows;
    for (size_t i = 0; i < use.size(); ++i) rows.push_back({median(t[i + 1]), use[i].name});
    std::sort(rows.begin(), rows.end());
    for (size_t i = 0; i < rows.size(); ++i)
      if (i < 6 || rows[i].second.rfind("family", 0) == 0 ||
          rows[i].second.rfind("fwindow", 0) == 0 ||
          rows[i].second.find(" c32 r") != std::string::npos)
        std::printf("  %-24s %8.2f us  %.3fx cuBLAS  %.2f TB/s\n", rows[i].second.c_str(),
                    rows[i].first * 1e3, cub / rows[i].first, bytes / rows[i].first / 1e9);
    for (auto& s : bad) std::printf("  WRONG: %s\n", s.c_str());
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(y));
    CK(cudaFree(ref));
  }
  return 0;
}
