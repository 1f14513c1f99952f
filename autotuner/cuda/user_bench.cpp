// UserBench (autotuner/cuda/user_bench.hpp).
#include "autotuner/cuda/user_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "autotuner/cuda/candidate_workspace.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "autotuner/cuda/device_fill.cuh"
#include "autotuner/cuda/launch_sampler.cuh"

namespace occtune::cuda {

double compare_outputs(const std::vector<float>& out, const std::vector<float>& ref,
                       Comparison::Norm norm) {
  double diff = 0, size = 0;
  for (std::size_t i = 0; i < out.size() && i < ref.size(); ++i) {
    const double d = double(out[i]) - double(ref[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
    if (norm == Comparison::Norm::kMaxAbsolute) {
      diff = std::max(diff, std::fabs(d));
    } else {
      diff += d * d;
      size += double(ref[i]) * double(ref[i]);
    }
  }
  if (norm == Comparison::Norm::kMaxAbsolute) return diff;
  if (size == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff / size);
}

struct UserBench::Impl {
  DeviceInfo device;
  const UserFamily* family = nullptr;
  Dims problem;
  TimingPolicy policy;
  std::unique_ptr<LaunchSampler> sampler;
  std::vector<Buffer> specs;
  std::vector<float*> buffers;               // device, in declared order
  std::vector<std::vector<float>> expected;  // the reference's, per buffer (outputs only)
  CandidateWorkspace workspace;              // KernelFamily::workspace, kept for the problem
  Work work;

  ~Impl() {
    for (float* p : buffers)
      if (p) OCCTUNE_CUDA_CHECK_NOTHROW(cudaFree(p));
  }

  [[noreturn]] void bad(const std::string& what) const {
    fail(ExitCode::kUsage,
         fmt::format("kernel family '{}' at {}: {}", family->def.name, problem.str(), what));
  }

  // The configuration's workspace, when the family asks for one (KernelFamily::workspace).
  std::size_t workspace_need(const KernelConfig& config, Block block) const {
    return family->def.workspace ? family->def.workspace(problem, config, block) : 0;
  }

  // The launch arguments of a candidate, with its workspace; an allocation failure is returned
  // rather than thrown: it rules out that candidate only.
  cudaError_t args_for(const Candidate& c, const void* function, LaunchArgs& a) {
    const auto uv = *user_variant(*c.variant);
    a.problem = &problem;
    a.config = &family->def.configs[std::size_t(uv.config)];
    a.function = function;
    a.block = uv.block;
    a.grid = {c.grid_x, c.grid_y, c.grid_z};
    a.dynamic_smem = c.dynamic_smem;
    a.stream = sampler->stream();
    a.buffers = buffers;
    const std::size_t need = workspace_need(*a.config, uv.block);
    if (auto err = workspace.take(need, c.variant->symbol, sampler->stream()); err != cudaSuccess)
      return err;
    a.workspace = need > 0 ? workspace.data() : nullptr;
    a.workspace_bytes = need > 0 ? workspace.bytes() : 0;
    return cudaSuccess;
  }

  // The family's device reference, run once on the inputs the configurations read, into NaN-filled
  // copies of the outputs and scratch buffers; the outputs are copied into `host`.
  void run_device_reference(std::vector<std::vector<float>>& host) const {
    const cudaStream_t stream = sampler->stream();
    ReferenceArgs a;
    a.problem = &problem;
    a.stream = stream;
    std::vector<float*> copies;  // freed below, also when the reference fails
    struct Free {
      std::vector<float*>& p;
      ~Free() {
        for (float* x : p) OCCTUNE_CUDA_CHECK_NOTHROW(cudaFree(x));
      }
    } release{copies};
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].role == Buffer::Role::kInput) {
        a.buffers.push_back(buffers[i]);
        continue;
      }
      float* p = nullptr;
      OCCTUNE_CUDA_CHECK(cudaMalloc(&p, specs[i].count * sizeof(float)));
      copies.push_back(p);
      a.buffers.push_back(p);
      OCCTUNE_CUDA_CHECK(cudaMemsetAsync(p, 0xff, specs[i].count * sizeof(float), stream));
    }
    cudaError_t err = cudaError_t(family->def.device_reference(a));
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
      fail(ExitCode::kRuntime,
           fmt::format("kernel family '{}' at {}: the device reference failed: {}; fix "
                       "KernelFamily::device_reference (it must launch on args.stream and write "
                       "every output of args.buffers)",
                       family->def.name, problem.str(), describe(err)));
    for (std::size_t i = 0; i < specs.size(); ++i)
      if (specs[i].role == Buffer::Role::kOutput)
        OCCTUNE_CUDA_CHECK(cudaMemcpy(host[i].data(), a.buffers[i],
                                      specs[i].count * sizeof(float), cudaMemcpyDeviceToHost));
  }

