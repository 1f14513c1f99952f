// Lab (issue #18): how fast a cp.async ring reads an M x K row-major matrix (A of the rings for
// N <= 16, kernels/skinny_pipe.cuh) when nothing is computed: each block takes R rows (and
// 1 / SPLITS of K), a slab is R rows of C floats (C * 4 bytes of each row), STAGES slabs in
// flight. The question it answers: how much of the gap between the rings for N <= 16 (3.35 TB/s
// at 8192x16x8192) and a 256 MiB grid-stride read (3.80 TB/s, lab/hbm_read_lab.cu) is the access
// pattern (R runs of C * 4 bytes a slab, K * 4 bytes apart) rather than the FMA loop. CONTIG:
// the same ring over a contiguous R * K / SPLITS stretch a block (the same bytes, one run).
// WORK > 0: each thread also runs WORK FMAs a slab (16 independent chains, multiplied by a zero
// the compiler cannot see, so the sums stay exact) and the block takes at least PAD_KB of
// shared memory: the ring's FMAs and its two blocks an SM, without its shared-memory reads
// (wave 19's call H: does the barrier each slab with that much work between cost the read?).
// Timed as `occtune bench` times a kernel (lab_support.cuh's FlushTimer). Not part of occtune.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I. lab/ring_read_lab.cu -o ring_read_lab
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "lab_support.cuh"

constexpr int kThreads = 256;

__device__ __forceinline__ void copy16_evict_first(float* dst, const float* src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  std::uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, 16, %2;\n" ::"r"(d),
               "l"(src), "l"(policy)
               : "memory");
}

// A thread's share of a landed slab: its kPer float4s summed, and WORK FMAs beside them (16
// independent chains, multiplied by a zero the compiler cannot see, so the sums stay exact).
template <int kPer, int kThreads, int WORK>
__device__ __forceinline__ void consume_slab(const float4* slab, int t, float zero, float& sum,
                                             float (&chains)[16]) {
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const float4 v = slab[t + j * kThreads];
    sum += v.x + v.y + v.z + v.w;
    if constexpr (WORK > 0) {
#pragma unroll
      for (int i = 0; i < WORK / 16 / kPer; ++i)
#pragma unroll
        for (int c = 0; c < 16; ++c) chains[c] = fmaf(v.x + float(c), zero, chains[c]);
    }
  }
}

// The block's total into `out`: the chains (zero) and the sums, a warp at a time.
__device__ __forceinline__ void add_block_sum(float sum, const float (&chains)[16], float* out) {
#pragma unroll
  for (int c = 0; c < 16; ++c) sum += chains[c];
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out, sum);
}

template <int R, int C, int STAGES, int SPLITS, bool CONTIG, int WORK = 0, int PAD_KB = 0>
__global__ void __launch_bounds__(kThreads) ring_read(const float* a, int k, float* out,
                                                      float zero) {
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  constexpr int kSlab = R * C, kVecs = kSlab / 4, kPer = kVecs / kThreads;
  static_assert(kVecs % kThreads == 0, "whole passes");
  const int t = threadIdx.x, row0 = blockIdx.x * R;
  const int k_part = k / SPLITS, k_begin = blockIdx.y * k_part, slabs = k_part / C;
  // CONTIG: the block's bytes as one stretch (its R rows' share of K laid end to end).
  const float* base = CONTIG ? a + (std::size_t(blockIdx.x) * SPLITS + blockIdx.y) *
                                       std::size_t(R) * k_part
                             : a + std::size_t(row0) * k + k_begin;
  auto issue = [&](int slab) {
    float* dst = smem + (slab % STAGES) * kSlab;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int v = t + j * kThreads;  // float4 v of the slab: row v / (C / 4), quad v % (C / 4)
      const int r = v / (C / 4), q = v % (C / 4);
      const float* src = CONTIG ? base + std::size_t(slab) * kSlab + 4 * v
                                : base + std::size_t(r) * k + std::size_t(slab) * C + 4 * q;
      copy16_evict_first(dst + 4 * v, src);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };
  for (int s = 0; s < STAGES - 1; ++s)
    if (s < slabs) issue(s); else asm volatile("cp.async.commit_group;\n" ::: "memory");
  float sum = 0;
  float chains[16] = {};
  for (int s = 0; s < slabs; ++s) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
    __syncthreads();
    if (s + STAGES - 1 < slabs) issue(s + STAGES - 1);
    else asm volatile("cp.async.commit_group;\n" ::: "memory");
    consume_slab<kPer, kThreads, WORK>(
        reinterpret_cast<const float4*>(smem + (s % STAGES) * kSlab), t, zero, sum, chains);
  }
  add_block_sum(sum, chains, out);
}

