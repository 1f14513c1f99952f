#include <cublas_v2.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autotuner/core/element_bound.hpp"
#include "autotuner/cuda/candidate_workspace.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "autotuner/cuda/element_check.cuh"
#include "autotuner/cuda/device_fill.cuh"
#include "autotuner/cuda/launch_sampler.cuh"
#include "autotuner/cuda/nvml_clock.hpp"
#include "autotuner/cuda/shape_bench.hpp"
#include "kernels/launch.cuh"

namespace occtune::cuda {
namespace {

// Sums (c - ref)^2 and ref^2 in double; NaN anywhere in c makes the error NaN, so a poisoned
// output that was never overwritten fails the check.
__global__ void frobenius_parts(const float* c, const float* ref, size_t count, double* out) {
  __shared__ double diff_part[256];
  __shared__ double ref_part[256];
  double diff = 0, norm = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const double d = double(c[i]) - double(ref[i]);
    diff += d * d;
    norm += double(ref[i]) * double(ref[i]);
  }
  diff_part[threadIdx.x] = diff;
  ref_part[threadIdx.x] = norm;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (int(threadIdx.x) < s) {
      diff_part[threadIdx.x] += diff_part[threadIdx.x + s];
      ref_part[threadIdx.x] += ref_part[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&out[0], diff_part[0]);
    atomicAdd(&out[1], ref_part[0]);
  }
}

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  size_t count = 0;
  void allocate(size_t n) {
    count = n;
    OCCTUNE_CUDA_CHECK(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr) OCCTUNE_CUDA_CHECK_NOTHROW(cudaFree(ptr));
  }
};

}  // namespace

struct ShapeBench::Impl {
  DeviceInfo device;
  Shape shape;
  Layout layout = Layout::kNN;
  TimingPolicy policy;
  std::unique_ptr<LaunchSampler> sampler;  // the stream, L2 flush and timed samples
  cudaStream_t stream = nullptr;           // sampler's
  cublasHandle_t cublas = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  DeviceBuffer<float> a, b, c, ref;
  DeviceBuffer<float> magnitude;  // sum_k |a_ik b_kj| per element of C: the element-wise bound
  std::unique_ptr<ElementChecker> element_checker;
  DeviceBuffer<double> parts;
  bool have_reference = false;
  Timing reference;
  int settled_clock_mhz = 0;
  double settle_seconds = 0;

  int read_clock() const { return sampler->read_clock(); }

  // Tight leading dimensions: the stored rows of A (K x M when transposed) and B (N x K).
  int lda() const { return int(transposes_a(layout) ? shape.m : shape.k); }
  int ldb() const { return int(transposes_b(layout) ? shape.k : shape.n); }

  kernels::GemmArgs args() const {
    return {a.ptr, b.ptr, c.ptr, int(shape.m), int(shape.n), int(shape.k),
            lda(), ldb(), int(shape.n)};
  }

  // Scratch memory of variants that need it (split-K partial sums), kept for the shape.
  CandidateWorkspace workspace;

  // The launch arguments of `variant`, with its workspace; an allocation failure is returned
  // (and cleared) rather than thrown: it rules out that candidate only.
  cudaError_t args_for(const kernels::VariantInfo& variant, kernels::GemmArgs& out) {
    out = args();
    const size_t need = variant.workspace(int(shape.m), int(shape.n), int(shape.k));
    if (auto err = workspace.take(need, variant.symbol, stream); err != cudaSuccess) return err;
    out.workspace = static_cast<float*>(workspace.data());
    out.workspace_bytes = workspace.bytes();
    return cudaSuccess;
  }

  cudaError_t run_cublas(float* out) {
    const float alpha = 1.0f, beta = 0.0f;
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands; a
    // row-major stored matrix is its column-major transpose, so each keeps its own op.
    auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
    auto status = cublasSgemm(cublas, op(transposes_b(layout)), op(transposes_a(layout)),
                              int(shape.n), int(shape.m), int(shape.k), &alpha, b.ptr, ldb(),
                              a.ptr, lda(), &beta, out, int(shape.n));
    return status == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
  }

