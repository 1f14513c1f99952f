// Test-only slowed copies of tiled_dynamic (issue #6): the same tiled GEMM and the same correct
// result, plus a pass over the first P% of K again, so a kernel P% slower exists on a real GPU.
// `occtune check --kernel-override tiled_dynamic=tiled_dynamic_slowP` launches one in place of
// the cached winner to show the gate failing (and staying quiet below its threshold). Registered
// as tiled_dynamic_slow3, _slow10 and _slow25 only when the environment has
// OCCTUNE_TEST_KERNELS=1, so normal tuning never sees them. TiledDynamic itself is untouched.
#include <cstdlib>
#include <string>
#include <string_view>

#include "kernels/registry_internal.cuh"

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

size_t slowed_smem(int threads) { return 2 * size_t(threads) * sizeof(float); }

template <int TW, int P>
void add_slowed(Registry& r, const char* symbol, const char* family) {
  r.add<TiledDynamicSlow<TW, P>>(symbol, family, {{"tile", TW}}, TW, TW, TW, TW,
                                 slowed_smem(TW * TW));
}

template <int P>
void add_family(Registry& r, const char* family, const char* s4, const char* s8, const char* s16,
                const char* s32) {
  // No generation symbol: the candidates are the registered tiles, so every tile a tiled_dynamic
  // winner can have (4..32 under the default min_tile) has a slowed twin with the same label.
  r.families.push_back({family,
                        "TEST ONLY (OCCTUNE_TEST_KERNELS=1): tiled_dynamic plus " +
                            std::to_string(P) + "% more K passes, same result",
                        false, "", nullptr, 1});
  add_slowed<4, P>(r, s4, family);
  add_slowed<8, P>(r, s8, family);
  add_slowed<16, P>(r, s16, family);
  add_slowed<32, P>(r, s32, family);
}

bool test_kernels_enabled() {
  const char* v = std::getenv("OCCTUNE_TEST_KERNELS");
  return v && std::string_view(v) == "1";
}

}  // namespace

void register_slowed(Registry& r) {
  if (!test_kernels_enabled()) return;
  add_family<3>(r, "tiled_dynamic_slow3", "TiledDynamicSlow<4,3>", "TiledDynamicSlow<8,3>",
                "TiledDynamicSlow<16,3>", "TiledDynamicSlow<32,3>");
  add_family<10>(r, "tiled_dynamic_slow10", "TiledDynamicSlow<4,10>", "TiledDynamicSlow<8,10>",
                 "TiledDynamicSlow<16,10>", "TiledDynamicSlow<32,10>");
  add_family<25>(r, "tiled_dynamic_slow25", "TiledDynamicSlow<4,25>", "TiledDynamicSlow<8,25>",
                 "TiledDynamicSlow<16,25>", "TiledDynamicSlow<32,25>");
}

}  // namespace occtune::kernels