  // The compiler's words when the candidate's configuration did not compile (a family compiled
  // at tuning time); such a configuration has no function and is never launched.
  const std::string* compile_failure(const Candidate& c) const {
    if (!family->compile || c.variant->family != family->def.name) return nullptr;
    const auto uv = user_variant(*c.variant);
    if (!uv) return nullptr;
    const std::string& error = family->compile().errors[std::size_t(uv->config)];
    return error.empty() ? nullptr : &error;
  }

  // The function of a candidate, opted in to its dynamic shared memory above 48 KiB (through
  // the family's hooks: the function belongs to the program's CUDA runtime).
  cudaError_t prepare(const Candidate& c, const void*& function) const {
    const auto kernel = user_kernel(c.variant->symbol);
    if (!kernel) return cudaErrorInvalidDeviceFunction;
    function = kernel->function;
    if (c.dynamic_smem <= 48 * 1024) return cudaSuccess;
    return cudaError_t(kernel->cuda->set_max_dynamic_smem(function, int(c.dynamic_smem)));
  }
};

UserBench::UserBench(const DeviceInfo& device, const UserFamily& family, Shape shape,
                     const TimingPolicy& policy)
    : impl_(std::make_unique<Impl>()) {
  auto& s = *impl_;
  s.device = device;
  s.family = &family;
  s.problem = to_dims(family, shape);
  s.policy = policy;
  s.specs = family.def.buffers(s.problem);
  if (s.specs.empty()) s.bad("buffers() returned no buffer; return its inputs and outputs");
  std::uint64_t bytes = 2 * std::uint64_t(device.l2_bytes) + (64ull << 20);
  bool any_output = false;
  for (const auto& b : s.specs) {
    if (b.count == 0)
      s.bad(fmt::format("buffer '{}' has 0 elements; give every buffer a size", b.name));
    if (!(b.low < b.high))
      s.bad(fmt::format("buffer '{}' fills from [{}, {}), an empty range; set low < high", b.name,
                        b.low, b.high));
    any_output |= b.role == Buffer::Role::kOutput;
    // A device reference has its own copy of every output and scratch buffer.
    const bool copied = family.def.device_reference && b.role != Buffer::Role::kInput;
    bytes += std::uint64_t(b.count) * sizeof(float) * (copied ? 2 : 1);
  }
  // The largest configuration workspace is counted up front, though allocated on demand.
  std::size_t most_workspace = 0;
  for (std::size_t v = 0; v < family.variant_of.size() && family.def.workspace; ++v) {
    const UserVariant& uv = family.variant_of[v];
    most_workspace = std::max(
        most_workspace, s.workspace_need(family.def.configs[std::size_t(uv.config)], uv.block));
  }
  bytes += most_workspace;
  if (!any_output)
    s.bad(
        "no buffer is an output, so nothing can be checked; mark the results "
        "Buffer::Role::kOutput");
  s.work = problem_work(family.def.name, shape);

  OCCTUNE_CUDA_CHECK(cudaSetDevice(device.index));
  size_t free_bytes = 0, total_bytes = 0;
  OCCTUNE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > free_bytes)
    s.bad(
        fmt::format("its buffers and a 2x L2 flush buffer need {:.2f} GiB but {} has {:.2f} GiB "
                    "free; choose a smaller problem",
                    double(bytes) / (1ull << 30), device.uuid, double(free_bytes) / (1ull << 30)));
  s.sampler = std::make_unique<LaunchSampler>(device, policy);
  // A host reference reads host copies of every buffer; a device reference reads the inputs
  // where they are, so only its outputs come back to the host.
  const bool host_reference = !family.def.device_reference;
  std::vector<std::vector<float>> host(s.specs.size());
  for (std::size_t i = 0; i < s.specs.size(); ++i) {
    const Buffer& b = s.specs[i];
    float* p = nullptr;
    OCCTUNE_CUDA_CHECK(cudaMalloc(&p, b.count * sizeof(float)));
    s.buffers.push_back(p);
    if (host_reference || b.role == Buffer::Role::kOutput)
      host[i].assign(b.count, std::numeric_limits<float>::quiet_NaN());
    if (b.role == Buffer::Role::kScratch)  // never read before written, if the kernel is right
      OCCTUNE_CUDA_CHECK(cudaMemsetAsync(p, 0xff, b.count * sizeof(float), s.sampler->stream()));
    if (b.role == Buffer::Role::kInput) {
      // One seed per buffer, so two inputs of one size never hold the same values.
      OCCTUNE_CUDA_CHECK(fill_uniform(p, b.count, policy.seed + 0x5bd1e995ull * i, b.low, b.high,
                                      device.sm_count * 8, s.sampler->stream()));
      if (host_reference)
        OCCTUNE_CUDA_CHECK(cudaMemcpyAsync(host[i].data(), p, b.count * sizeof(float),
                                           cudaMemcpyDeviceToHost, s.sampler->stream()));
    }
  }
  OCCTUNE_CUDA_CHECK(cudaStreamSynchronize(s.sampler->stream()));
  if (host_reference)
    family.def.reference(s.problem, host);
  else
    s.run_device_reference(host);
  s.expected.resize(s.specs.size());
  for (std::size_t i = 0; i < s.specs.size(); ++i) {
    if (s.specs[i].role != Buffer::Role::kOutput) continue;
    if (host[i].size() != s.specs[i].count)
      s.bad(
          fmt::format("the reference resized buffer '{}' to {} elements (declared {}); write "
                      "the outputs in place",
                      s.specs[i].name, host[i].size(), s.specs[i].count));
    // Every configuration would fail against a NaN, so an unwritten element is the reference's
    // fault and is named as such, before any measurement.
    std::size_t unwritten = 0;
    for (const float v : host[i]) unwritten += std::isnan(v) ? 1 : 0;
    if (unwritten > 0)
      s.bad(fmt::format("the {} reference left {} of the {} elements of output '{}' NaN "
                        "(unwritten, or computed as NaN); make it write every output element",
                        family.def.device_reference ? "device" : "host", unwritten,
                        s.specs[i].count, s.specs[i].name));
    s.expected[i] = std::move(host[i]);
  }
}