// The same read and FMAs with a producer warp (wave 19's calls I-K): warp 8 copies every slab,
// the 8 consumer warps wait on the stage's `full` mbarrier, read and compute, and release the
// stage on its `empty` mbarrier; the producer refills a stage once it is released. No
// block-wide barrier in the loop: a slow warp holds back only the stage it is reading. The
// producer's copies (Copy): 16-byte cp.async by its 32 lanes, their completion counted on
// `full` by cp.async.mbarrier.arrive.noinc (call I); one bulk copy a row of the slab,
// cp.async.bulk, counted by bytes (call J); one 2D TMA box a slab through a tensor map, as
// kernels/tma.cuh copies its slabs (call K).
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count)
               : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra WAIT_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(
                   smem_addr(bar))
               : "memory");
}
__device__ __forceinline__ void mbar_arrive_on_copies(std::uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_addr(bar))
               : "memory");
}
__device__ __forceinline__ void mbar_expect_bytes(std::uint64_t* bar, unsigned bytes) {
  asm volatile(
      "{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::
          "r"(smem_addr(bar)),
      "r"(bytes)
      : "memory");
}
__device__ __forceinline__ void bulk_copy(float* dst, const float* src, unsigned bytes,
                                          std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
__device__ __forceinline__ void tma_box(float* dst, const CUtensorMap* map, std::uint64_t* bar,
                                        int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_addr(bar)), "r"(c0), "r"(c1)
      : "memory");
}

constexpr int kConsumers = 256;
enum class Copy { kCpAsync, kBulk, kTma };

// A, as the producer reads it: the matrix, and for kTma its tensor map (box R x C).
struct Operand {
  CUtensorMap map;
  const float* a;
};

template <int R, int C, int STAGES, int SPLITS, int WORK, Copy COPY>
__global__ void __launch_bounds__(kConsumers + 32) ring_read_producer(
    const __grid_constant__ Operand op, int k, float* out, float zero) {
  extern __shared__ __align__(1024) float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  __shared__ std::uint64_t full[STAGES], empty[STAGES];
  constexpr int kSlab = R * C, kVecs = kSlab / 4, kPer = kVecs / kConsumers;
  static_assert(kVecs % kConsumers == 0 && kVecs % 32 == 0 && R % 32 == 0, "whole passes");
  const int t = threadIdx.x, row0 = blockIdx.x * R;
  const int k_part = k / SPLITS, k_begin = blockIdx.y * k_part, slabs = k_part / C;
  if (t == 0)
    for (int s = 0; s < STAGES; ++s) {
      // kCpAsync: one arrival a producer lane, when its copies are done; else the producer's
      // expect_tx, the bytes doing the rest.
      mbar_init(&full[s], COPY == Copy::kCpAsync ? 32 : 1);
      mbar_init(&empty[s], kConsumers / 32);  // one a consumer warp
    }
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  __syncthreads();
  if (t >= kConsumers) {
    const int lane = t - kConsumers;
    if (COPY == Copy::kTma && lane != 0) return;
    const float* base = op.a + std::size_t(row0) * k + k_begin;
    for (int slab = 0; slab < slabs; ++slab) {
      const int s = slab % STAGES, n = slab / STAGES;
      if (slab >= STAGES) mbar_wait(&empty[s], unsigned(n - 1) & 1u);
      float* dst = smem + s * kSlab;
      if constexpr (COPY == Copy::kCpAsync) {
#pragma unroll 8
        for (int j = 0; j < kVecs / 32; ++j) {
          const int v = lane + 32 * j, r = v / (C / 4), q = v % (C / 4);
          copy16_evict_first(dst + 4 * v,
                             base + std::size_t(r) * k + std::size_t(slab) * C + 4 * q);
        }
        mbar_arrive_on_copies(&full[s]);
      } else if constexpr (COPY == Copy::kBulk) {
        if (lane == 0) mbar_expect_bytes(&full[s], kSlab * sizeof(float));
        __syncwarp();
#pragma unroll
        for (int r = lane; r < R; r += 32)
          bulk_copy(dst + r * C, base + std::size_t(r) * k + std::size_t(slab) * C,
                    C * sizeof(float), &full[s]);
      } else {
        mbar_expect_bytes(&full[s], kSlab * sizeof(float));
        tma_box(dst, &op.map, &full[s], k_begin + slab * C, row0);
      }
    }
    if constexpr (COPY == Copy::kCpAsync) asm volatile("cp.async.wait_all;\n" ::: "memory");
    return;  // bulk and TMA copies: the consumers wait for every byte before they finish
  }
  float sum = 0;
  float chains[16] = {};
  for (int slab = 0; slab < slabs; ++slab) {
    const int s = slab % STAGES, n = slab / STAGES;
    mbar_wait(&full[s], unsigned(n) & 1u);
    consume_slab<kPer, kConsumers, WORK>(reinterpret_cast<const float4*>(smem + s * kSlab), t,
                                         zero, sum, chains);
    __syncwarp();
    if (t % 32 == 0) mbar_arrive(&empty[s]);
  }
  add_block_sum(sum, chains, out);
}

