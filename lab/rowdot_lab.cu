// Lab (issue #18): the skinny family's row-dot kernel (kernels/skinny_rowdot.cuh: A's rows
// straight into registers, B through L1, no barrier in the main loop) for a small N with A
// large, against the family's rings for N <= 16 and its register kernels, and cuBLAS, in one
// process. Timing as `occtune bench`: the L2 flushed (lab_support.cuh's FlushTimer) before every
// sample, events around the launch, the median; the configurations and cuBLAS interleaved per
// round. Every configuration is checked against cuBLAS (pedantic math) on a NaN-poisoned C.
// Not part of occtune: a scratch program whose output is quoted in docs/PERFORMANCE.md.
// Build (from the repository root): nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iinclude
//   lab/rowdot_lab.cu -lcublas -o rowdot_lab
// Usage: rowdot_lab [--reps N] [--only TEXT] [--one-per-sm] [--occupancy] [--policy]
//                   [--after-cublas]
//   MxNxK... (N or M <= 16)
//   --only TEXT: only the configurations whose names contain TEXT.
//   --one-per-sm: each configuration also as "NAME 1sm", its dynamic shared memory raised to
//   kOneBlockSmem so that one block fits an SM (the kernel uses none of the rest): at
//   1000x12x100000 the dense-B kernel of the 16-row ring ran 152.1 us over 2 (126 blocks) and
//   192.4 over 4 (252), the 32-row ring 153.8 over 3 (96) and 195.2 over 4 (128) (wave 28, call
//   A); this tells whether two blocks sharing an SM is what slows the splits over 4 and 8
//   (wave 30: it is not; the 16-row ring's 63 clusters of 4 are one past the 62 the GPU holds).
//   --occupancy: per shape and configuration, its grid (blocks, clusters) against the clusters
//   (blocks where it has none) the GPU holds at once (cudaOccupancyMaxActiveClusters), and the
//   waves that makes: wave 30's Nsight Compute pages (H200) had the SMs' mean active cycles at
//   55-88% of the busiest SM's on the cluster rings (the split over 4 at 1000x12x100000 lowest).
//   --policy: each cluster configuration also as "NAME spread" and "NAME lb", launched with the
//   cluster scheduling policy preference Spread or LoadBalancing (since wave 31 occtune asks
//   for LoadBalancing where it saves a wave of clusters, kernels/cluster_policy.cuh).
//   --after-cublas: cuBLAS runs (untimed) before each configuration's L2 flush and sample, as
//   in occtune bench's interleaved re-measurement (wave 31: whether what ran before matters).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cluster_policy.cuh"
#include "kernels/skinny.cuh"
#include "kernels/skinny_rowdot.cuh"
#include "lab_support.cuh"

namespace k = occtune::kernels;

// MINB: __launch_bounds__'s minimum blocks an SM (0: none), to hold the registers down (call C).
template <class V, int MINB = 0>
__global__ void __launch_bounds__(256, MINB) entry(k::GemmArgs p) {
  extern __shared__ __align__(16) unsigned char smem[];
  V::run(p, smem);
}

struct Config {
  std::string name;
  int min_n, max_n;  // the N this configuration is run for (m_side: the M)
  void (*f)(k::GemmArgs);
  int tile_m, tile_n;
  size_t smem;
  int splits = 1;        // blocks along K in a thread block cluster (grid z)
  bool m_side = false;   // a ring for M <= 16 (B the large operand)
  // The cluster scheduling policy the launch asks for (--policy): the default, spread (the
  // blocks of a cluster to different SMs) or load balancing.
  cudaClusterSchedulingPolicy policy = cudaClusterSchedulingPolicyDefault;
  bool (*applies)(const k::GemmArgs&) = nullptr;  // where set, run only where it holds
  // A split through a workspace (kernels/skinny_pipe.cuh, WS): its bytes at (m, n), and the
  // zeroing of its tickets before every launch (zero_tickets below).
  std::size_t (*workspace_bytes)(long long, long long) = nullptr;
  cudaError_t (*zero_tickets)(const k::GemmArgs&) = nullptr;
  bool runs_on(int m, int n) const {
    const int small = m_side ? m : n;
    return small >= min_n && small <= max_n;
  }
};

