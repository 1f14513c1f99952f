// occtune::launch and occtune::launch_prepare (include/occtune/launch.hpp): a user family's
// tuned configuration, resolved through the store's lookup chain (else the occupancy answer on
// the live device) once per device, family and problem, then launched through the family.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <optional>
#include <string_view>

#include "autotuner/api/conversions.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/core/user_plan.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/cuda/runtime_occupancy.hpp"
#include "occtune/cache.hpp"
#include "occtune/launch.hpp"

namespace occtune {
namespace {

[[noreturn]] void cuda_failure(const std::string& what, cudaError_t err) {
  fail(ExitCode::kRuntime, fmt::format("occtune::launch: {} failed: {} ({})", what,
                                       cudaGetErrorString(err), cudaGetErrorName(err)));
}

struct Resolved {
  LaunchChoice choice;
  const UserFamily* family = nullptr;
  UserVariant variant;
  const void* function = nullptr;
};

std::mutex state_mutex;
std::map<int, DeviceInfo>& devices() {
  static std::map<int, DeviceInfo> known;
  return known;
}
std::map<std::string, Resolved>& resolved() {
  static std::map<std::string, Resolved> memo;
  return memo;
}

const UserFamily& registered(const std::string& name) {
  const UserFamily* f = find_user_family(name);
  if (!f)
    fail(ExitCode::kUsage, fmt::format("occtune::launch: no user kernel family '{}' is "
                                       "registered; call occtune::register_family first",
                                       name));
  return *f;
}

// The store's answer, when there is a store that can answer for this device.
std::optional<Answer> cached_answer(const UserFamily& f, const DeviceInfo& device, Shape shape) {
  const Cache* cache = api::process_cache();
  if (cache == nullptr) return std::nullopt;  // no store yet: the occupancy answer below
  Problem p;
  p.family = f.def.name;
  p.m = shape.m;
  p.n = shape.n;
  p.k = shape.k;
  return cache->find(p, device.uuid);
}

Resolved resolve(const UserFamily& f, const DeviceInfo& device, const Dims& problem) {
  const Shape shape = to_shape(f, problem);
  Resolved r;
  r.family = &f;
  if (const auto answer = cached_answer(f, device, shape)) {
    r.variant = parse_variant_name(f, answer->config.variant);
    r.choice.measured = answer->measured();
    r.choice.how =
        fmt::format("{}{}", to_string(answer->answered_by),
                    answer->measured() ? " (measured on " + answer->measurement->device_uuid + ")"
                                       : std::string(" (not measured)"));
  } else {
    // Nothing stored: the textbook answer of the occupancy API on this device.
    cuda::RuntimeOccupancy oracle(device);
    const Plan plan = plan_user_family(f, device, shape, oracle);
    const Candidate* first = nullptr;
    for (const auto& c : plan.candidates)
      if (c.rejection.empty()) {
        first = &c;
        break;
      }
    if (!first)
      fail(ExitCode::kNotFound,
           fmt::format("occtune::launch: no configuration of '{}' can run on {} at {}", f.def.name,
                       device.name, problem.str()));
    r.variant = *user_variant(*first->variant);
    r.choice.how = "heuristic on this device (no store entry; the occupancy API's answer)";
  }
  const KernelConfig& config = f.def.configs[std::size_t(r.variant.config)];
  r.choice.family = f.def.name;
  r.choice.variant = f.variant_symbol(r.variant.config, r.variant.block);
  r.choice.params = config.params;
  r.choice.block = r.variant.block;
  r.choice.grid = user_grid(f, r.variant, problem);
  r.choice.dynamic_smem = f.def.smem(r.variant.block, config);
  r.choice.workspace_bytes = f.def.workspace ? f.def.workspace(problem, config, r.variant.block) : 0;
  const UserKernel kernel = *user_kernel(r.choice.variant);
  r.function = kernel.function;
  // Opt in to large dynamic shared memory here, once, rather than on every launch.
  if (r.choice.dynamic_smem > 48 * 1024)
    if (const int err = kernel.cuda->set_max_dynamic_smem(r.function, int(r.choice.dynamic_smem));
        err != 0)
      cuda_failure("opting " + r.choice.variant + " in to its shared memory", cudaError_t(err));
  return r;
}

const Resolved& resolved_for(const std::string& family, const Dims& problem) {
  const UserFamily& f = registered(family);
  int ordinal = 0;
  if (const cudaError_t err = cudaGetDevice(&ordinal); err != cudaSuccess)
    cuda_failure("cudaGetDevice", err);
  const std::string key = fmt::format("{}|{}|{}", ordinal, family, problem.str());
  DeviceInfo device;
  {
    std::lock_guard lock(state_mutex);
    if (auto it = resolved().find(key); it != resolved().end()) return it->second;
    auto d = devices().find(ordinal);
    if (d == devices().end())
      d = devices().emplace(ordinal, cuda::select_device(std::to_string(ordinal))).first;
    device = d->second;
  }
  Resolved r = resolve(f, device, problem);  // outside the lock: it reads the store
  std::lock_guard lock(state_mutex);
  return resolved().try_emplace(key, std::move(r)).first->second;
}

}  // namespace

LaunchChoice launch_prepare(const std::string& family, const Dims& problem) {
  return resolved_for(family, problem).choice;
}

void launch(const std::string& family, const Dims& problem, const std::vector<float*>& buffers,
            void* stream) {
  const Resolved& r = resolved_for(family, problem);
  LaunchArgs args;
  args.problem = &problem;
  args.config = &r.family->def.configs[std::size_t(r.variant.config)];
  args.function = r.function;
  args.block = r.choice.block;
  args.grid = r.choice.grid;
  args.dynamic_smem = r.choice.dynamic_smem;
  args.stream = stream;
  args.buffers = buffers;
  // The configuration's workspace lives in stream order around its launch, so concurrent
  // launches on other streams never share it.
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (r.choice.workspace_bytes > 0) {
    if (const cudaError_t err = cudaMallocAsync(&args.workspace, r.choice.workspace_bytes, s);
        err != cudaSuccess)
      cuda_failure(fmt::format("allocating the {} bytes of workspace of {}",
                               r.choice.workspace_bytes, r.choice.variant),
                   err);
    args.workspace_bytes = r.choice.workspace_bytes;
  }
  const int err = r.family->def.launch(args);
  if (args.workspace != nullptr) cudaFreeAsync(args.workspace, s);
  if (err != 0) cuda_failure("launching " + r.choice.variant, cudaError_t(err));
}

}  // namespace occtune