  // Warm-up until clocks settle (once per shape): cuBLAS launches for at least settle_ms, then
  // until three SM clock readings in a row agree within 2%, for at most settle_timeout_ms.
  // Without NVML it is a fixed settle_ms warm-up.
  void settle_clocks() {
    if (policy.settle_ms <= 0 && policy.settle_timeout_ms <= 0) return;
    using clock = std::chrono::steady_clock;
    const auto begin = clock::now();
    auto elapsed_ms = [&] {
      return std::chrono::duration<double, std::milli>(clock::now() - begin).count();
    };
    const bool nvml = NvmlClock::instance().available();
    std::vector<int> readings;
    int launches = 1;
    for (;;) {
      const auto chunk_start = clock::now();
      for (int i = 0; i < launches; ++i) OCCTUNE_CUDA_CHECK(run_cublas(c.ptr));
      OCCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
      // Chunks of about 2 ms, so the clock is read often but not after every tiny launch.
      const double chunk_ms =
          std::chrono::duration<double, std::milli>(clock::now() - chunk_start).count();
      if (chunk_ms < 2.0 && launches < 4096) launches *= 2;
      if (nvml) readings.push_back(read_clock());
      const double t = elapsed_ms();
      if (t >= policy.settle_timeout_ms) break;
      if (t < policy.settle_ms) continue;
      if (!nvml) break;
      const size_t n = readings.size();
      if (n >= 3) {
        const int hi = std::max({readings[n - 1], readings[n - 2], readings[n - 3]});
        const int lo = std::min({readings[n - 1], readings[n - 2], readings[n - 3]});
        if (hi > 0 && double(hi - lo) <= 0.02 * hi) break;
      }
    }
    settled_clock_mhz = readings.empty() ? 0 : readings.back();
    settle_seconds = elapsed_ms() / 1000.0;
  }

  double relative_error(const float* out) {
    OCCTUNE_CUDA_CHECK(cudaMemsetAsync(parts.ptr, 0, 2 * sizeof(double), stream));
    const size_t count = size_t(shape.m) * size_t(shape.n);
    const int blocks = int(std::min<size_t>((count + 255) / 256, size_t(device.sm_count) * 8));
    frobenius_parts<<<std::max(blocks, 1), 256, 0, stream>>>(out, ref.ptr, count, parts.ptr);
    OCCTUNE_CUDA_CHECK(cudaGetLastError());
    double host[2] = {0, 0};
    OCCTUNE_CUDA_CHECK(cudaMemcpyAsync(host, parts.ptr, sizeof host, cudaMemcpyDeviceToHost, stream));
    OCCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host[1] == 0) return host[0] == 0 ? 0.0 : INFINITY;
    return std::sqrt(host[0] / host[1]);
  }

  // Empty when every element of `out` is within the element-wise bound, else why not.
  std::string element_violation(const float* out) {
    const size_t count = size_t(shape.m) * size_t(shape.n);
    const double tolerance = element_tolerance(shape.k);
    const ElementCheckReport r = element_checker->run(out, ref.ptr, magnitude.ptr, count, tolerance,
                                                      stream, device.sm_count * 8);
    if (r.violations == 0) return {};
    return fmt::format(
        "{} of {} elements break the element-wise bound |c - ref| <= {:.3g} * sum_k |a_ik "
        "b_kj| (K = {}); the first, C[{}][{}] = {:.9g}, reference {:.9g}, bound {:.3g}",
        r.violations, count, tolerance, shape.k, r.first / size_t(shape.n),
        r.first % size_t(shape.n), double(r.c), double(r.ref), tolerance * double(r.magnitude));
  }
};

std::uint64_t ShapeBench::bytes_needed(const DeviceInfo& device, Shape shape) {
  const std::uint64_t operands = shape.operand_bytes(sizeof(float));
  // The reference C and the element-wise bounds.
  const std::uint64_t reference =
      2 * std::uint64_t(shape.m) * std::uint64_t(shape.n) * sizeof(float);
  if (operands == UINT64_MAX) return UINT64_MAX;
  return operands + reference + 2 * std::uint64_t(device.l2_bytes) + (64ull << 20);
}