// A row-dot configuration, named from the variant's own parameters (kernels/skinny_rowdot.cuh),
// run for the N its tile's width serves better than the next narrower one.
template <class V, int MINB>
Config rowdot_of() {
  char name[64];
  std::snprintf(name, sizeof name, "%s R%d LK%d NC%d KW%d U%d", V::kRing ? "ring-dot" : "rowdot",
                V::kRows, V::kLanesPerRow, V::kColumns, V::kWarpsAlongK, V::kUnroll);
  std::string label = name;
  if (V::kRing) label += " D" + std::to_string(V::kRing);
  if (MINB) label += " b" + std::to_string(MINB);
  return {label, V::kColumns / 2 + 1, V::kColumns, entry<V, MINB>, V::kTileM, V::kTileN,
          V::kSmemBytes};
}
template <int R, int LK, int NC, int KW, int U, int MINB = 0>
Config rowdot() {
  return rowdot_of<k::SkinnyRowDot<R, LK, NC, KW, U>, MINB>();
}
template <int R, int LK, int NC, int KW, int U, int D, int MINB = 0>
Config rowdot_ring() {
  return rowdot_of<k::SkinnyRowDotRing<R, LK, NC, KW, U, D>, MINB>();
}
// A workspace split's tickets zeroed, as kernels/skinny.cu's launch zeroes them.
template <class V>
cudaError_t zero_tickets(const k::GemmArgs& p) {
  return cudaMemsetAsync(V::tickets(p), 0, std::size_t(V::tiles(p.m, p.n)) * sizeof(unsigned));
}

// A ring for N <= 16 (or, m_side, for M <= 16: B the large operand), its K split over a
// cluster of V::kSplits blocks where it has one.
template <class V>
Config ring(const std::string& name, int min_small, int max_small, bool m_side = false) {
  Config c{name, min_small, max_small, k::gemm_entry<V>, V::kTileM, V::kTileN, V::kSmemBytes,
           V::kSplits, m_side};
  if constexpr (V::kWorkspaceSplit) {
    c.workspace_bytes = &V::workspace_bytes;
    c.zero_tickets = &zero_tickets<V>;
  }
  return c;
}

// A ring for N <= 16 (its K split over a cluster where it has one), and the same ring as its
// dense-B kernel (kernels/skinny_pipe.cuh), which kernels/skinny.cu launches where B's rows are
// misaligned and B is dense, and (slabs of 256 rows at most) as its A-window kernels, launched
// where A's rows are misaligned (" win"; " dwin" where B is dense too, " dvwin" where N is also a
// multiple of 4 and the ring has that kernel, kDenseVecTwin; each run only there): each run where
// it is registered to run and where it is not.
template <class V>
void with_dense(std::vector<Config>& out, const std::string& name, int min_n, int max_n) {
  const Config c = ring<V>(name, min_n, max_n);
  const auto twin = [&](const char* suffix, void (*f)(k::GemmArgs),
                        bool (*applies)(const k::GemmArgs&)) {
    Config t = c;
    t.name += suffix;
    t.f = f;
    t.applies = applies;
    out.push_back(t);
  };
  out.push_back(c);
  twin(" dense", k::gemm_entry<typename V::Dense>, nullptr);
  if constexpr (V::kWindowTwin) {
    twin(" win", k::gemm_entry<typename V::Window>, nullptr);
    twin(" dwin", k::gemm_entry<typename V::DenseWindow>, &V::dense_b_applies);
    if constexpr (V::kDenseVecTwin)
      twin(" dvwin", k::gemm_entry<typename V::DenseWindowVec>, &V::dense_vec_applies);
  }
}

