// Lab (issue #18): the HBM read bandwidth of the device, the yardstick of the 85% target for
// M or N <= 16 ("a 1 GiB read runs at 2.97 TB/s" on the H100 of the issue). Reads a buffer of
// 256 MiB and one of 1 GiB once per sample, timed like `occtune bench` times a kernel: the L2
// is flushed before every sample, events around the launch, the median of the samples.
// Several loops (loads in flight per thread, plain or evict-first loads, grid sizes) because
// the best of them is the device's figure, not any one loop's. The flush is run four ways
// (wave 22): `memset`, occtune's flush until then, which leaves up to an L2 of dirty lines
// that the timed read then writes back to HBM; `memset+read`, the memset and then a read of
// the whole flush buffer; `read`, that read alone (occtune's flush since); `none`, no flush.
// 16 MiB fits in the L2. `profile` and `dirty` (in main) are two narrower runs.
// Not part of occtune: a scratch program whose output is quoted in docs/PERFORMANCE.md.
// Build (from the repository root): nvcc -O3 -std=c++17 -arch=sm_90 -I. lab/hbm_read_lab.cu
//   -o hbm_read_lab
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lab_support.cuh"

__device__ __forceinline__ float4 load_plain(const float4* p) { return __ldg(p); }
__device__ __forceinline__ float4 load_evict_first(const float4* p) {
  return __ldcs(p);  // ld.global.cs: streaming, the line is evicted first
}

// Each thread keeps U float4 loads in flight per step; the sums go to one float per thread
// block so the loads cannot be removed. `out` also proves the read: its total is checked.
template <int U, bool kStreaming>
__global__ void read_kernel(const float4* __restrict__ in, std::size_t n4, float* out) {
  float s = 0.0f;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  for (; i + (U - 1) * stride < n4; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      v[u] = kStreaming ? load_evict_first(in + i + u * stride) : load_plain(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) s += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n4; i += stride) {
    const float4 v = in[i];
    s += v.x + v.y + v.z + v.w;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  __shared__ float warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < int(blockDim.x / 32); ++w) t += warp_sums[w];
    out[blockIdx.x] = t;
  }
}

__global__ void fill_ones(float4* p, std::size_t n4) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = make_float4(1.0f, 1.0f, 1.0f, 1.0f);
}

struct Loop {
  const char* name;
  void (*launch)(const float4*, std::size_t, float*, int blocks);
};
template <int U, bool S>
void launch_read(const float4* in, std::size_t n4, float* out, int blocks) {
  read_kernel<U, S><<<blocks, 256>>>(in, n4, out);
}

enum class Flush { kMemset, kMemsetRead, kRead, kNone };
const char* flush_name(Flush f) {
  switch (f) {
    case Flush::kMemset:
      return "memset";
    case Flush::kMemsetRead:
      return "memset+read";
    case Flush::kRead:
      return "read";
    default:
      return "none";
  }
}

