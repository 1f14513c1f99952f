// Test-only slowed copies of tiled_dynamic (issue #6): the same tiled GEMM and the same correct
// result, plus a pass over the first P% of K again, so a kernel P% slower exists on a real GPU.
// `occtune check --kernel-override tiled_dynamic=tiled_dynamic_slowP` launches one in place of
// the cached winner to show the gate failing (and staying quiet below its threshold). Registered
// as tiled_dynamic_slow3, _slow10 and _slow25 only when the environment has
// OCCTUNE_TEST_KERNELS=1, so normal tuning never sees them. TiledDynamic itself is untouched.
#include <cstdlib>
#include <string>
#include <string_view>

#include "kernels/gemm_family.cuh"

namespace occtune::kernels {

// One tiled pass over K in [0, k_end), loads bounded by the real K (zero-filled beyond it), the
// arithmetic in TiledDynamic<TW>'s order.
template <int TW>
__device__ __forceinline__ float slowed_pass(const GemmArgs& p, float* as, float* bs, int row,
                                             int col, int k_end) {
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k_end; k0 += TW) {
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    as[ty * TW + tx] = (row < p.m && a_col < p.k) ? p.a[size_t(row) * p.lda + a_col] : 0.0f;
    bs[ty * TW + tx] = (b_row < p.k && col < p.n) ? p.b[size_t(b_row) * p.ldb + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TW; ++i) acc = fmaf(as[ty * TW + i], bs[i * TW + tx], acc);
    __syncthreads();
  }
  return acc;
}

// Outside any anonymous namespace: the kernel manifest names it "TiledDynamicSlow<TW,P>".
template <int TW, int EXTRA_PERCENT>
struct TiledDynamicSlow {
  static constexpr int kMaxThreads = TW * TW;
  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    float* as = reinterpret_cast<float*>(smem);
    float* bs = as + TW * TW;
    const int row = int(blockIdx.y) * TW + int(threadIdx.y);
    const int col = int(blockIdx.x) * TW + int(threadIdx.x);
    const float acc = slowed_pass<TW>(p, as, bs, row, col, p.k);
    const int extra_k = int((long long)(p.k) * EXTRA_PERCENT / 100) + 1;
    const float waste = slowed_pass<TW>(p, as, bs, row, col, extra_k);
    // 0 * waste is not foldable under IEEE rules (waste could be Inf or NaN), so the extra pass
    // stays; with finite inputs it adds exactly zero.
    if (row < p.m && col < p.n) p.c[size_t(row) * p.ldc + col] = fmaf(0.0f, waste, acc);
  }
};

namespace {

// A slowed tile of TW x TW threads, specialised to its square block like tiled_dynamic's.
template <int TW, int P>
GemmConfig slowed(const char* symbol) {
  GemmConfig g = gemm_config<TiledDynamicSlow<TW, P>>(symbol, {}, {TW, TW});
  g.tile_m = g.tile_n = TW;
  g.dynamic_smem = 2 * std::size_t(TW * TW) * sizeof(float);
  return g;
}

// No walk: the candidates are the registered tiles, so every tile a tiled_dynamic winner can
// have (4..32 under the default min_tile) has a slowed twin with the same label.
template <int P>
BuiltinFamily slowed_family(const char* s4, const char* s8, const char* s16, const char* s32) {
  return gemm_family("tiled_dynamic_slow" + std::to_string(P),
                     "TEST ONLY (OCCTUNE_TEST_KERNELS=1): tiled_dynamic plus " +
                         std::to_string(P) + "% more K passes, same result",
                     BlockRule::kSquare,
                     {slowed<4, P>(s4), slowed<8, P>(s8), slowed<16, P>(s16), slowed<32, P>(s32)});
}

}  // namespace

std::vector<BuiltinFamily> slowed_builtins() {
  if (!test_kernels_enabled()) return {};
  std::vector<BuiltinFamily> out;
  out.push_back(slowed_family<3>("TiledDynamicSlow<4,3>", "TiledDynamicSlow<8,3>",
                                 "TiledDynamicSlow<16,3>", "TiledDynamicSlow<32,3>"));
  out.push_back(slowed_family<10>("TiledDynamicSlow<4,10>", "TiledDynamicSlow<8,10>",
                                  "TiledDynamicSlow<16,10>", "TiledDynamicSlow<32,10>"));
  out.push_back(slowed_family<25>("TiledDynamicSlow<4,25>", "TiledDynamicSlow<8,25>",
                                  "TiledDynamicSlow<16,25>", "TiledDynamicSlow<32,25>"));
  return out;
}

}  // namespace occtune::kernels
