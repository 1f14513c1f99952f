// The "streamk" family (kernels/streamk.cuh) for the registry, with its own launch: the persistent
// blocks (a grid sized from the device, not from the tiles), then, when some tile was split,
// the fix-up kernel that adds the partial sums in block order, both on the caller's stream.
#include <algorithm>
#include <atomic>
#include <string>

#include "kernels/tile_registration.cuh"
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
GemmConfig streamk_config(const char* spelled) {
  // The tile's parameters under the pipelined family's names, then the launch's own two.
  std::vector<occtune::Param> params = tile_params("pipelined", Variant::kParams);
  params.push_back({"blocks_per_sm", Variant::kBlocksPerSm});
  params.push_back({"hybrid", Variant::kHybrid});
  GemmConfig g = gemm_config<Variant>(spelled, std::move(params), {Variant::kMaxThreads, 1},
                                      &launch_streamk<Variant>);
  g.tile_m = Variant::kParams.bm;
  g.tile_n = Variant::kParams.bn;
  g.dynamic_smem = Variant::kSmemBytes;
  g.workspace_bytes = &streamk_workspace<Variant>;
  return g;
}

}  // namespace

BuiltinFamily streamk_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) configs.push_back(streamk_config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_STREAMK_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...)                                       \
  configs.push_back(streamk_config<NT<__VA_ARGS__>>(#__VA_ARGS__)); \
  configs.push_back(streamk_config<TN<__VA_ARGS__>>(#__VA_ARGS__)); \
  configs.push_back(streamk_config<TT<__VA_ARGS__>>(#__VA_ARGS__));
  OCCTUNE_STREAMK_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("streamk",
                     "stream-K: persistent blocks share the MAC-loop iterations of all tiles "
                     "evenly (pipelined tile); split tiles meet in a workspace and a "
                     "deterministic fix-up",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
