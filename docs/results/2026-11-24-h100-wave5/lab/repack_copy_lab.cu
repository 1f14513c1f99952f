// Build and run from the repository root (H100):
//   nvcc -std=c++20 -O3 -arch=sm_90 -cudart static -I. -Iinclude docs/results/2026-11-24-h100-wave5/lab/repack_copy_lab.cu -o repack_copy_lab && ./repack_copy_lab
// Lab for issue #18's copy pass (kernels/repacked.cuh): times the copy kernel of 280dfa3 ("old",
// copied verbatim below), the tiled copy of kernels/repacked.cuh ("new"), the same tiling with
// 4-byte stores and no shared memory ("scalar", lab only) and cudaMemcpy2DAsync of the same rows
// (no zero padding: a lower bound) on the copies a repacked launch makes, and checks each copy
// equals the expected one bit for bit. Exits 1 on a mismatch, 2 on a CUDA error. Not part of
// occtune.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/repacked.cuh"

using namespace occtune;
using namespace occtune::kernels;

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e = (x);                                                              \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

// ---- old: kernels/repacked.{cuh,cu} at 280dfa3, verbatim but for the namespace --------------
namespace old_copy {
using repack::Job;

// Float4 group i of a copy: one aligned 16-byte store, zero where the source has no element.
// Consecutive i are consecutive in dst, so a warp's stores are 512 contiguous bytes and its
// loads four contiguous 128-byte rows segments of the source.
__device__ inline void copy_item(const Job& j, long long i) {
  const long long per_row = j.dst_ld / 4;
  const int r = int(i / per_row), c = int(i % per_row) * 4;
  float v[4];
  const float* src = j.src + std::size_t(r < j.rows ? r : 0) * std::size_t(j.ld);
  OCCTUNE_UNROLL
  for (int q = 0; q < 4; ++q) v[q] = r < j.rows && c + q < j.cols ? src[c + q] : 0.0f;
  tile::store4(j.dst + std::size_t(r) * std::size_t(j.dst_ld) + c,
               make_float4(v[0], v[1], v[2], v[3]));
}

constexpr int kCopyThreads = 256;
constexpr long long kMaxCopyBlocks = 4096;

__global__ void __launch_bounds__(kCopyThreads) repack_operands(repack::Job a, repack::Job b) {
  const repack::Job& job = blockIdx.y == 0 ? a : b;
  const long long items = job.items();
  for (long long i = (long long)blockIdx.x * kCopyThreads + threadIdx.x; i < items;
       i += (long long)gridDim.x * kCopyThreads)
    copy_item(job, i);
}

void launch(const repack::Plan& plan, cudaStream_t stream) {
  const long long items = std::max(plan.a.items(), plan.b.items());
  if (items > 0) {
    const long long blocks = std::min((items + kCopyThreads - 1) / kCopyThreads, kMaxCopyBlocks);
    repack_operands<<<dim3(unsigned(blocks), 2), kCopyThreads, 0, stream>>>(plan.a, plan.b);
  }
}
}  // namespace old_copy

// ---- new: the kernel and launch of kernels/repacked.cu (its kernel is file-local there) ------
namespace new_copy {
__global__ void __launch_bounds__(repack::kCopyThreads)
    repack_operands(repack::Job a, repack::Job b, unsigned blocks_a) {
  __shared__ __align__(16) float staged[repack::kCopyTileFloats];
  repack::copy_block(a, b, blocks_a, staged);
}

// The launch of kernels/repacked.cu, for this kernel or the lab's scalar one (same grid).
using TileKernel = void (*)(repack::Job, repack::Job, unsigned);
void launch_tiles(TileKernel kernel, const repack::Plan& plan, cudaStream_t stream) {
  const long long blocks_a = repack::copy_blocks(plan.a);
  const long long blocks = blocks_a + repack::copy_blocks(plan.b);
  if (blocks > 0)
    kernel<<<unsigned(blocks), dim3(32, repack::kCopyWarps), 0, stream>>>(plan.a, plan.b,
                                                                          unsigned(blocks_a));
}

void launch(const repack::Plan& plan, cudaStream_t stream) {
  launch_tiles(repack_operands, plan, stream);
}
}  // namespace new_copy