ShapeBench::ShapeBench(const DeviceInfo& device, Shape shape, const TimingPolicy& policy,
                       Layout layout)
    : impl_(std::make_unique<Impl>()) {
  auto& s = *impl_;
  s.device = device;
  s.shape = shape;
  s.layout = layout;
  s.policy = policy;
  OCCTUNE_CUDA_CHECK(cudaSetDevice(device.index));
  size_t free_bytes = 0, total_bytes = 0;
  OCCTUNE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const auto need = bytes_needed(device, shape);
  if (need > free_bytes) {
    throw Error(
        ExitCode::kUsage,
        fmt::format(
            "shape {} needs {:.2f} GiB of device memory (A, B, C, a reference C, "
            "its element bounds and a 2x L2 flush buffer) but {} has {:.2f} GiB free; choose a "
            "smaller shape",
            shape.str(), double(need) / (1ull << 30), device.uuid,
            double(free_bytes) / (1ull << 30)));
  }
  s.sampler = std::make_unique<LaunchSampler>(device, policy);
  s.stream = s.sampler->stream();
  OCCTUNE_CUDA_CHECK(cudaEventCreate(&s.start));
  OCCTUNE_CUDA_CHECK(cudaEventCreate(&s.stop));
  OCCTUNE_CUBLAS_CHECK(cublasCreate(&s.cublas));
  OCCTUNE_CUBLAS_CHECK(cublasSetStream(s.cublas, s.stream));
  // Default math: fp32 FMA SGEMM, no TF32 tensor cores (those need CUBLAS_TF32_TENSOR_OP_MATH).
  OCCTUNE_CUBLAS_CHECK(cublasSetMathMode(s.cublas, CUBLAS_DEFAULT_MATH));

  const size_t mk = size_t(shape.m) * size_t(shape.k), kn = size_t(shape.k) * size_t(shape.n),
               mn = size_t(shape.m) * size_t(shape.n);
  s.a.allocate(mk);
  s.b.allocate(kn);
  s.c.allocate(mn);
  s.ref.allocate(mn);
  s.magnitude.allocate(mn);
  s.parts.allocate(2);
  s.element_checker = std::make_unique<ElementChecker>();
  const int fill_blocks = device.sm_count * 8;
  // |A| |B| first (the magnitudes of every dot product's terms), then the signed operands the
  // candidates and the reference compute with: the same generator, so no copy is kept.
  for (bool absolute : {true, false}) {
    OCCTUNE_CUDA_CHECK(
        fill_uniform(s.a.ptr, mk, policy.seed, -1.0f, 1.0f, fill_blocks, s.stream, absolute));
    OCCTUNE_CUDA_CHECK(fill_uniform(s.b.ptr, kn, policy.seed ^ 0x5bd1e995ull, -1.0f, 1.0f,
                                    fill_blocks, s.stream, absolute));
    if (absolute) OCCTUNE_CUDA_CHECK(s.run_cublas(s.magnitude.ptr));
  }
  OCCTUNE_CUDA_CHECK(cudaMemsetAsync(s.ref.ptr, 0xff, mn * sizeof(float), s.stream));
  OCCTUNE_CUDA_CHECK(s.run_cublas(s.ref.ptr));
  OCCTUNE_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  s.settle_clocks();
}

int ShapeBench::settled_clock_mhz() const { return impl_->settled_clock_mhz; }
double ShapeBench::settle_seconds() const { return impl_->settle_seconds; }

ShapeBench::~ShapeBench() {
  if (!impl_) return;
  auto& s = *impl_;
  if (s.cublas) cublasDestroy(s.cublas);
  if (s.start) OCCTUNE_CUDA_CHECK_NOTHROW(cudaEventDestroy(s.start));
  if (s.stop) OCCTUNE_CUDA_CHECK_NOTHROW(cudaEventDestroy(s.stop));
}

bool ShapeBench::context_lost() const { return impl_->sampler->lost; }

SampleBatch ShapeBench::reference_samples(int count) {
  auto& s = *impl_;
  SampleBatch batch;
  auto launch = [&] { return s.run_cublas(s.c.ptr); };
  cudaError_t err = cudaSuccess;
  if (!s.have_reference) {
    err = s.sampler->warm_up(launch);
    s.have_reference = true;
  }
  if (err == cudaSuccess) err = s.sampler->sample_launches(launch, count, batch);
  OCCTUNE_CUDA_CHECK(err);  // cuBLAS failing is a runtime failure of the whole run
  return batch;
}

