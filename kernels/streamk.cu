// Registers the "streamk" family (kernels/streamk.cuh) with its own launch: the persistent
// blocks (a grid sized from the device, not from the tiles), then, when some tile was split,
// the fix-up kernel that adds the partial sums in block order, both on the caller's stream.
#include <algorithm>
#include <atomic>
#include <string>

#include "kernels/registry_internal.cuh"
#include "kernels/streamk.cuh"

namespace occtune::kernels {
namespace {

constexpr int kFixupThreads = 256;
constexpr int kMaxDevices = 64;  // devices with a cached grid; beyond them it is asked each time

template <class Variant>
__global__ void __launch_bounds__(kFixupThreads) streamk_fixup(GemmArgs args, int blocks) {
  const StreamKPlan plan = Variant::make_plan(args.m, args.n, args.k, blocks);
  Variant::fixup(args, plan, (long long)blockIdx.x, int(threadIdx.x), kFixupThreads);
}

// The blocks the variant keeps resident on the current device at once: its blocks per SM,
// capped by the Occupancy API's answer, times the SM count. The launch information of the
// registry carries the tile grid only, so this asks the device, once per device (the answer
// cannot change while the process lives). 0 when there is no device or no answer.
template <class Variant>
int resident_blocks() {
  static std::atomic<int> cached[kMaxDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  const bool cacheable = device >= 0 && device < kMaxDevices;
  if (cacheable)
    if (const int blocks = cached[device].load(std::memory_order_relaxed)) return blocks;
  int sms = 0, per_sm = 0;
  const void* kernel = reinterpret_cast<const void*>(&gemm_entry<Variant>);
  cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess && Variant::kSmemBytes > 48 * 1024)
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(Variant::kSmemBytes));
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Variant::kMaxThreads,
                                                        Variant::kSmemBytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  const int blocks = std::min(per_sm, Variant::kBlocksPerSm) * sms;
  if (cacheable) cached[device].store(blocks, std::memory_order_relaxed);
  return blocks;
}

template <class Variant>
StreamKPlan plan_on_device(int m, int n, int k, int resident) {
  const auto& p = Variant::kParams;
  return Variant::make_plan(m, n, k, StreamKPlan::grid(m, n, k, p.bm, p.bn, p.bk, resident));
}

// Partial-sum slots of the shape on the current device (0 when no tile is split there).
template <class Variant>
std::size_t streamk_workspace(int m, int n, int k) {
  const int resident = resident_blocks<Variant>();
  if (resident <= 0) return 0;
  const auto& p = Variant::kParams;
  return std::size_t(plan_on_device<Variant>(m, n, k, resident).workspace_floats(p.bm, p.bn)) *
         sizeof(float);
}

template <class Variant>
cudaError_t launch_streamk(const GemmArgs& args, dim3 /*tile grid*/, dim3 block, size_t smem,
                           cudaStream_t stream) {
  const int resident = resident_blocks<Variant>();
  if (resident <= 0) return cudaErrorInvalidValue;  // no device answer: a bad configuration
  const auto& p = Variant::kParams;
  const StreamKPlan plan = plan_on_device<Variant>(args.m, args.n, args.k, resident);
  const std::size_t need = std::size_t(plan.workspace_floats(p.bm, p.bn)) * sizeof(float);
  // Without its workspace the variant cannot run; refuse like a bad launch configuration.
  if (need > 0 && (!args.workspace || args.workspace_bytes < need)) return cudaErrorInvalidValue;
  gemm_entry<Variant><<<unsigned(plan.blocks), block, smem, stream>>>(args);
  if (auto err = cudaGetLastError(); err != cudaSuccess || need == 0) return err;
  streamk_fixup<Variant>
      <<<unsigned(plan.sk_tiles()), kFixupThreads, 0, stream>>>(args, plan.blocks);
  return cudaGetLastError();
}

template <class Variant>
void add_streamk(Registry& r, std::string spelled) {
  spelled.erase(std::remove(spelled.begin(), spelled.end(), ' '), spelled.end());
  VariantInfo info;
  info.family = "streamk";
  info.symbol = layout_symbol(Variant::kLayout, std::move(spelled));
  // The tile's parameters under the pipelined family's names, then the launch's own two.
  if (const FamilySpace* space = find_tile_family_space("pipelined"))
    for (auto& [name, value] : space->named_params(Variant::kParams))
      info.params.push_back({name, value});
  info.params.push_back({"blocks_per_sm", Variant::kBlocksPerSm});
  info.params.push_back({"hybrid", Variant::kHybrid});
  info.block_x = Variant::kMaxThreads;
  info.block_y = 1;
  info.tile_m = Variant::kParams.bm;
  info.tile_n = Variant::kParams.bn;
  info.dynamic_smem = Variant::kSmemBytes;
  info.workspace_bytes = &streamk_workspace<Variant>;
  r.add<Variant>(std::move(info), &launch_streamk<Variant>);
}

}  // namespace

void register_streamk(Registry& r) {
  r.families.push_back({"streamk",
                        "stream-K: persistent blocks share the MAC-loop iterations of all tiles "
                        "evenly (pipelined tile); split tiles meet in a workspace and a "
                        "deterministic fix-up",
                        false, "", nullptr, 1});
#define OCCTUNE_REGISTER(...) add_streamk<__VA_ARGS__>(r, #__VA_ARGS__);
  OCCTUNE_STREAMK_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...)                          \
  add_streamk<NT<__VA_ARGS__>>(r, #__VA_ARGS__);       \
  add_streamk<TN<__VA_ARGS__>>(r, #__VA_ARGS__);       \
  add_streamk<TT<__VA_ARGS__>>(r, #__VA_ARGS__);
  OCCTUNE_STREAMK_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
}

}  // namespace occtune::kernels