// A's tensor map (M rows of K floats, box R x C), encoded once per operand (outside the timed
// launches: samples 0-3 are dropped), cuTensorMapEncodeTiled through the runtime as
// kernels/tma.cu finds it.
template <int R, int C>
const CUtensorMap& map_of(const float* a, int m, int k) {
  static CUtensorMap map;
  static const float* last = nullptr;
  static int last_m = 0, last_k = 0;
  if (a == last && m == last_m && k == last_k) return map;
  void* f = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q));
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(m)};
  const cuuint64_t strides[1] = {cuuint64_t(k) * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(C), cuuint32_t(R)}, element_strides[2] = {1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(a), dims,
                            strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
    std::exit(1);
  }
  last = a, last_m = m, last_k = k;
  return map;
}

struct Probe {
  const char* name;
  void (*launch)(const float*, int m, int k, float* out);
  void (*prepare)();
};

template <int R, int C, int STAGES, int PAD_KB>
constexpr std::size_t smem_of() {
  const std::size_t ring = std::size_t(STAGES) * R * C * sizeof(float);
  return ring > std::size_t(PAD_KB) * 1024 ? ring : std::size_t(PAD_KB) * 1024;
}
template <int R, int C, int STAGES, int SPLITS, bool CONTIG, int WORK, int PAD_KB>
void launch_probe(const float* a, int m, int k, float* out) {
  ring_read<R, C, STAGES, SPLITS, CONTIG, WORK, PAD_KB>
      <<<dim3(unsigned(m / R), SPLITS), kThreads, smem_of<R, C, STAGES, PAD_KB>()>>>(a, k, out,
                                                                                     0.0f);
}
template <int R, int C, int STAGES, int SPLITS, bool CONTIG, int WORK, int PAD_KB>
void prepare_probe() {
  CK(cudaFuncSetAttribute(ring_read<R, C, STAGES, SPLITS, CONTIG, WORK, PAD_KB>,
                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                          int(smem_of<R, C, STAGES, PAD_KB>())));
}

#define PROBE_WORK(R, C, ST, SP, CT, WORK, PAD)                                            \
  Probe {                                                                                 \
    "R" #R " C" #C " stages " #ST " splits " #SP " contiguous=" #CT " fmas " #WORK          \
    " pad " #PAD,                                                                          \
        &launch_probe<R, C, ST, SP, CT, WORK, PAD>, &prepare_probe<R, C, ST, SP, CT, WORK, PAD> \
  }
#define PROBE(R, C, ST, SP, CT) PROBE_WORK(R, C, ST, SP, CT, 0, 0)

template <int R, int C, int STAGES, int SPLITS, int WORK, Copy COPY, int PAD_KB>
void launch_producer(const float* a, int m, int k, float* out) {
  Operand op{};
  op.a = a;
  if (COPY == Copy::kTma) op.map = map_of<R, C>(a, m, k);
  ring_read_producer<R, C, STAGES, SPLITS, WORK, COPY>
      <<<dim3(unsigned(m / R), SPLITS), kConsumers + 32, smem_of<R, C, STAGES, PAD_KB>()>>>(
          op, k, out, 0.0f);
}
template <int R, int C, int STAGES, int SPLITS, int WORK, Copy COPY, int PAD_KB>
void prepare_producer() {
  CK(cudaFuncSetAttribute(ring_read_producer<R, C, STAGES, SPLITS, WORK, COPY>,
                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                          int(smem_of<R, C, STAGES, PAD_KB>())));
}
#define PROBE_PRODUCER(NAME, COPY, R, C, ST, SP, WORK, PAD)                                  \
  Probe {                                                                                   \
    "R" #R " C" #C " stages " #ST " splits " #SP " " NAME ", fmas " #WORK " pad " #PAD,        \
        &launch_producer<R, C, ST, SP, WORK, COPY, PAD>,                                    \
        &prepare_producer<R, C, ST, SP, WORK, COPY, PAD>                                    \
  }
#define PROBE_WS(...) PROBE_PRODUCER("producer warp", Copy::kCpAsync, __VA_ARGS__)
#define PROBE_BULK(...) PROBE_PRODUCER("bulk producer", Copy::kBulk, __VA_ARGS__)
#define PROBE_TMA(...) PROBE_PRODUCER("tma producer", Copy::kTma, __VA_ARGS__)