const Timing& ShapeBench::reference() {
  auto& s = *impl_;
  if (s.reference.samples_ms.empty()) {
    auto batch = reference_samples(s.policy.samples);
    s.reference.samples_ms = batch.samples_ms;
    s.reference.summary = summarize(batch.samples_ms);
    s.reference.sm_clock_mhz = batch.sm_clock_mhz;
  }
  return s.reference;
}

Measurement ShapeBench::check(const Candidate& candidate) {
  auto& s = *impl_;
  Measurement m;
  m.candidate = candidate;
  m.flops = s.shape.flops();
  if (s.sampler->refuse_check(candidate, m)) return m;
  if (candidate.variant->layout != s.layout) {
    // It would compute another product of the same buffers: refuse rather than fail the check.
    m.outcome = Outcome::kInvalidConfig;
    m.error = fmt::format("{} computes layout {}, but the shape is open as {}",
                          candidate.variant->symbol, layout_name(candidate.variant->layout),
                          layout_name(s.layout));
    return m;
  }
  kernels::GemmArgs args;
  s.workspace.poison_next();  // a checked launch always starts from a poisoned workspace
  if (auto err = s.args_for(*candidate.variant, args); err != cudaSuccess) {
    m.outcome = Outcome::kExceedsLimits;
    m.error = fmt::format("its workspace of {} bytes cannot be allocated: {}",
                          candidate.variant->workspace(int(s.shape.m), int(s.shape.n),
                                                       int(s.shape.k)),
                          describe(err));
    return m;
  }
  OCCTUNE_CUDA_CHECK(cudaMemsetAsync(s.c.ptr, 0xff, s.c.count * sizeof(float), s.stream));
  if (auto err = kernels::launch_variant(*candidate.variant, args, s.stream); err != cudaSuccess) {
    m.outcome = classify_launch_error(err);
    m.error = describe(err);
    return m;
  }
  if (auto err = cudaStreamSynchronize(s.stream); err != cudaSuccess) {
    // Illegal addresses and traps surface here and are sticky: nothing more can run in this
    // process (cudaDeviceReset does not recover it on Hopper).
    s.sampler->lost = true;
    m.outcome = Outcome::kCrashed;
    m.error = describe(err);
    return m;
  }
  m.rel_error = s.relative_error(s.c.ptr);
  if (!(m.rel_error <= s.policy.tolerance)) {
    m.outcome = Outcome::kWrongResult;
    m.error = fmt::format("relative Frobenius error {:.3g} exceeds the tolerance {:.3g}",
                          m.rel_error, s.policy.tolerance);
  } else if (auto why = s.element_violation(s.c.ptr); !why.empty()) {
    m.outcome = Outcome::kWrongResult;
    m.error = why + fmt::format(" (relative Frobenius error {:.3g} is within {:.3g})", m.rel_error,
                                s.policy.tolerance);
  }
  return m;
}

SampleBatch ShapeBench::samples(const Candidate& candidate, int count) {
  auto& s = *impl_;
  if (auto refused = s.sampler->refused_batch()) return *refused;
  SampleBatch batch;
  kernels::GemmArgs args;
  if (auto err = s.args_for(*candidate.variant, args); err != cudaSuccess) {
    batch.outcome = Outcome::kExceedsLimits;
    batch.error = describe(err);
    return batch;
  }
  auto launch = [&] { return kernels::launch_variant(*candidate.variant, args, s.stream); };
  return s.sampler->candidate_samples(candidate.variant->symbol, launch, count);
}

Measurement ShapeBench::measure(const Candidate& candidate) {
  Measurement m = check(candidate);
  if (m.outcome != Outcome::kOk) return m;
  auto batch = samples(candidate, impl_->policy.samples);
  if (batch.outcome != Outcome::kOk) {
    m.outcome = batch.outcome;
    m.error = batch.error;
    return m;
  }
  m.timing.samples_ms = std::move(batch.samples_ms);
  m.timing.summary = summarize(m.timing.samples_ms);
  m.timing.sm_clock_mhz = batch.sm_clock_mhz;
  return m;
}

}  // namespace occtune::cuda
