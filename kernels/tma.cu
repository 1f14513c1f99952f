// The "tma" family (kernels/tma.cuh) for the registry: its configurations, the tensor maps of a
// launch's A and B, and its launches (data-parallel, and stream-K's persistent grid with its
// fix-up), which refuse what the applicability rule rules out (kernels/applicability.hpp).
// Compiled for sm_90a only (kernels/CMakeLists.txt).
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000

#include <algorithm>
#include <string>

#include "kernels/applicability.hpp"
#include "kernels/gemm_family.cuh"
#include "kernels/streamk_launch.cuh"
#include "kernels/tma.cuh"

namespace occtune::kernels {
namespace {

// Where the family runs: the data every configuration carries (GemmConfig -> VariantInfo) and
// the launch checks, so that planning, the launch and occtune::sgemm apply one rule.
VariantInfo tma_rule() {
  VariantInfo v;
  v.layout = Layout::kNN;
  v.required_compute_capability = 90;  // TMA, mbarrier transaction counts, setmaxnreg
  v.operand_alignment = 4;  // TMA: 16-byte global strides and addresses of A and B (C: any)
  v.requirement = "TMA";
  return v;
}

const VariantInfo& rule() {
  static const VariantInfo r = tma_rule();
  return r;
}

using EncodeFn = PFN_cuTensorMapEncodeTiled_v12000;

// cuTensorMapEncodeTiled from the driver through the runtime (no -lcuda), looked up once.
EncodeFn encoder() {
  static const EncodeFn fn = []() -> EncodeFn {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return reinterpret_cast<EncodeFn>(f);
  }();
  return fn;
}

// A row-major rows x cols fp32 matrix with leading dimension ld (cols contiguous) as a 2D tensor
// map with box box_rows x box_cols.
bool encode(CUtensorMap* map, const float* ptr, int rows, int cols, int ld, int box_rows,
            int box_cols, CUtensorMapSwizzle swizzle) {
  const EncodeFn fn = encoder();
  if (!fn) return false;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(ptr), dims, strides, box,
            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The operands a pair of maps describes.
struct MapKey {
  const float* a = nullptr;
  const float* b = nullptr;
  int m = 0, n = 0, k = 0, lda = 0, ldb = 0;
  bool operator==(const MapKey& o) const {
    return a == o.a && b == o.b && m == o.m && n == o.n && k == o.k && lda == o.lda &&
           ldb == o.ldb;
  }
};

// A's and B's maps for configuration C. Encoding is host work only (no driver round trip), but
// a tuning run or an application launches the same operands over and over: the last pair is
// kept per thread (no lock on the launch path) and re-encoded when the operands change.
template <class C>
bool maps_for(const GemmArgs& p, CUtensorMap& a, CUtensorMap& b) {
  thread_local MapKey cached_key;
  thread_local CUtensorMap cached_a, cached_b;
  thread_local bool valid = false;
  const MapKey key{p.a, p.b, p.m, p.n, p.k, p.lda, p.ldb};
  if (!valid || !(key == cached_key)) {
    constexpr CUtensorMapSwizzle kSwizzleA = C::kSwizzleBits == 3   ? CU_TENSOR_MAP_SWIZZLE_128B
                                             : C::kSwizzleBits == 2 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                                    : CU_TENSOR_MAP_SWIZZLE_32B;
    valid = encode(&cached_a, p.a, p.m, p.k, p.lda, C::BM, C::BK, kSwizzleA) &&
            encode(&cached_b, p.b, p.k, p.n, p.ldb, C::BK, C::BN, CU_TENSOR_MAP_SWIZZLE_NONE);
    cached_key = key;
    if (!valid) return false;
  }
  a = cached_a;
  b = cached_b;
  return true;
}

// The kernel of configuration C: tma_entry, or tma_streamk_entry for a TmaStreamK.
template <class C>
const void* entry_of() {
  if constexpr (C::kStreamK != 0)
    return reinterpret_cast<const void*>(&tma_streamk_entry<C>);
  else
    return reinterpret_cast<const void*>(&tma_entry<C>);
}

// What the rule rules out, refused like a bad launch configuration before anything runs.
bool refused(const GemmArgs& p) {
  const OperandLayout operands{p.lda, p.ldb, p.ldc, reinterpret_cast<std::uintptr_t>(p.a),
                               reinterpret_cast<std::uintptr_t>(p.b),
                               reinterpret_cast<std::uintptr_t>(p.c)};
  return p.m < 1 || p.n < 1 || p.k < 0 || !operand_violation(rule(), operands).empty();
}

template <class C>
cudaError_t launch_tma(const GemmArgs& p, dim3 grid, dim3 block, size_t smem,
                       cudaStream_t stream) {
  if (refused(p)) return cudaErrorInvalidValue;
  CUtensorMap a{}, b{};  // with K = 0 the kernel never reads them (no slab to copy)
  if (p.k > 0 && !maps_for<C>(p, a, b)) return cudaErrorInvalidValue;
  tma_entry<C><<<grid, block, smem, stream>>>(a, b, p);
  return cudaGetLastError();
}

// Stream-K: the plan on the persistent blocks the device keeps resident (one per SM: 1 block per
// SM is all the shared memory allows), never more than there are iterations
// (kernels/streamk_launch.cuh).
template <class C>
StreamKPlan streamk_plan(int m, int n, int k) {
  return streamk::device_plan<C>({entry_of<C>(), C::kThreads, C::kSmemBytes, 1}, m, n, k, C::BM,
                                 C::BN, C::BK);
}

// Partial-sum slots of the shape on the current device (0 when no tile is split there).
template <class C>
std::size_t streamk_workspace(int m, int n, int k) {
  return streamk::workspace_bytes(streamk_plan<C>(m, n, k), C::BM, C::BN);
}

// What a stream-K launch needs, worked out once: the plan on this device, whether a tile is
// split (a workspace and the fix-up), and A's and B's maps.
struct StreamKLaunch {
  StreamKPlan plan;
  bool fixup = false;
  CUtensorMap a{}, b{};  // with K = 0 the kernels never read them (no slab to copy)
};

// Refuses what the plan cannot run (no device answer; a missing or misaligned workspace where
// some tile is split) and encodes the maps: the launches of every stream-K configuration.
template <class C>
cudaError_t prepare_streamk(const GemmArgs& p, StreamKLaunch& l) {
  if (refused(p)) return cudaErrorInvalidValue;
  l.plan = streamk_plan<C>(p.m, p.n, p.k);
  if (l.plan.tiles == 0) return cudaErrorInvalidValue;  // no device answer: a bad configuration
  const std::size_t need = streamk::workspace_bytes(l.plan, C::BM, C::BN);
  // Without its workspace (float4 stores: 16-byte aligned) the variant cannot run.
  if (need > 0 && (!p.workspace || p.workspace_bytes < need ||
                   reinterpret_cast<std::uintptr_t>(p.workspace) % 16 != 0))
    return cudaErrorInvalidValue;
  l.fixup = need > 0;
  if (p.k > 0 && !maps_for<C>(p, l.a, l.b)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

// The persistent kernel, as a programmatic dependent of the kernel before it or plainly, then
// the fix-up where a tile is split.
template <class C>
cudaError_t launch_persistent(const GemmArgs& p, const StreamKLaunch& l, dim3 block, size_t smem,
                              cudaStream_t stream, bool dependent) {
  const dim3 grid(unsigned(l.plan.blocks));
  cudaError_t launched;
  if (dependent) {
    launched = launch_dependent(tma_streamk_entry<C>, grid, block, smem, stream, l.a, l.b, p,
                                l.plan);
  } else {
    tma_streamk_entry<C><<<grid, block, smem, stream>>>(l.a, l.b, p, l.plan);
    launched = cudaGetLastError();
  }
  if (launched != cudaSuccess || !l.fixup) return launched;
  return streamk::launch_fixup<C>(p, l.plan, stream);
}

template <class C>
cudaError_t launch_tma_streamk(const GemmArgs& p, dim3 /*tile grid*/, dim3 block, size_t smem,
                               cudaStream_t stream) {
  StreamKLaunch l;
  if (const cudaError_t err = prepare_streamk<C>(p, l); err != cudaSuccess) return err;
  return launch_persistent<C>(p, l, block, smem, stream, false);
}

// sk 3 (TmaWavesThenStreamK): the whole waves data-parallel, then the partial wave streamed as
// the waves' programmatic dependent (none where the tiles fill whole waves; plainly where there
// is no whole wave), then the fix-up.
template <class C>
cudaError_t launch_tma_waves_then_streamk(const GemmArgs& p, dim3 /*tile grid*/, dim3 block,
                                          size_t smem, cudaStream_t stream) {
  StreamKLaunch l;
  if (const cudaError_t err = prepare_streamk<C>(p, l); err != cudaSuccess) return err;
  const bool waves = l.plan.dp_tiles > 0;
  if (waves) {
    tma_waves_entry<typename C::Waves><<<unsigned(l.plan.dp_tiles), block, smem, stream>>>(
        l.a, l.b, p, l.plan.tiles_m, l.plan.tiles_n);
    if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
  }
  if (l.plan.sk_tiles() == 0) return cudaSuccess;
  return launch_persistent<C>(p, l, block, smem, stream, waves);
}

// The symbol is the trait type as written, spaces dropped: how the manifest names tma_entry<C>
// (cmake/generate-kernel-manifest.cmake).
template <class C>
GemmConfig tma_config(std::string spelled) {
  spelled.erase(std::remove(spelled.begin(), spelled.end(), ' '), spelled.end());
  GemmConfig g;
  g.config.params = {{"bm", C::BM},        {"bn", C::BN},         {"bk", C::BK},
                     {"tm", C::TM},        {"tn", C::TN},         {"wm", C::WM},
                     {"wn", C::WN},        {"stages", C::S},      {"fbuf", C::FB},
                     {"consumer_regs", C::RC}};
  g.config.function = entry_of<C>();
  g.config.block = {C::kThreads, 1};
  g.config.symbol = std::move(spelled);
  g.config.mode = layout_name(Layout::kNN);
  g.tile_m = C::BM;
  g.tile_n = C::BN;
  g.dynamic_smem = C::kSmemBytes;
  if constexpr (C::kOrder != 0) g.config.params.push_back({"order", C::kOrder});
  if constexpr (C::kUnroll != C::BK) g.config.params.push_back({"unroll", C::kUnroll});
  if constexpr (C::kStreamK == 0) {
    g.launch = &launch_tma<C>;
  } else {
    // 1: data-parallel hybrid, 2: all streamed, 3: whole waves data-parallel, then the rest
    g.config.params.push_back({"sk", C::kStreamK});
    g.workspace_bytes = &streamk_workspace<C>;
    g.launch = &launch_tma_streamk<C>;
  }
  if constexpr (C::kStreamK == 3) {
    // The waves' kernel, where it differs from the persistent one's loop above.
    using Waves = typename C::Waves;
    if constexpr (Waves::kOrder != 0) g.config.params.push_back({"waves_order", Waves::kOrder});
    if constexpr (Waves::kUnroll != Waves::BK)
      g.config.params.push_back({"waves_unroll", Waves::kUnroll});
    g.launch = &launch_tma_waves_then_streamk<C>;
    // The waves' data-parallel kernel: the twin the configuration's shared memory opt-in covers.
    g.twin_functions = {reinterpret_cast<const void*>(&tma_waves_entry<Waves>)};
  }
  g.required_compute_capability = rule().required_compute_capability;
  g.operand_alignment = rule().operand_alignment;
  g.requirement = rule().requirement;
  return g;
}

}  // namespace

// TmaGemm<BM, BN, BK, TM, TN, WM, WN, stages, fbuf, consumer regs, producer regs>: the lab's
// 128x256x32 tile with 4 stages and the 232 / 40 register split, in the forms that won on the
// H200 (wave 20, docs/PERFORMANCE.md "tma"): the slab loop unrolled 16 and 8 steps at a time
// (TmaUnroll: 4096^3, 6144^3; 2048^3, 4096x1024x2048), the whole slab unrolled with the thread
// tile's columns outside (TmaColumnsOutside: 8192^3), and the 8-step tile as the stream-K
// hybrid (TmaStreamK<tile, 1>: the under-filled mid sizes and 5000^3). The whole-slab tile with
// rows outside, the 240 / 24 split, the BK 16 six-stage tile and its stream-K variants, 224 / 56
// and 4-step groups were measured in the same calls and lost on every shape. Since wave 21 the
// 16-step tile also runs the whole waves of a launch with only the partial wave streamed, by
// the 8-step tile's persistent kernel (TmaWavesThenStreamK, sk 3: 5000^3, 4100^3, where the
// partial wave is a few tiles); the columns-outside tile in that form lost on every shape.
#define OCCTUNE_TMA_VARIANTS(X)                                                                 \
  X(TmaUnroll<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>, 16>)                         \
  X(TmaUnroll<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>, 8>)                          \
  X(TmaColumnsOutside<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>>)                     \
  X(TmaStreamK<TmaUnroll<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>, 8>, 1>)           \
  X(TmaWavesThenStreamK<TmaUnroll<TmaGemm<128, 256, 32, 16, 8, 64, 64, 4, 2, 232, 40>, 16>, 8>)

BuiltinFamily tma_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) configs.push_back(tma_config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_TMA_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("tma",
                     "Hopper (sm_90) only: TMA copies into 4 mbarrier-guarded stages, a producer "
                     "warpgroup that also transposes A, two consumer warpgroups with 16x8 register "
                     "tiles (setmaxnreg); nn with K and N multiples of 4; unroll: k steps per "
                     "loop body; order 1: columns outside; sk 1: stream-K hybrid on a persistent "
                     "grid; sk 3: whole waves data-parallel, then the partial wave stream-K",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