int main() {
  const Probe probes[] = {
      PROBE(64, 64, 4, 2, false),  PROBE(64, 64, 4, 2, true),   PROBE(64, 64, 4, 1, false),
      PROBE(64, 64, 6, 2, false),  PROBE(64, 128, 3, 2, false), PROBE(32, 128, 4, 2, false),
      PROBE(32, 128, 4, 2, true),  PROBE(16, 256, 4, 2, false), PROBE(16, 256, 4, 1, false),
      PROBE(16, 256, 4, 1, true),  PROBE(8, 512, 4, 1, false),  PROBE(16, 512, 3, 1, false),
      PROBE(64, 32, 8, 2, false),  PROBE(128, 32, 4, 1, false),
      // Call H: the 8192x16x8192 winner's pattern with its FMA count and two blocks an SM.
      PROBE_WORK(64, 64, 4, 2, false, 0, 100), PROBE_WORK(64, 64, 4, 2, false, 64, 100),
      PROBE_WORK(64, 64, 4, 2, false, 128, 100), PROBE_WORK(64, 64, 4, 2, false, 256, 100),
      PROBE_WORK(64, 64, 4, 2, false, 384, 100), PROBE_WORK(64, 64, 4, 2, false, 512, 100),
      PROBE_WORK(64, 64, 4, 1, false, 256, 100),
      // Call I: the same with a producer warp.
      PROBE_WS(64, 64, 4, 2, 0, 100), PROBE_WS(64, 64, 4, 2, 256, 100),
      PROBE_WS(64, 64, 4, 2, 384, 100), PROBE_WS(64, 64, 4, 2, 512, 100),
      PROBE_WS(64, 64, 6, 2, 256, 100), PROBE_WS(64, 64, 6, 2, 384, 100),
      PROBE_WS(64, 64, 3, 2, 384, 100),
      // Call J: the producer's copies in bulk.
      PROBE_BULK(64, 64, 4, 2, 0, 100), PROBE_BULK(64, 64, 4, 2, 256, 100),
      PROBE_BULK(64, 64, 4, 2, 384, 100), PROBE_BULK(64, 64, 4, 2, 512, 100),
      PROBE_BULK(64, 64, 6, 2, 256, 100), PROBE_BULK(64, 64, 6, 2, 384, 100),
      // Call K: one TMA box a slab.
      PROBE_TMA(64, 64, 4, 2, 0, 100), PROBE_TMA(64, 64, 4, 2, 256, 100),
      PROBE_TMA(64, 64, 4, 2, 384, 100), PROBE_TMA(64, 64, 4, 2, 512, 100),
      PROBE_TMA(64, 64, 6, 2, 256, 100), PROBE_TMA(64, 64, 6, 2, 384, 100),
      PROBE_TMA(64, 64, 4, 1, 384, 100),
  };
  FlushTimer timer;
  float* out;
  CK(cudaMalloc(&out, sizeof(float)));
  int wrong = 0;
  for (const int side : {8192, 16384}) {
    const int m = side, k = side;
    const std::size_t n = std::size_t(m) * k, bytes = n * sizeof(float);
    float* a;
    CK(cudaMalloc(&a, bytes));
    // Ones: the sum of every element read is M * K, exactly in float up to 2^24 a warp's
    // partial; the atomics' total is compared with a tolerance for their order.
    std::vector<float> ones(1 << 20, 1.0f);
    for (std::size_t at = 0; at < n; at += ones.size())
      CK(cudaMemcpy(a + at, ones.data(), sizeof(float) * std::min(ones.size(), n - at),
                    cudaMemcpyHostToDevice));
    for (const Probe& p : probes) {
      p.prepare();
      std::vector<float> t;
      for (int r = 0; r < 24; ++r) {
        CK(cudaMemset(out, 0, sizeof(float)));
        const float ms = timer.sample_ms([&] { p.launch(a, m, k, out); }, r);
        if (r >= 4) t.push_back(ms);
      }
      CK(cudaGetLastError());
      float total = 0;
      CK(cudaMemcpy(&total, out, sizeof(float), cudaMemcpyDeviceToHost));
      const bool ok = std::fabs(double(total) - double(n)) <= 1e-3 * double(n);
      wrong += !ok;
      const double ms = median_of(t), tbps = double(bytes) / (ms * 1e-3) / 1e12;
      std::printf("%5dx%-5d %-36s median %.4f ms  %.3f TB/s%s\n", m, k, p.name, ms, tbps,
                  ok ? "" : "  WRONG SUM");
    }
    CK(cudaFree(a));
  }
  std::printf("%d wrong sums\n", wrong);
  return wrong ? 1 : 0;
}
