// The offline twin of the CUDA Occupancy API: cuda_occupancy.h (NVIDIA's host-only occupancy
// calculator, the same arithmetic the runtime uses) fed by a DeviceInfo and the register counts
// ptxas reported at build time. A GPU test compares it with the runtime API on a real device.
#include "autotuner/core/offline_occupancy.hpp"

#include <cuda_occupancy.h>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>
#include <utility>

#include "autotuner/core/device_limits.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune {
namespace {

cudaOccDeviceProp occ_device(const DeviceInfo& d) {
  cudaOccDeviceProp p;
  p.computeMajor = d.cc_major;
  p.computeMinor = d.cc_minor;
  p.maxThreadsPerBlock = d.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  p.regsPerBlock = d.regs_per_block;
  p.regsPerMultiprocessor = d.regs_per_sm;
  p.warpSize = d.warp_size;
  p.sharedMemPerBlock = d.shared_mem_per_block;
  p.sharedMemPerMultiprocessor = d.shared_mem_per_sm;
  p.numSms = d.sm_count;
  p.sharedMemPerBlockOptin = d.shared_mem_per_block_optin;
  p.reservedSharedMemPerBlock = d.reserved_shared_mem_per_block;
  return p;
}

std::string device_label(const DeviceInfo& d) { return d.source.empty() ? d.name : d.source; }

[[noreturn]] void occ_failed(cudaOccError status, const DeviceInfo& d, int threads,
                             std::size_t smem) {
  if (status == CUDA_OCC_ERROR_UNKNOWN_DEVICE)
    fail(ExitCode::kNotFound,
         fmt::format("cuda_occupancy.h of this build does not know compute capability {}.{} "
                     "({}); rebuild occtune with a CUDA toolkit that supports it",
                     d.cc_major, d.cc_minor, device_label(d)));
  fail(ExitCode::kUsage,
       fmt::format("cuda_occupancy.h rejected block size {} with {} bytes of dynamic shared "
                   "memory on {} (invalid input); check the device's limits",
                   threads, smem, device_label(d)));
}

// Names the limit that binds. cudaOccResult sets a bit for every limit equal to the final block
// count, so several can be set at once; the barrier bit is added after the others and can be
// lower than them. Pick the smallest per-resource count; on a tie, prefer the order below
// (threads first: a block that fills the SM is limited by its size, not by its registers).
std::string limiter_name(const cudaOccResult& r) {
  const std::pair<unsigned, std::pair<const char*, int>> limits[] = {
      {OCC_LIMIT_WARPS, {"warps", r.blockLimitWarps}},
      {OCC_LIMIT_REGISTERS, {"registers", r.blockLimitRegs}},
      {OCC_LIMIT_SHARED_MEMORY, {"shared_memory", r.blockLimitSharedMem}},
      {OCC_LIMIT_BLOCKS, {"blocks", r.blockLimitBlocks}},
      {OCC_LIMIT_BARRIERS, {"barriers", r.blockLimitBarriers}},
  };
  const char* best = "none";
  int best_count = INT_MAX;
  bool found = false;
  for (auto& [bit, limit] : limits) {
    if (!(r.limitingFactors & bit)) continue;
    if (!found || limit.second < best_count) {
      best = limit.first;
      best_count = limit.second;
      found = true;
    }
  }
  return best;
}

// The build-time resources of a kernel on this device's architecture (or the nearest compiled).
kernels::ResourceLookup lookup_resources(const std::string& symbol, const DeviceInfo& d) {
  std::string origin;
  if (const auto declared = user_resources(symbol, d.compute_capability(), &origin)) {
    // A user kernel is not in the manifest: the program's compiled code for this architecture
    // says what ptxas gave it, or (a source kernel) the code compiled for it, or its
    // registration declares it.
    if (declared->registers <= 0)
      fail(ExitCode::kUsage,
           fmt::format("{} has no register count for {} to plan without a GPU: {}; or set "
                       "KernelConfig::registers (and static_smem) as nvcc --resource-usage "
                       "reports them, or plan on the GPU with --device N",
                       symbol, d.arch(), origin));
    thread_local kernels::KernelResources held;  // read by the caller before the next lookup
    held = {};
    held.registers = declared->registers;
    held.static_smem = declared->static_smem;
    held.barriers = declared->barriers;
    held.arch = d.compute_capability();
    return {&held, true};
  }
  auto found = kernels::find_kernel_resources(symbol, d.compute_capability());
  if (!found.resources) {
    std::set<std::string_view> known;
    for (auto& r : kernels::kernel_resources()) known.insert(r.symbol);
    std::string names;
    for (auto n : known) names += (names.empty() ? "" : ", ") + std::string(n);
    fail(ExitCode::kRuntime,
         fmt::format("no build-time resources for kernel {} in the kernel manifest (built for "
                     "architectures {}; known kernels: {}); rebuild occtune so ptxas reports it",
                     symbol, kernels::kernel_architectures(), names.empty() ? "none" : names));
  }
  return found;
}

// The arithmetic below divides by the warp size and walks block sizes in warp steps up to the
// thread limit, so properties outside the hardware's range are refused before any of it runs.
void require_plannable(const DeviceInfo& device) {
  require_valid_device(device, device_label(device), ExitCode::kUsage,
                       "correct the device profile, or tune on the device again so its "
                       "properties are read afresh");
}

}  // namespace