// Wave 25's call A: the rings with K split over clusters of 3-8 blocks, for shapes whose tiles
// make a fraction of a wave at 2 (141 tiles of 64 rows at M = 9000: 282 blocks, two to an SM).
// "ring S64 c16 r64 s4 x3" ("mring ..." for M <= 16), as the other rings are named.
std::string split_name(const char* kind, int s, int c, int r, int st, int x) {
  return std::string(kind) + " S" + std::to_string(s) + " c" + std::to_string(c) + " r" +
         std::to_string(r) + " s" + std::to_string(st) + " x" + std::to_string(x);
}
template <int S, int C, int R, int ST, int... SPLITS>
void split_series(std::vector<Config>& out, int min_n, int max_n) {
  (with_dense<k::SkinnyPipeSmallNCluster<S, C, R, ST, SPLITS>>(
       out, split_name("ring", S, C, R, ST, SPLITS), min_n, max_n),
   ...);
}
template <int S, int C, int R, int ST, int... SPLITS>
void m_window_series(std::vector<Config>& out, int min_m, int max_m) {
  (out.push_back(ring<k::SkinnyPipeWindowCluster<S, C, R, ST, SPLITS>>(
       split_name("mwin", S, C, R, ST, SPLITS), min_m, max_m, true)),
   ...);
}
template <int S, int C, int R, int ST, int... SPLITS>
void m_split_series(std::vector<Config>& out) {
  (out.push_back(ring<k::SkinnyPipeCluster<S, C, R, ST, SPLITS>>(
       split_name("mring", S, C, R, ST, SPLITS), 9, 16, true)),
   ...);
}

// Wave 34: the rings for N <= 16 with K split through a workspace (no cluster: "ws ..."), the
// registered ones (kernels/skinny_pipe.cuh, OCCTUNE_SKINNY_WORKSPACE_SPLIT_VARIANTS) beside
// deeper slabs and 8-column tiles, at few rows of C over a long K.
template <int S, int C, int R, int ST, int... SPLITS>
void ws_series(std::vector<Config>& out, int min_n, int max_n) {
  (with_dense<std::conditional_t<(S > 16), k::SkinnyPipeSmallNRowGroupsSplit<S, C, R, ST, SPLITS>,
                                 k::SkinnyPipeSmallNSplit<S, C, R, ST, SPLITS>>>(
       out, split_name("ws", S, C, R, ST, SPLITS), min_n, max_n),
   ...);
}

// --one-per-sm's shared memory a block: two do not fit the 228 KiB of an sm_90 SM.
constexpr size_t kOneBlockSmem = 118 * 1024;

// A cluster configuration's launch (as kernels/skinny.cu launches a cluster variant: clusters of
// c.splits blocks along grid z), with c.policy where it is not the default; `attributes` holds
// what the returned configuration points to.
cudaLaunchConfig_t cluster_launch(const Config& c, dim3 grid,
                                  cudaLaunchAttribute (&attributes)[2]) {
  return k::cluster_config(attributes, grid, dim3(256), c.smem, unsigned(c.splits), c.policy);
}

// occtune's grid (kernels/gemm_family.cuh): x over N's tiles, y over M's, z over the splits.
dim3 grid_of(const Config& c, int m, int n) {
  return dim3((n + c.tile_n - 1) / c.tile_n, (m + c.tile_m - 1) / c.tile_m, c.splits);
}

// --occupancy's line: how many waves the configuration's clusters (or blocks) make on this GPU.
// A query that fails is printed and the run goes on (it only informs).
void print_occupancy(const Config& c, int m, int n) {
  const dim3 grid = grid_of(c, m, n);
  const long blocks = long(grid.x) * grid.y * grid.z;
  int sms = 0, per_sm = 0, resident = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c.f, 256, c.smem);
  if (err == cudaSuccess && (c.splits == 1 || c.workspace_bytes)) {
    resident = per_sm * sms;
  } else if (err == cudaSuccess) {
    cudaLaunchAttribute attributes[2];
    const cudaLaunchConfig_t config = cluster_launch(c, grid, attributes);
    err = cudaOccupancyMaxActiveClusters(&resident, c.f, &config);
  }
  if (err != cudaSuccess) {
    std::printf("  occupancy %-28s failed: %s\n", c.name.c_str(), cudaGetErrorString(err));
    cudaGetLastError();
    return;
  }
  const long units = c.workspace_bytes ? blocks : blocks / c.splits;
  std::printf("  occupancy %-28s %ld blocks, %ld clusters of %d; %d resident (%d blocks an SM "
              "of %d): %.2f waves",
              c.name.c_str(), blocks, units, c.splits, resident, per_sm, sms,
              resident ? double(units) / resident : 0.0);
  // What occtune's launch (kernels/cluster_policy.cuh) picks for this grid.
  if (c.splits > 1 && !c.workspace_bytes && c.policy == cudaClusterSchedulingPolicyDefault) {
    const auto r = k::cluster_residency(reinterpret_cast<const void*>(c.f), dim3(256), c.smem,
                                        unsigned(c.splits));
    std::printf("; occtune: %d default, %d balanced -> %s", r.by_default, r.balanced,
                k::balance_clusters(units, r.by_default, r.balanced) ? "lb" : "default");
  }
  std::printf("\n");
}