// ---- lab only: the new tiling without the shared-memory stage (4-byte coalesced stores), to
// show what the 16-byte stores are worth --------------------------------------------------------
namespace scalar_copy {
__device__ inline void copy_tile(const repack::Job& j, unsigned index) {
  using namespace repack;
  const unsigned segments = unsigned((j.dst_ld + kCopySegment - 1) / kCopySegment);
  const int c0 = int(index % segments) * kCopySegment;
  const int r0 = int(index / segments) * kCopyBlockRows + int(threadIdx.y);
  const int lane = int(threadIdx.x);
  float v[kCopyRowsPerWarp][4];
#pragma unroll
  for (int i = 0; i < kCopyRowsPerWarp; ++i) {
    const int r = r0 + i * kCopyWarps;
    const float* src = j.src + std::size_t(r < j.rows ? r : 0) * std::size_t(j.ld);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int c = c0 + lane + 32 * q;
      v[i][q] = r < j.rows && c < j.cols ? __ldg(src + c) : 0.0f;
    }
  }
#pragma unroll
  for (int i = 0; i < kCopyRowsPerWarp; ++i) {
    const int r = r0 + i * kCopyWarps;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int c = c0 + lane + 32 * q;
      if (r < j.dst_rows && c < j.dst_ld)
        j.dst[std::size_t(r) * std::size_t(j.dst_ld) + c] = v[i][q];
    }
  }
}

__global__ void __launch_bounds__(repack::kCopyThreads)
    repack_operands(repack::Job a, repack::Job b, unsigned blocks_a) {
  if (blockIdx.x < blocks_a)
    copy_tile(a, blockIdx.x);
  else
    copy_tile(b, blockIdx.x - blocks_a);
}

void launch(const repack::Plan& plan, cudaStream_t stream) {
  new_copy::launch_tiles(repack_operands, plan, stream);
}
}  // namespace scalar_copy

// ---- reference: the same rows with cudaMemcpy2DAsync (no padding written) ---------------------
void memcpy2d(const repack::Plan& plan, cudaStream_t stream) {
  for (const repack::Job* j : {&plan.a, &plan.b})
    if (j->dst)
      CK(cudaMemcpy2DAsync(j->dst, std::size_t(j->dst_ld) * sizeof(float), j->src,
                           std::size_t(j->ld) * sizeof(float), std::size_t(j->cols) * sizeof(float),
                           std::size_t(j->rows), cudaMemcpyDeviceToDevice, stream));
}

struct Case {
  const char* name;
  Layout layout;
  int m, n, k;
  int a_shift = 0;  // floats A's base is moved by (misaligned base, K aligned)
};

// Bytes a copy moves: the source rows read, the whole copy (padding included) written;
// cudaMemcpy2D writes only the source's rows.
double copy_bytes(const repack::Plan& p, bool with_padding) {
  double b = 0;
  for (const repack::Job* j : {&p.a, &p.b})
    if (j->dst)
      b += 4.0 * j->rows * j->cols +
           4.0 * (with_padding ? double(j->dst_rows) * j->dst_ld : double(j->rows) * j->cols);
  return b;
}

struct Timing {
  double median_us, min_us;
};

// Reads every float4 of p (the sum goes nowhere unless it hits a value no fill makes).
__global__ void read_all(const float4* p, std::size_t n, float* sink) {
  float acc = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float4 v = p[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1234.5678f) *sink = acc;
}

// The L2 flush: the buffer written (cudaMemsetAsync), then read, so that L2 holds clean lines
// of it and no dirty line is left to be written back during the timed copy.
void flush_l2(void* flush, std::size_t flush_bytes, int fill) {
  CK(cudaMemsetAsync(flush, fill, flush_bytes));
  read_all<<<1024, 256>>>(static_cast<const float4*>(flush), flush_bytes / sizeof(float4),
                          static_cast<float*>(flush));
}

// Median and minimum over `reps` launches, each after an L2 flush, timed alone between two
// events.
template <class F>
Timing time_it(F&& run, void* flush, std::size_t flush_bytes, int reps) {
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  for (int i = 0; i < 5; ++i) run();  // warm-up
  CK(cudaGetLastError());
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    flush_l2(flush, flush_bytes, i & 0xff);
    CK(cudaEventRecord(start));
    run();
    CK(cudaEventRecord(stop));
    CK(cudaEventSynchronize(stop));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop));
    us.push_back(ms * 1000.0);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(stop));
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front()};
}