UserBench::~UserBench() = default;

const UserFamily& UserBench::family() const { return *impl_->family; }

SampleBatch UserBench::reference_samples(int) {
  fail(ExitCode::kRuntime, fmt::format("internal: the user kernel family '{}' has no speed "
                                       "reference to sample",
                                       impl_->family->def.name));
}

Measurement UserBench::check(const Candidate& candidate) {
  auto& s = *impl_;
  Measurement m;
  m.candidate = candidate;
  m.flops = s.work.flops;
  m.bytes = s.work.bytes;
  if (const std::string* failed = s.compile_failure(candidate)) {
    m.outcome = Outcome::kCompileFailed;
    m.error = *failed;
    return m;
  }
  if (s.sampler->refuse_check(candidate, m)) return m;
  if (candidate.variant->family != s.family->def.name || !user_variant(*candidate.variant)) {
    m.outcome = Outcome::kInvalidConfig;
    m.error = fmt::format("{} is not a configuration of {}, whose problem is open",
                          candidate.variant->symbol, s.family->def.name);
    return m;
  }
  const void* function = nullptr;
  cudaError_t err = s.prepare(candidate, function);
  const cudaStream_t stream = s.sampler->stream();
  LaunchArgs args;
  s.workspace.poison_next();  // a checked launch always starts from a poisoned workspace
  if (err == cudaSuccess) {
    if (auto ws = s.args_for(candidate, function, args); ws != cudaSuccess) {
      m.outcome = Outcome::kExceedsLimits;
      m.error = fmt::format("its workspace of {} bytes cannot be allocated: {}",
                            s.workspace_need(*args.config, args.block), describe(ws));
      return m;
    }
  }
  for (std::size_t i = 0; err == cudaSuccess && i < s.specs.size(); ++i)
    if (s.specs[i].role == Buffer::Role::kOutput)
      OCCTUNE_CUDA_CHECK(
          cudaMemsetAsync(s.buffers[i], 0xff, s.specs[i].count * sizeof(float), stream));
  if (err == cudaSuccess) err = cudaError_t(s.family->def.launch(args));
  if (err != cudaSuccess) {
    m.outcome = classify_launch_error(err);
    m.error = describe(err);
    return m;
  }
  if (auto sync = cudaStreamSynchronize(stream); sync != cudaSuccess) {
    // Illegal addresses and traps surface here and are sticky (see ShapeBench::check).
    s.sampler->lost = true;
    m.outcome = Outcome::kCrashed;
    m.error = describe(sync);
    return m;
  }
  double worst = 0;
  std::string where;
  std::vector<float> out;
  for (std::size_t i = 0; i < s.specs.size(); ++i) {
    if (s.specs[i].role != Buffer::Role::kOutput) continue;
    out.resize(s.specs[i].count);
    OCCTUNE_CUDA_CHECK(
        cudaMemcpy(out.data(), s.buffers[i], out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const double e = compare_outputs(out, s.expected[i], s.family->def.compare.norm);
    if (std::isnan(e) || e > worst || where.empty()) {
      worst = e;
      where = s.specs[i].name;
    }
    if (std::isnan(e)) break;
  }
  m.rel_error = worst;
  if (!(worst <= s.family->def.compare.tolerance)) {
    m.outcome = Outcome::kWrongResult;
    m.error = fmt::format("output '{}': {} {:.3g} exceeds the family's tolerance {:.3g}", where,
                          s.family->def.compare.norm == Comparison::Norm::kMaxAbsolute
                              ? "largest absolute difference"
                              : "relative Frobenius error",
                          worst, s.family->def.compare.tolerance);
  }
  return m;
}

SampleBatch UserBench::samples(const Candidate& candidate, int count) {
  auto& s = *impl_;
  if (auto refused = s.sampler->refused_batch()) return *refused;
  SampleBatch batch;
  if (const std::string* failed = s.compile_failure(candidate)) {
    batch.outcome = Outcome::kCompileFailed;
    batch.error = *failed;
    return batch;
  }
  const void* function = nullptr;
  if (auto err = s.prepare(candidate, function); err != cudaSuccess) {
    batch.outcome = classify_launch_error(err);
    batch.error = describe(err);
    return batch;
  }
  LaunchArgs args;
  if (auto err = s.args_for(candidate, function, args); err != cudaSuccess) {
    batch.outcome = Outcome::kExceedsLimits;
    batch.error = describe(err);
    return batch;
  }
  auto launch = [&] { return cudaError_t(s.family->def.launch(args)); };
  return s.sampler->candidate_samples(candidate.variant->symbol, launch, count);
}

}  // namespace occtune::cuda