int main(int argc, char** argv) {
  // `profile`: for a profiler (Nsight Compute with --cache-control none, -k regex:^read_kernel):
  // a few samples of one loop at 32 and 256 MiB after each flush, so the timed read's L2 hits
  // and DRAM writes show what each flush leaves behind.
  const bool profile = argc > 1 && std::string(argv[1]) == "profile";
  // `dirty`: before each timed read of 256 MiB, the read flush (nothing dirty, nothing of the
  // buffer resident) and then a memset of X MiB of the flush buffer: the read's time against
  // X shows what dirty lines cost it, and stops growing where X passes the L2's size.
  const bool dirty = argc > 1 && std::string(argv[1]) == "dirty";
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int l2 = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("%s, %d SMs, L2 %d MiB\n", prop.name, sms, l2 >> 20);
  const std::size_t flush_bytes = std::size_t(l2) * 2;
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const Loop loops[] = {
      {"1 load in flight, plain", &launch_read<1, false>},
      {"4 loads in flight, plain", &launch_read<4, false>},
      {"8 loads in flight, plain", &launch_read<8, false>},
      {"4 loads in flight, evict-first", &launch_read<4, true>},
      {"8 loads in flight, evict-first", &launch_read<8, true>},
  };
  float* out;
  CK(cudaMalloc(&out, sizeof(float) * sms * 16));
  std::vector<float> host(std::size_t(sms) * 16);
  int wrong = 0;
  float* flush_sink;
  CK(cudaMalloc(&flush_sink, sizeof(float)));
  // The `read` flush is occtune's (lab_support.cuh compiles l2_flush.cu in); its kernel's own
  // name keeps it out of `profile`'s selection of the timed reads.
  // The read flush reads zeros, as occtune's (after a memset flush the buffer holds its byte).
  auto zero_for = [&](Flush f) {
    if (f == Flush::kRead) CK(cudaMemset(flush, 0, flush_bytes));
  };
  auto run_flush = [&](Flush f, int round) {
    if (f == Flush::kMemset || f == Flush::kMemsetRead)
      CK(cudaMemsetAsync(flush, round, flush_bytes));
    if (f == Flush::kMemsetRead || f == Flush::kRead)
      CK(occtune::cuda::read_to_evict_l2(flush, flush_bytes, flush_sink, 4 * sms, nullptr));
  };
  // `runs` samples of `timed` between events, each after `before`, the first two dropped:
  // the rest sorted, fastest first.
  auto samples_ms = [&](int runs, auto&& before, auto&& timed) {
    std::vector<float> t;
    for (int r = 0; r < runs; ++r) {
      before(r);
      CK(cudaEventRecord(a));
      timed(r);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t;
  };
  if (dirty) {
    const std::size_t bytes = std::size_t(256) << 20, n4 = bytes / 16;
    float4* in;
    CK(cudaMalloc(&in, bytes));
    fill_ones<<<1024, 256>>>(in, n4);
    for (const std::size_t mib : {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 120}) {
      const auto t = samples_ms(
          22,
          [&](int r) {
            run_flush(Flush::kRead, r);
            if (mib) CK(cudaMemsetAsync(flush, r, std::min(mib << 20, flush_bytes)));
          },
          [&](int) { launch_read<4, false>(in, n4, out, 4 * sms); });
      const double ms = t[t.size() / 2];
      std::printf("dirty %4zu MiB before a 256 MiB read: median %.4f ms  %.3f TB/s\n", mib, ms,
                  double(bytes) / (ms * 1e-3) / 1e12);
    }
    CK(cudaFree(in));
    return 0;
  }
  // What each flush itself takes (the time a sample spends before its timed launch).
  for (const Flush f : {Flush::kMemset, Flush::kMemsetRead, Flush::kRead}) {
    zero_for(f);
    const auto t = samples_ms(
        12, [](int) {}, [&](int r) { run_flush(f, r); });
    std::printf("flush %-11s of %zu MiB: median %.4f ms\n", flush_name(f), flush_bytes >> 20,
                t[t.size() / 2]);
  }
  for (const Flush f : {Flush::kMemset, Flush::kMemsetRead, Flush::kRead, Flush::kNone})
    for (const std::size_t mib : profile ? std::vector<std::size_t>{32, 256}
                                         : std::vector<std::size_t>{16, 64, 256, 1024}) {
      zero_for(f);
      const std::size_t bytes = mib << 20, n4 = bytes / 16;
      float4* in;
      CK(cudaMalloc(&in, bytes));
      fill_ones<<<1024, 256>>>(in, n4);
      double best = 0;
      for (const Loop& loop : loops) {
        if (profile && &loop != &loops[1]) continue;  // 4 loads in flight, plain
        for (const int per_sm : {4, 8, 16}) {
          if (profile && per_sm != 4) continue;
          const int blocks = per_sm * sms;
          const auto t = samples_ms(
              profile ? 5 : 22, [&](int r) { run_flush(f, r); },
              [&](int) { loop.launch(in, n4, out, blocks); });
          CK(cudaGetLastError());
          CK(cudaMemcpy(host.data(), out, sizeof(float) * blocks, cudaMemcpyDeviceToHost));
          double total = 0;
          for (int i = 0; i < blocks; ++i) total += host[i];
          const bool ok = total == double(bytes / 4);
          wrong += !ok;
          const double ms = t[t.size() / 2], tbps = double(bytes) / (ms * 1e-3) / 1e12;
          best = std::max(best, tbps);
          std::printf(
              "%-11s %5zu MiB  %-32s %3d blocks/SM  median %.4f ms  %.3f TB/s (min %.4f ms)%s\n",
              flush_name(f), mib, loop.name, per_sm, ms, tbps, t.front(), ok ? "" : "  WRONG SUM");
        }
      }
      std::printf("%-11s %5zu MiB  best %.3f TB/s\n", flush_name(f), mib, best);
      CK(cudaFree(in));
    }
  std::printf("%d wrong sums\n", wrong);
  return wrong ? 1 : 0;
}