// The copies of one plan on the host, as they must be: the source or 0, padding included.
std::vector<float> expected_copy(const repack::Job& j, const std::vector<float>& src_host) {
  std::vector<float> out(std::size_t(j.dst_rows) * j.dst_ld, 0.0f);
  for (int r = 0; r < j.rows; ++r)
    std::memcpy(&out[std::size_t(r) * j.dst_ld], &src_host[std::size_t(r) * j.ld],
                std::size_t(j.cols) * sizeof(float));
  return out;
}

std::vector<float> download(const float* p, std::size_t n) {
  std::vector<float> h(n);
  CK(cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

// First index where x and y differ bitwise, or -1.
long long first_difference(const std::vector<float>& x, const std::vector<float>& y) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::memcmp(&x[i], &y[i], sizeof(float)) != 0) return (long long)i;
  return -1;
}

int main() {
  const Case cases[] = {
      {"1025^3 nn", Layout::kNN, 1025, 1025, 1025},
      {"2049^3 nn", Layout::kNN, 2049, 2049, 2049},
      {"4097^3 nn", Layout::kNN, 4097, 4097, 4097},
      {"3001x1000x4097 nn", Layout::kNN, 3001, 1000, 4097},
      {"3001x1000x4097 tn", Layout::kTN, 3001, 1000, 4097},  // A stored 4097 x 3001
      {"698x2077x4461 tt", Layout::kTT, 698, 2077, 4461},
      {"4096^3 nn, A base +4 B", Layout::kNN, 4096, 4096, 4096, 1},  // only A copied
  };
  constexpr int kReps = 50;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("repack_copy_lab on %s (%d SMs), %d timed launches each after a %d MiB L2 flush "
              "(written, then read)\n",
              prop.name, prop.multiProcessorCount, kReps, 256);
  const std::size_t flush_bytes = std::size_t(256) << 20;
  void* flush = nullptr;
  CK(cudaMalloc(&flush, flush_bytes));

  int mismatches = 0;
  std::printf("%-24s %-38s %9s %10s %10s %9s %8s\n", "case", "copies (rows x cols -> ld)",
              "method", "median us", "min us", "GB/s", "t/t2D");
  for (const Case& c : cases) {
    const auto a_dims = repack::stored_a(c.layout, c.m, c.k);
    const auto b_dims = repack::stored_b(c.layout, c.n, c.k);
    const std::size_t a_count = std::size_t(a_dims.rows) * a_dims.cols + c.a_shift;
    const std::size_t b_count = std::size_t(b_dims.rows) * b_dims.cols;
    // Sources: random values, with -0.0f and denormals among them (a copy moves bits).
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a_host(a_count), b_host(b_count);
    for (auto* h : {&a_host, &b_host})
      for (std::size_t i = 0; i < h->size(); ++i)
        (*h)[i] = i % 97 == 0 ? -0.0f : i % 89 == 0 ? 1e-40f : dist(rng);
    float *a = nullptr, *b = nullptr;
    CK(cudaMalloc(&a, a_count * sizeof(float)));
    CK(cudaMalloc(&b, b_count * sizeof(float)));
    CK(cudaMemcpy(a, a_host.data(), a_count * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, b_host.data(), b_count * sizeof(float), cudaMemcpyHostToDevice));
    const std::size_t ws_bytes = repack::operand_bytes(c.layout, c.m, c.n, c.k);
    float *ws_old = nullptr, *ws_new = nullptr, *ws_scalar = nullptr;
    CK(cudaMalloc(&ws_old, ws_bytes));
    CK(cudaMalloc(&ws_new, ws_bytes));
    CK(cudaMalloc(&ws_scalar, ws_bytes));

    GemmArgs args{a + c.a_shift, b, nullptr, c.m, c.n, c.k, a_dims.cols, b_dims.cols, c.n};
    args.workspace_bytes = ws_bytes;
    args.workspace = ws_old;
    const repack::Plan plan_old = repack::plan(c.layout, args);
    args.workspace = ws_new;
    const repack::Plan plan_new = repack::plan(c.layout, args);
    args.workspace = ws_scalar;
    const repack::Plan plan_scalar = repack::plan(c.layout, args);

    // Correctness: copies start as NaN (0xff bytes), so unwritten padding shows.
    CK(cudaMemset(ws_old, 0xff, ws_bytes));
    CK(cudaMemset(ws_new, 0xff, ws_bytes));
    CK(cudaMemset(ws_scalar, 0xff, ws_bytes));
    old_copy::launch(plan_old, 0);
    new_copy::launch(plan_new, 0);
    scalar_copy::launch(plan_scalar, 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::string dims;
    const std::vector<float>* hosts[] = {&a_host, &b_host};
    const repack::Job* olds[] = {&plan_old.a, &plan_old.b};
    const repack::Job* news[] = {&plan_new.a, &plan_new.b};
    const repack::Job* scalars[] = {&plan_scalar.a, &plan_scalar.b};
    for (int o = 0; o < 2; ++o) {
      if (!news[o]->dst) continue;
      const repack::Job& j = *news[o];
      dims += std::string(o ? " B " : "A ") + std::to_string(j.rows) + "x" +
              std::to_string(j.cols) + "->" + std::to_string(j.dst_ld);
      const std::size_t n = std::size_t(j.dst_rows) * j.dst_ld;
      // The source as the copy sees it: the host array from the (possibly shifted) base.
      std::vector<float> src_host(hosts[o]->begin() + (o == 0 ? c.a_shift : 0), hosts[o]->end());
      const std::vector<float> want = expected_copy(j, src_host);
      const std::vector<float> got_old = download(olds[o]->dst, n);
      const std::vector<float> got_new = download(j.dst, n);
      const std::vector<float> got_scalar = download(scalars[o]->dst, n);
      for (auto [what, got] : {std::pair{"old", &got_old}, std::pair{"new", &got_new},
                               std::pair{"scalar", &got_scalar}}) {
        const long long at = first_difference(*got, want);
        if (at < 0) continue;
        ++mismatches;
        std::printf("MISMATCH %s: %s copy of %s differs first at row %lld column %lld: %g, "
                    "expected %g\n",
                    c.name, what, o ? "B" : "A", at / j.dst_ld, at % j.dst_ld, (*got)[at],
                    want[at]);
      }
    }

    const Timing t2d = time_it([&] { memcpy2d(plan_new, 0); }, flush, flush_bytes, kReps);
    const Timing told = time_it([&] { old_copy::launch(plan_old, 0); }, flush, flush_bytes, kReps);
    const Timing tnew = time_it([&] { new_copy::launch(plan_new, 0); }, flush, flush_bytes, kReps);
    const Timing tscalar =
        time_it([&] { scalar_copy::launch(plan_scalar, 0); }, flush, flush_bytes, kReps);
    const double bytes = copy_bytes(plan_new, true), bytes_2d = copy_bytes(plan_new, false);
    auto row = [&](const char* method, Timing t, double moved) {
      std::printf("%-24s %-38s %9s %10.2f %10.2f %9.0f %8.2f\n", c.name, dims.c_str(), method,
                  t.median_us, t.min_us, moved / (t.median_us * 1e3), t.median_us / t2d.median_us);
    };
    row("old", told, bytes);
    row("new", tnew, bytes);
    row("scalar", tscalar, bytes);
    row("memcpy2D", t2d, bytes_2d);
    std::printf("%-24s %.1f MB moved by old/new (read + written, padding included), %.1f MB by "
                "memcpy2D; new is %.2fx faster than old\n",
                c.name, bytes / 1e6, bytes_2d / 1e6, told.median_us / tnew.median_us);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(ws_old));
    CK(cudaFree(ws_new));
    CK(cudaFree(ws_scalar));
  }
  CK(cudaFree(flush));
  if (mismatches) {
    std::printf("FAILED: %d copies differ from the expected copy (see MISMATCH lines)\n",
                mismatches);
    return 1;
  }
  std::printf("OK: old, new and scalar copies equal the expected copy bit for bit, padding "
              "included\n");
  return 0;
}
