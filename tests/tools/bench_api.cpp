// occtune_bench_api: the speed figures issue #12 asks of the library, measured on a GPU (a
// benchmark, not a test: it prints numbers and judges nothing).
//   occtune_bench_api STORE
// STORE is created or extended: the shapes below are tuned into it first (occtune::sgemm's
// on_miss policy), so every figure is for a measured, exact cache entry.
//  - Cache: cold open + first lookup; repeated lookups (ns each).
//  - sgemm host cost: per call on the cached path, against the bare kernel launch of the same
//    configuration (kernels::launch_variant), both enqueue-only timings in batches.
//  - sgemm at 4096^3: end-to-end median (L2 flushed before each call, as occtune bench does)
//    against the tuned kernel's stored median.
//  - sgemm at 64^3: per call in a back-to-back loop against cuBLAS in the same loop.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/launch.cuh"
#include "kernels/registry.hpp"
#include "occtune/cache.hpp"
#include "occtune/sgemm.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::exit(4);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Matrices {
  float *a = nullptr, *b = nullptr, *c = nullptr;
  explicit Matrices(std::int64_t m, std::int64_t n, std::int64_t k) {
    check(cudaMalloc(&a, m * k * 4), "cudaMalloc");
    check(cudaMalloc(&b, k * n * 4), "cudaMalloc");
    check(cudaMalloc(&c, m * n * 4), "cudaMalloc");
    check(cudaMemset(a, 0, m * k * 4), "cudaMemset");
    check(cudaMemset(b, 0, k * n * 4), "cudaMemset");
  }
  ~Matrices() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: occtune_bench_api STORE\n");
    return 2;
  }
  ::setenv("OCCTUNE_DB", argv[1], 1);
  using occtune::Major;
  using occtune::Op;
  try {
    // Tune the shapes first (each within OCCTUNE_TUNE_BUDGET_MS, default 2 s), in this process.
    occtune::set_tune_policy(occtune::TunePolicy::kOnMiss);
    for (std::int64_t s : {4096, 64})
      std::printf("prepared %lld^3: %s\n", (long long)s,
                  occtune::sgemm_prepare(Major::kRow, Op::kN, Op::kN, s, s, s).c_str());
    occtune::set_tune_policy(occtune::TunePolicy::kOff);

    // Cache: cold open and first lookup, then repeated lookups.
    auto t0 = Clock::now();
    const occtune::Cache cache = occtune::Cache::open();
    const std::string uuid = cache.devices().front().uuid;
    occtune::Problem p;
    p.m = p.n = p.k = 4096;
    const occtune::Answer answer = cache.best(p, uuid);
    const double cold_ms = seconds_since(t0) * 1e3;
    const int lookups = 1000000;
    t0 = Clock::now();
    double sink = 0;
    for (int i = 0; i < lookups; ++i) sink += cache.best(p, uuid).config.threads;
    const double lookup_ns = seconds_since(t0) / lookups * 1e9;
    std::printf("Cache: cold open + first lookup %.3f ms; repeated lookup %.0f ns (%s, %s %s)\n",
                cold_ms, lookup_ns, occtune::to_string(answer.answered_by),
                answer.config.family.c_str(), answer.config.variant.c_str());

    // Host cost per call at 64^3 on the cached path vs the bare launch of the same variant.
    {
      const std::int64_t s = 64;
      Matrices x(s, s, s);
      cudaStream_t stream;
      check(cudaStreamCreate(&stream), "cudaStreamCreate");
      occtune::Problem q;
      q.m = q.n = q.k = s;
      const occtune::Answer small = cache.best(q, uuid);
      const occtune::kernels::VariantInfo* variant = nullptr;
      for (const auto& v : occtune::kernels::variants())
        if (v.symbol == small.config.variant) variant = &v;
      occtune::kernels::GemmArgs args{x.a,    x.b,    x.c,    int(s), int(s),
                                      int(s), int(s), int(s), int(s)};
      const int batch = 256, batches = 200;
      std::vector<double> api_ns, bare_ns;
      for (int round = 0; round < batches; ++round) {
        check(cudaStreamSynchronize(stream), "sync");
        auto t = Clock::now();
        for (int i = 0; i < batch; ++i)
          occtune::sgemm(Major::kRow, Op::kN, Op::kN, s, s, s, 1.0f, x.a, s, x.b, s, 0.0f, x.c, s,
                         stream);
        api_ns.push_back(seconds_since(t) / batch * 1e9);
        check(cudaStreamSynchronize(stream), "sync");
        t = Clock::now();
        for (int i = 0; i < batch; ++i)
          check(occtune::kernels::launch_prepared(*variant, args, stream), "launch");
        bare_ns.push_back(seconds_since(t) / batch * 1e9);
      }
      std::printf(
          "sgemm host cost at 64^3 (%s): %.0f ns per call, bare launch %.0f ns, "
          "difference %.0f ns (medians of %d batches of %d)\n",
          variant->symbol.c_str(), median(api_ns), median(bare_ns),
          median(api_ns) - median(bare_ns), batches, batch);

      // 64^3 per call back to back, against cuBLAS.
      cublasHandle_t handle;
      cublasCreate(&handle);
      cublasSetStream(handle, stream);
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      const float one = 1, zero = 0;
      std::vector<double> ours, theirs;
      const int calls = 1000;
      for (int rep = 0; rep < 11; ++rep) {
        cudaEventRecord(e0, stream);
        for (int i = 0; i < calls; ++i)
          occtune::sgemm(Major::kRow, Op::kN, Op::kN, s, s, s, 1.0f, x.a, s, x.b, s, 0.0f, x.c, s,
                         stream);
        cudaEventRecord(e1, stream);
        check(cudaEventSynchronize(e1), "sync");
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        ours.push_back(ms * 1e3 / calls);
        cudaEventRecord(e0, stream);
        for (int i = 0; i < calls; ++i)
          cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(s), int(s), int(s), &one, x.b, int(s),
                      x.a, int(s), &zero, x.c, int(s));
        cudaEventRecord(e1, stream);
        check(cudaEventSynchronize(e1), "sync");
        cudaEventElapsedTime(&ms, e0, e1);
        theirs.push_back(ms * 1e3 / calls);
      }
      std::printf(
          "sgemm 64^3 back to back: %.2f us per call, cuBLAS %.2f us (ratio %.3f, medians "
          "of 11 loops of %d)\n",
          median(ours), median(theirs), median(ours) / median(theirs), calls);
      cublasDestroy(handle);
      cudaStreamDestroy(stream);
    }

    // 4096^3 end to end with the L2 flushed before each call, against the stored median.
    {
      const std::int64_t s = 4096;
      Matrices x(s, s, s);
      int device = 0, l2 = 0;
      cudaGetDevice(&device);
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
      void* flush;
      check(cudaMalloc(&flush, size_t(l2) * 2), "cudaMalloc");
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      std::vector<double> ms_list;
      for (int i = 0; i < 3; ++i)  // warm-up
        occtune::sgemm(Major::kRow, Op::kN, Op::kN, s, s, s, 1.0f, x.a, s, x.b, s, 0.0f, x.c, s);
      for (int i = 0; i < 30; ++i) {
        cudaMemsetAsync(flush, i & 0xff, size_t(l2) * 2);
        cudaEventRecord(e0);
        occtune::sgemm(Major::kRow, Op::kN, Op::kN, s, s, s, 1.0f, x.a, s, x.b, s, 0.0f, x.c, s);
        cudaEventRecord(e1);
        check(cudaEventSynchronize(e1), "sync");
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        ms_list.push_back(ms);
      }
      const double stored = answer.measurement ? answer.measurement->timing.median_ms : 0;
      std::printf(
          "sgemm 4096^3 end to end: median %.4f ms over 30 calls; the tuned kernel's "
          "stored median %.4f ms (ratio %.4f)\n",
          median(ms_list), stored, stored > 0 ? median(ms_list) / stored : 0.0);
      cudaFree(flush);
    }
    std::printf("(checksum %.0f)\n", sink);
  } catch (const occtune::Error& e) {
    std::fprintf(stderr, "occtune_bench_api: %s\n", e.what());
    return int(e.code());
  }
  return 0;
}