int main(int argc, char** argv) {
  int reps = 20;
  const char* only = nullptr;
  bool one_per_sm = false, occupancy = false, policy = false, after_cublas = false;
  std::vector<std::array<int, 3>> shapes;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
      continue;
    }
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
      continue;
    }
    bool* flag = !std::strcmp(argv[i], "--one-per-sm")  ? &one_per_sm
                 : !std::strcmp(argv[i], "--occupancy") ? &occupancy
                 : !std::strcmp(argv[i], "--policy")    ? &policy
                 : !std::strcmp(argv[i], "--after-cublas") ? &after_cublas
                                                         : nullptr;
    if (flag) {
      *flag = true;
      continue;
    }
    int m, n, kk;
    if (std::sscanf(argv[i], "%dx%dx%d", &m, &n, &kk) != 3 || m < 1 || n < 1 || kk < 1 ||
        (n > 16 && m > 16)) {
      std::fprintf(stderr, "bad shape '%s' (MxNxK, M or N <= 16)\n", argv[i]);
      return 2;
    }
    shapes.push_back({m, n, kk});
  }
  // Wave 16's calls A and C ran 48 row-dot configurations, wave 17's call A 20 more at N = 8
  // and 16 with 1-4 lanes a row and register bounds (MINB), none near the rings there, its call
  // C 24 with A's batches through a ring in shared memory (D: rowdot_ring), 1-4% ahead of the
  // registered ones at N = 3 and 4, and call D 2 and 4 lanes a row at N <= 4, slower. Calls E
  // and F: the rings for N <= 16 with 32 or 64 rows of C a block in 2 or 4 groups of the warps
  // (SkinnyPipeSmallNRowGroups), a half or a quarter of the bytes of B a row of A (call E also
  // 256-row slabs at 16 columns and 16 columns for N <= 8, both behind). Call J (below): the
  // rings for M <= 16 (ring's m_side: B the large operand) with K split over a cluster of 2 or 4
  // blocks, 32-128 columns a block (docs/results/2026-11-29-h200-wave{16,17}/ has every list).
  // Wave 18's call A: the rings for N <= 16 with K split over a cluster of 2 or 4 blocks
  // (SkinnyPipeSmallNCluster), against the registered ones and the row-dot kernels;
  // calls B and C the same with balanced launches (M's rows shared evenly between a grid whose
  // blocks are a multiple of the SMs: slower), call D 129-264 blocks of 64 rows, call E the
  // splits for a long K and few rows. Call H: the registered rings for N <= 16 at N whose rows
  // of B are not 16-byte aligned, built before and after dense B (then a branch inside every
  // ring's kernel, commit b38fadc); since, each ring beside its dense-B kernel (with_dense),
  // and the two registered N = 4 row-dot kernels for N = 3 and 4.
  std::vector<Config> configs;
  with_dense<k::SkinnyPipeSmallNCluster<64, 16, 64, 4, 2>>(configs, "ring S64 c16 r64 s4 x2", 9,
                                                          16);
  with_dense<k::SkinnyPipeSmallNCluster<32, 16, 128, 4, 2>>(configs, "ring S32 c16 r128 s4 x2", 9,
                                                           16);
  with_dense<k::SkinnyPipeSmallNCluster<16, 16, 256, 3, 2>>(configs, "ring S16 c16 r256 s3 x2", 9,
                                                           16);
  with_dense<k::SkinnyPipeSmallNCluster<16, 16, 256, 3, 8>>(configs, "ring S16 c16 r256 s3 x8", 9,
                                                           16);
  with_dense<k::SkinnyPipeSmallN<16, 16, 256, 3>>(configs, "ring S16 c16 r256 s3", 9, 16);
  with_dense<k::SkinnyPipeSmallNRowGroups<32, 16, 128, 4>>(configs, "ring S32 c16 r128 s4", 9, 16);
  with_dense<k::SkinnyPipeSmallNRowGroups<64, 16, 64, 4>>(configs, "ring S64 c16 r64 s4", 9, 16);
  with_dense<k::SkinnyPipeSmallN<16, 8, 512, 2>>(configs, "ring S16 c8 r512 s2", 5, 8);
  with_dense<k::SkinnyPipeSmallNRowGroups<64, 8, 128, 3>>(configs, "ring S64 c8 r128 s3", 5, 8);
  with_dense<k::SkinnyPipeSmallNCluster<16, 8, 512, 2, 2>>(configs, "ring S16 c8 r512 s2 x2", 5, 8);
  with_dense<k::SkinnyPipeSmallNCluster<64, 8, 128, 3, 2>>(configs, "ring S64 c8 r128 s3 x2", 5, 8);
  // Wave 19's call E: five stages at 64 rows of C (two blocks still share an SM; 128-row slabs
  // in two stages spilled 36 bytes, not run).
  configs.push_back(ring<k::SkinnyPipeSmallNCluster<64, 16, 64, 5, 2>>("ring S64 c16 r64 s5 x2", 9,
                                                                      16));
  configs.push_back(ring<k::SkinnyPipeSmallNRowGroups<64, 16, 64, 5>>("ring S64 c16 r64 s5", 9,
                                                                      16));
  // Wave 23's calls A and B also ran 128 rows of C a block (H = 8: 88-163 µs at 8192x16x8192,
  // none ahead anywhere), 128-row slabs at 64 rows (79.0) and 128-column rings for M <= 16
  // (ahead by under 1% at 16x16384x16384 only); since, the two registered rings for M <= 16
  // with K split over a cluster of 2, B the large operand.
  configs.push_back(ring<k::SkinnyPipeCluster<16, 64, 64, 4, 2>>("mring S16 c64 r64 s4 x2", 9, 16,
                                                                 true));
  configs.push_back(ring<k::SkinnyPipeCluster<16, 32, 128, 4, 2>>("mring S16 c32 r128 s4 x2", 9,
                                                                  16, true));
  // Call J: the 64-column ring with five stages, and with two of 128 rows.
  configs.push_back(ring<k::SkinnyPipeCluster<16, 64, 64, 5, 2>>("mring S16 c64 r64 s5 x2", 9, 16,
                                                                 true));
  configs.push_back(ring<k::SkinnyPipeCluster<16, 64, 128, 2, 2>>("mring S16 c64 r128 s2 x2", 9,
                                                                  16, true));
  split_series<64, 16, 64, 4, 3, 4, 5, 6, 7, 8>(configs, 9, 16);
  split_series<32, 16, 128, 4, 3, 4, 5, 6, 7, 8>(configs, 9, 16);
  split_series<64, 8, 128, 3, 3, 5, 6, 7, 8>(configs, 5, 8);
  // Wave 27's call A: A's windows at 16 and 32 rows of C (two or four offset classes a
  // thread), over the splits the 16-row ring and the 32-row ring on 8 columns had not run.
  split_series<16, 16, 256, 3, 3, 4, 5, 6, 7>(configs, 9, 16);
  split_series<32, 8, 256, 2, 2, 3, 4, 6, 8>(configs, 5, 8);
  m_split_series<16, 64, 64, 4, 3, 4, 5, 6, 7, 8>(configs);
  // Wave 26's call F: the windowed rings for M <= 16 (B's rows of any alignment, COLS - 4
  // columns a tile), split over clusters, beside the registered ones, where N is odd.
  m_window_series<16, 64, 64, 4, 2, 3, 4>(configs, 9, 16);
  // Wave 29: the same over 5-8 (wave 28's lab had the split over 4 ahead of 3 by 9% at
  // 16x9999x7777, and the aligned ring runs over up to 8).
  m_window_series<16, 64, 64, 4, 5, 6, 7, 8>(configs, 9, 16);
  m_window_series<8, 64, 64, 4, 3, 6, 8>(configs, 5, 8);
  m_window_series<16, 64, 128, 2, 2>(configs, 9, 16);
  m_window_series<16, 128, 64, 3, 2>(configs, 9, 16);
  m_window_series<8, 64, 64, 4, 2, 4>(configs, 5, 8);
  m_window_series<8, 128, 64, 3, 2>(configs, 5, 8);
  configs.push_back(ring<k::SkinnyPipeWindow<16, 32, 128, 4>>("mwin S16 c32 r128 s4", 9, 16, true));
  configs.push_back(ring<k::SkinnyPipeWindow<8, 64, 64, 4>>("mwin S8 c64 r64 s4", 5, 8, true));
  configs.push_back(
      ring<k::SkinnyPipeWindowCluster<8, 32, 128, 4, 4>>("mwin S8 c32 r128 s4 x4", 5, 8, true));
  configs.push_back(ring<k::SkinnyPipeCluster<8, 32, 128, 4, 4>>("mring S8 c32 r128 s4 x4", 5, 8,
                                                                 true));
  configs.push_back(rowdot<4, 16, 4, 2, 2>());
  configs.push_back(rowdot_ring<4, 16, 4, 2, 1, 4>());
  // Wave 34: the registered workspace splits for few rows (16 rows over 64-128, 32 rows over
  // 64-256) beside 256-row slabs at 32 rows, and 8-column tiles for N <= 8 (a half of the FMAs).
  ws_series<16, 16, 256, 3, 64, 96, 128>(configs, 9, 16);
  ws_series<32, 16, 128, 4, 64, 128, 192, 256>(configs, 9, 16);
  ws_series<32, 16, 256, 2, 128, 256>(configs, 9, 16);
  ws_series<32, 16, 256, 3, 128, 256>(configs, 9, 16);
  ws_series<16, 16, 256, 3, 64, 96, 128>(configs, 5, 8);
  ws_series<32, 16, 128, 4, 64, 128, 192, 256>(configs, 5, 8);
  ws_series<16, 8, 512, 2, 64, 128>(configs, 5, 8);
  ws_series<32, 8, 256, 2, 128, 256>(configs, 5, 8);
  ws_series<32, 8, 256, 3, 128, 256>(configs, 5, 8);
  if (only) {
    const auto other = [&](const Config& c) { return !std::strstr(c.name.c_str(), only); };
    configs.erase(std::remove_if(configs.begin(), configs.end(), other), configs.end());
  }
  if (one_per_sm) {
    const size_t count = configs.size();
    for (size_t i = 0; i < count; ++i) {
      if (configs[i].smem >= kOneBlockSmem) continue;  // one an SM already
      Config c = configs[i];
      c.name += " 1sm";
      c.smem = kOneBlockSmem;
      configs.push_back(c);
    }
  }
  if (policy) {
    const size_t count = configs.size();
    for (size_t i = 0; i < count; ++i) {
      if (configs[i].splits == 1 || configs[i].workspace_bytes) continue;
      for (auto [p, label] : {std::pair{cudaClusterSchedulingPolicySpread, " spread"},
                              std::pair{cudaClusterSchedulingPolicyLoadBalancing, " lb"}}) {
        Config c = configs[i];
        c.name += label;
        c.policy = p;
        configs.push_back(c);
      }
    }
  }
  // With --one-per-sm a kernel is listed with its own request and with kOneBlockSmem: allow the
  // larger of the two.
  for (auto& c : configs) {
    const size_t most = one_per_sm ? std::max(c.smem, kOneBlockSmem) : c.smem;
    CK(cudaFuncSetAttribute(c.f, cudaFuncAttributeMaxDynamicSharedMemorySize, int(most)));
  }
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 4;
  cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
  FlushTimer timer;
  for (const auto& shape : shapes) {
    const int m = shape[0], n = shape[1], kk = shape[2];
    const size_t mn = size_t(m) * n;
    float *a, *b, *y, *ref;
    CK(cudaMalloc(&a, size_t(m) * kk * 4));
    CK(cudaMalloc(&b, size_t(kk) * n * 4));
    CK(cudaMalloc(&y, mn * 4));
    CK(cudaMalloc(&ref, mn * 4));
    const k::GemmArgs args{a, b, y, m, n, kk, kk, n, n};
    std::vector<Config> use;
    for (auto& c : configs)
      if (c.runs_on(m, n) && (!c.applies || c.applies(args))) use.push_back(c);
    std::size_t workspace_size = 0;
    for (auto& c : use)
      if (c.workspace_bytes) workspace_size = std::max(workspace_size, c.workspace_bytes(m, n));
    float* workspace = nullptr;
    if (workspace_size) CK(cudaMalloc(&workspace, workspace_size));
    fill<<<1024, 256>>>(a, size_t(m) * kk, 1, true);
    fill<<<1024, 256>>>(b, size_t(kk) * n, 2, true);
    CK(cudaDeviceSynchronize());
    const float one = 1.f, zero = 0.f;
    auto run_cublas = [&] {
      return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, kk, &one, b, n, a, kk, &zero, ref,
                         n);
    };
    auto launch = [&](const Config& c) {
      const k::GemmArgs p = args;
      const dim3 grid = grid_of(c, m, n);
      if (c.workspace_bytes) {
        k::GemmArgs w = p;
        w.workspace = workspace;
        w.workspace_bytes = workspace_size;
        if (auto err = c.zero_tickets(w); err != cudaSuccess) return err;
        c.f<<<grid, 256, c.smem>>>(w);
        return cudaGetLastError();
      }
      if (c.splits == 1) {
        c.f<<<grid, 256, c.smem>>>(p);
        return cudaGetLastError();
      }
      cudaLaunchAttribute attributes[2];
      const cudaLaunchConfig_t config = cluster_launch(c, grid, attributes);
      return cudaLaunchKernelEx(&config, c.f, p);
    };
    if (run_cublas() != CUBLAS_STATUS_SUCCESS) return 5;
    CK(cudaDeviceSynchronize());
    std::vector<float> want(mn), got(mn);
    CK(cudaMemcpy(want.data(), ref, mn * 4, cudaMemcpyDeviceToHost));
    if (occupancy)
      for (auto& c : use) print_occupancy(c, m, n);
    std::vector<std::string> bad;
    for (auto& c : use) {
      CK(cudaMemset(y, 0xff, mn * 4));
      CK(launch(c));
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), y, mn * 4, cudaMemcpyDeviceToHost));
      if (worst_abs_error(got, want) > 1e-4 * std::sqrt(double(kk)) + 1e-5) bad.push_back(c.name);
    }
    std::vector<std::vector<float>> t(use.size() + 1);
    for (int rep = 0; rep < reps; ++rep) {
      for (size_t i = 0; i <= use.size(); ++i) {
        // --after-cublas: cuBLAS (untimed) before each configuration's flush and sample, as in
        // occtune bench's interleaved re-measurement (A/B/A/B...).
        if (after_cublas && i > 0)
          CK(run_cublas() == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown);
        t[i].push_back(timer.sample_ms(
            [&] {
              if (i == 0)
                CK(run_cublas() == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown);
              else
                CK(launch(use[i - 1]));
            },
            rep));
      }
    }
    const double cub = median_of(t[0]);
    const double bytes = double(std::max(m, n)) * kk * 4;  // the large operand
    const double read = (double(m) + n) * kk * 4;           // A and B, each once
    std::printf("%dx%dx%d: cuBLAS %.2f us (%.2f TB/s; A and B %.2f TB/s)\n", m, n, kk, cub * 1e3,
                bytes / cub / 1e9, read / cub / 1e9);
    std::vector<std::pair<double, std::string>> rows;
    for (size_t i = 0; i < use.size(); ++i) rows.push_back({median_of(t[i + 1]), use[i].name});
    std::sort(rows.begin(), rows.end());
    for (auto& r : rows)
      std::printf("  %-28s %8.2f us  %.3fx cuBLAS  %.2f TB/s  A+B %.2f TB/s\n", r.second.c_str(),
                  r.first * 1e3, cub / r.first, bytes / r.first / 1e9, read / r.first / 1e9);
    for (auto& s : bad) std::printf("  WRONG: %s\n", s.c_str());
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(y));
    CK(cudaFree(ref));
    if (workspace) CK(cudaFree(workspace));
  }
  return 0;
}