OfflineOccupancy::OfflineOccupancy(DeviceInfo device) : device_(std::move(device)) {
  require_plannable(device_);
}

OccupancyAnswer OfflineOccupancy::compute(const DeviceInfo& device, int registers, int static_smem,
                                          int max_threads_per_block, int barriers, int threads,
                                          std::size_t dynamic_smem) {
  require_plannable(device);
  if (threads <= 0)
    fail(ExitCode::kUsage,
         fmt::format("block size {} is not positive; ask about at least one thread", threads));
  if (registers < 0 || static_smem < 0)
    fail(ExitCode::kRuntime,
         fmt::format("kernel attributes are negative (registers {}, static shared memory {})",
                     registers, static_smem));

  const cudaOccDeviceProp prop = occ_device(device);
  const std::size_t static_bytes = std::size_t(static_smem);

  // A kernel whose static plus dynamic shared memory exceeds the default per-block limit can only
  // launch after opting in (cudaFuncAttributeMaxDynamicSharedMemorySize), so the twin answers
  // for a kernel opted in to everything the device allows a block beyond its static shared
  // memory; below the default limit it answers for a kernel with the default attribute (48 KiB
  // minus the static part). Both give the runtime's numbers (checked on an H100 and an H200): the
  // opt-in changes nothing for a launch that fits the default limit.
  const bool opt_in = static_bytes > device.shared_mem_per_block ||
                      dynamic_smem > device.shared_mem_per_block - static_bytes;
  const std::size_t limit =
      opt_in ? device.shared_mem_per_block_optin : device.shared_mem_per_block;
  const std::size_t max_dynamic = limit > static_bytes ? limit - static_bytes : 0;

  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = max_threads_per_block > 0 ? max_threads_per_block : INT_MAX;
  attr.numRegs = registers;
  attr.sharedSizeBytes = static_bytes;
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  attr.shmemLimitConfig = opt_in ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
  attr.maxDynamicSharedSizeBytes = max_dynamic;
  attr.numBlockBarriers = std::max(1, barriers);
  const cudaOccDeviceState state;

  // cuda_occupancy.h does its shared-memory arithmetic in int; anything past the opt-in limit
  // gets 0 blocks either way, so clamp to one byte past it instead of letting a huge request wrap.
  const std::size_t smem_for_calc = opt_in ? std::min(dynamic_smem, max_dynamic + 1) : dynamic_smem;

  cudaOccResult result{};
  const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state,
                                                                      threads, smem_for_calc);
  if (status != CUDA_OCC_SUCCESS) occ_failed(status, device, threads, dynamic_smem);

  OccupancyAnswer answer;
  answer.registers = registers;
  // cuda_occupancy.h checks the block size against the device only; the runtime also refuses a
  // block larger than the function allows (launch bounds), which is a thread limit as well.
  if (threads > attr.maxThreadsPerBlock) {
    answer.active_blocks_per_sm = 0;
    answer.limiter = "warps";
    return answer;
  }
  answer.active_blocks_per_sm = result.activeBlocksPerMultiprocessor;
  answer.limiter = limiter_name(result);
  return answer;
}

int OfflineOccupancy::max_potential_block_size(const std::string& symbol, SmemForThreads smem,
                                               int block_size_limit) {
  auto found = lookup_resources(symbol, device_);
  if (!found.exact_arch) used_nearest_arch_ = true;
  const auto res = *found.resources;
  const int func_max_threads = INT_MAX;  // no __launch_bounds__ known offline
  return potential_block_size_walk(device_, func_max_threads, block_size_limit, smem,
                                   [&](int block, std::size_t dynamic) {
                                     return compute(device_, res.registers, res.static_smem,
                                                    func_max_threads, res.barriers, block, dynamic)
                                         .active_blocks_per_sm;
                                   });
}

int potential_block_size_walk(const DeviceInfo& device, int func_max_threads, int block_size_limit,
                              const SmemForThreads& smem,
                              const std::function<int(int block, std::size_t smem)>& active) {
  // A transcription of the runtime's cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags
  // (cuda_runtime.h), with `active` in place of cudaOccupancyMaxActiveBlocksPerMultiprocessor.
  // The loop is re-implemented rather than calling cuda_occupancy.h's
  // cudaOccMaxPotentialOccupancyBlockSizeVariableSMem (which runs the same walk and does honour
  // a limit passed as cudaOccFuncAttributes::maxThreadsPerBlock) so that the limit follows the
  // runtime's rules to the letter (0 means the device maximum, a negative limit answers 0) and
  // every block size is judged by the very answer that active_blocks() gives. The unit tests
  // check that both walks agree for every shipped profile, limit and shared-memory shape, and
  // the walk matched cudaOccupancyMaxPotentialBlockSizeVariableSMem on an H100.
  const int dev_max_threads = device.max_threads_per_block;
  const int granularity = device.warp_size;
  const int occupancy_limit = device.max_threads_per_sm;

  int limit = block_size_limit;
  if (limit == 0) limit = dev_max_threads;
  if (dev_max_threads < limit) limit = dev_max_threads;
  if (func_max_threads < limit) limit = func_max_threads;
  // A negative limit leaves the runtime's loop empty: it answers block size 0.
  const int limit_aligned = limit > 0 ? ((limit + granularity - 1) / granularity) * granularity : 0;

  int max_block_size = 0;
  int max_occupancy = 0;
  for (int aligned = limit_aligned; aligned > 0; aligned -= granularity) {
    // The first try can be above the limit when the limit is not a multiple of the warp size.
    const int block = std::min(limit, aligned);
    const std::size_t dynamic = smem ? smem(block) : 0;
    const int occupancy_in_threads = block * active(block, dynamic);
    if (occupancy_in_threads > max_occupancy) {
      max_block_size = block;
      max_occupancy = occupancy_in_threads;
    }
    if (occupancy_limit == max_occupancy) break;  // cannot improve on a full SM
  }
  return max_block_size;
}

OccupancyAnswer OfflineOccupancy::active_blocks(const std::string& symbol, int threads,
                                                std::size_t dynamic_smem) {
  auto found = lookup_resources(symbol, device_);
  if (!found.exact_arch) used_nearest_arch_ = true;
  const auto& res = *found.resources;
  return compute(device_, res.registers, res.static_smem, INT_MAX, res.barriers, threads,
                 dynamic_smem);
}

std::string OfflineOccupancy::description() const {
  // Every kernel in the manifest is compiled for the same architectures, so any symbol tells
  // which build the register counts come from on this device.
  const auto& all = kernels::kernel_resources();
  std::string registers = "no build-time register counts";
  if (!all.empty()) {
    auto found = kernels::find_kernel_resources(all.front().symbol, device_.compute_capability());
    if (found.resources) {
      registers = fmt::format("registers from sm_{} build", found.resources->arch);
      if (!found.exact_arch) registers += fmt::format(", nearest to {}", device_.arch());
    }
  }
  return fmt::format("cuda_occupancy.h on {} ({})", device_label(device_), registers);
}

}  // namespace occtune
