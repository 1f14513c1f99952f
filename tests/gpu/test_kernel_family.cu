// Every variant of the tile-based families (issue #3, and stream-K and repacked of issue #18)
// on the GPU against cuBLAS, on round and odd shapes (multiples of no tile or vector width,
// small output with long K, skinny), with exact leading dimensions, padded (misaligned) ones
// and misaligned base pointers. The padding of A and B holds NaN (reading it poisons the
// result) and so does C before every launch; C's padding must still be NaN afterwards. The
// two-kernel launches (split-K, stream-K) are also captured into a CUDA graph and replayed.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "autotuner/cuda/cuda_check.cuh"
#include "kernels/launch.cuh"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

struct Layout {
  const char* name;
  int pad_a, pad_b, pad_c;  // leading dimension minus the row length
  int shift;                // floats the base pointers are moved by
};

constexpr Layout kLayouts[] = {
    {"exact", 0, 0, 0, 0}, {"padded", 1, 3, 2, 0}, {"shifted", 0, 0, 0, 1}};

const char* kFamilies[] = {"coarsened", "regblocked", "pipelined", "splitk", "streamk",
                           "repacked"};

// Device copies of A, B and C with the layout's leading dimensions, and cuBLAS's C.
struct Problem {
  int m, n, k, lda, ldb, ldc, shift;
  float *a = nullptr, *b = nullptr, *c = nullptr, *workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<float> reference;  // m x ldc, cuBLAS

  Problem(int m_, int n_, int k_, const Layout& l)
      : m(m_),
        n(n_),
        k(k_),
        lda(k_ + l.pad_a),
        ldb(n_ + l.pad_b),
        ldc(n_ + l.pad_c),
        shift(l.shift) {
    std::mt19937 rng(unsigned(m * 131 + n * 17 + k));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> ha(std::size_t(m) * lda + shift, NAN), hb(std::size_t(k) * ldb + shift, NAN);
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p) ha[shift + std::size_t(i) * lda + p] = dist(rng);
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) hb[shift + std::size_t(p) * ldb + j] = dist(rng);
    OCCTUNE_CUDA_CHECK(cudaMalloc(&a, ha.size() * 4));
    OCCTUNE_CUDA_CHECK(cudaMalloc(&b, hb.size() * 4));
    OCCTUNE_CUDA_CHECK(cudaMalloc(&c, (std::size_t(m) * ldc + shift) * 4));
    OCCTUNE_CUDA_CHECK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    OCCTUNE_CUDA_CHECK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    cublasHandle_t h;
    OCCTUNE_CUBLAS_CHECK(cublasCreate(&h));
    OCCTUNE_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    poison();
    const float one = 1, zero = 0;
    // Row-major C = A * B is column-major C^T = B^T * A^T.
    OCCTUNE_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b + shift, ldb,
                                     a + shift, lda, &zero, c + shift, ldc));
    OCCTUNE_CUDA_CHECK(cudaDeviceSynchronize());
    cublasDestroy(h);
    reference = result();
  }
  ~Problem() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(workspace);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  void poison() { OCCTUNE_CUDA_CHECK(cudaMemset(c, 0xff, (std::size_t(m) * ldc + shift) * 4)); }
  std::vector<float> result() const {
    std::vector<float> out(std::size_t(m) * ldc);
    OCCTUNE_CUDA_CHECK(cudaMemcpy(out.data(), c + shift, out.size() * 4, cudaMemcpyDeviceToHost));
    return out;
  }
  kernels::GemmArgs args(const kernels::VariantInfo& v) {
    kernels::GemmArgs g{a + shift, b + shift, c + shift, m, n, k, lda, ldb, ldc};
    const std::size_t need = v.workspace(m, n, k);
    if (need > workspace_bytes) {
      cudaFree(workspace);
      OCCTUNE_CUDA_CHECK(cudaMalloc(&workspace, need));
      workspace_bytes = need;
    }
    if (need) {
      g.workspace = workspace;
      g.workspace_bytes = workspace_bytes;
    }
    return g;
  }
};

// Relative Frobenius error over the m x n part; padding_untouched: C's padding is still NaN.
double compare(const Problem& p, const std::vector<float>& got, bool& padding_untouched) {
  double diff = 0, norm = 0;
  padding_untouched = true;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.ldc; ++j) {
      const std::size_t at = std::size_t(i) * p.ldc + j;
      if (j >= p.n) {
        padding_untouched = padding_untouched && std::isnan(got[at]);
        continue;
      }
      const double d = double(got[at]) - double(p.reference[at]);
      diff += d * d;
      norm += double(p.reference[at]) * double(p.reference[at]);
    }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

std::vector<const kernels::VariantInfo*> tile_variants() {
  std::vector<const kernels::VariantInfo*> out;
  for (auto* family : kFamilies)
    for (auto* v : kernels::variants_of(family)) out.push_back(v);
  return out;
}

void check_shape(int m, int n, int k) {
  for (auto& layout : kLayouts) {
    Problem p(m, n, k, layout);
    for (auto* v : tile_variants()) {
      const std::string what = v->symbol + " at " + std::to_string(m) + "x" + std::to_string(n) +
                               "x" + std::to_string(k) + " " + layout.name;
      p.poison();
      ASSERT_EQ(kernels::launch_variant(*v, p.args(*v), nullptr), cudaSuccess) << what;
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
      bool padding_untouched = false;
      EXPECT_LT(compare(p, p.result(), padding_untouched), 1e-5) << what;
      EXPECT_TRUE(padding_untouched) << what << ": wrote into C's padding";
    }
  }
}

TEST(KernelFamily, EveryFamilyIsRegisteredWithVariants) {
  for (auto* family : kFamilies) {
    ASSERT_NE(kernels::find_family(family), nullptr) << family;
    EXPECT_GE(kernels::variants_of(family).size(), 4u) << family;
  }
}

TEST(KernelFamily, RoundShapesMatchCublas) {
  OCCTUNE_REQUIRE_GPU();
  check_shape(1024, 1024, 1024);
  check_shape(256, 512, 128);
}

TEST(KernelFamily, OddShapesMatchCublas) {
  OCCTUNE_REQUIRE_GPU();
  check_shape(1023, 1025, 1027);
  check_shape(3001, 1000, 4097);
  check_shape(1, 1, 1);
  check_shape(5, 7, 3);
}

TEST(KernelFamily, SkinnyAndLongKShapesMatchCublas) {
  OCCTUNE_REQUIRE_GPU();
  check_shape(17, 4097, 1023);
  check_shape(4097, 17, 63);
  check_shape(256, 256, 16384);
  check_shape(64, 2048, 2048);
  check_shape(2048, 64, 2049);
}

// A split-K launch without its workspace is refused at launch, leaving the context usable.
TEST(KernelFamily, SplitKWithoutWorkspaceIsRefused) {
  OCCTUNE_REQUIRE_GPU();
  auto splitk = kernels::variants_of("splitk");
  ASSERT_FALSE(splitk.empty());
  Problem p(64, 64, 256, kLayouts[0]);
  kernels::GemmArgs g{p.a, p.b, p.c, p.m, p.n, p.k, p.lda, p.ldb, p.ldc};
  EXPECT_EQ(kernels::launch_variant(*splitk.front(), g, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// So is a launch of every skinny variant whose K is split through a workspace (the register
// kernels' split, and since waves 32-33 the rings': kernels/skinny.cu refuses any
// kWorkspaceSplit launch without one), at a shape where it splits K over blocks with slabs of
// their own.
TEST(KernelFamily, SkinnyWorkspaceSplitWithoutWorkspaceIsRefused) {
  OCCTUNE_REQUIRE_GPU();
  std::set<std::string> refused;  // the variants' templates, up to the first '<'
  Problem p(40, 11, 50001, kLayouts[0]);  // one problem for every variant: none is launched
  const kernels::GemmArgs g{p.a, p.b, p.c, p.m, p.n, p.k, p.lda, p.ldb, p.ldc};
  for (auto* v : kernels::variants_of("skinny")) {
    if (v->workspace(40, 11, 50001) == 0) continue;
    EXPECT_EQ(kernels::launch_variant(*v, g, nullptr), cudaErrorInvalidValue) << v->symbol;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    refused.insert(v->symbol.substr(0, v->symbol.find('<')));
  }
  // Every ring that splits through a workspace is among them.
  for (const char* ring : {"SkinnyPipeSmallNSplit", "SkinnyPipeSmallNRowGroupsSplit",
                           "SkinnyPipeSplit", "SkinnyPipeWindowSplit"})
    EXPECT_EQ(refused.count(ring), 1u) << ring << " was not tried without its workspace";
}

// So is a repacked launch (issue #18) without the workspace its copies go to, even where
// nothing would be copied (its workspace is part of the variant's contract, as split-K's).
TEST(KernelFamily, RepackedWithoutWorkspaceIsRefused) {
  OCCTUNE_REQUIRE_GPU();
  auto repacked = kernels::variants_of("repacked");
  ASSERT_FALSE(repacked.empty());
  for (int k : {255, 256}) {
    Problem p(64, 64, k, kLayouts[0]);
    ASSERT_GT(repacked.front()->workspace(64, 64, k), 0u);
    kernels::GemmArgs g{p.a, p.b, p.c, p.m, p.n, p.k, p.lda, p.ldb, p.ldc};
    EXPECT_EQ(kernels::launch_variant(*repacked.front(), g, nullptr), cudaErrorInvalidValue) << k;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
}

// So is a stream-K launch whose tiles are split (256x256x16384: four tiles shared by every
// SM's blocks), while one that splits nothing (1x1x1: one block, one tile) needs none.
TEST(KernelFamily, StreamKWithoutWorkspaceIsRefusedWhereTilesAreSplit) {
  OCCTUNE_REQUIRE_GPU();
  for (auto* v : kernels::variants_of("streamk")) {
    Problem split(256, 256, 16384, kLayouts[0]);
    ASSERT_GT(v->workspace(256, 256, 16384), 0u) << v->symbol;
    kernels::GemmArgs g{split.a, split.b, split.c, split.m, split.n, split.k,
                        split.lda, split.ldb, split.ldc};
    EXPECT_EQ(kernels::launch_variant(*v, g, nullptr), cudaErrorInvalidValue) << v->symbol;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    Problem tiny(1, 1, 1, kLayouts[0]);
    EXPECT_EQ(v->workspace(1, 1, 1), 0u) << v->symbol;
    kernels::GemmArgs t{tiny.a, tiny.b, tiny.c, 1, 1, 1, tiny.lda, tiny.ldb, tiny.ldc};
    tiny.poison();
    EXPECT_EQ(kernels::launch_variant(*v, t, nullptr), cudaSuccess) << v->symbol;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << v->symbol;
    bool padding_untouched = false;
    EXPECT_LT(compare(tiny, tiny.result(), padding_untouched), 1e-5) << v->symbol;
  }
}

// The two-kernel launches (split-K's second pass, stream-K's fix-up: on sm_90 a programmatic
// dependent of the first kernel, docs/PERFORMANCE.md "Programmatic dependent launch") captured
// from a stream into a CUDA graph: replayed twice, each replay's C is bit for bit the direct
// launch's, at shapes where split-K has several slices and stream-K splits tiles.
TEST(KernelFamily, TwoKernelLaunchesReplayFromAGraph) {
  OCCTUNE_REQUIRE_GPU();
  cudaStream_t stream;
  OCCTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const char* family : {"splitk", "streamk"}) {
    Problem p(257, 301, 2053, kLayouts[1]);
    for (auto* v : kernels::variants_of(family)) {
      const kernels::GemmArgs g = p.args(*v);
      if (std::string(family) == "streamk") ASSERT_GT(v->workspace(p.m, p.n, p.k), 0u);
      p.poison();  // on the legacy stream, which a non-blocking one does not wait for
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      ASSERT_EQ(kernels::launch_variant(*v, g, stream), cudaSuccess) << v->symbol;
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << v->symbol;
      const std::vector<float> direct = p.result();
      bool padding_untouched = false;
      EXPECT_LT(compare(p, direct, padding_untouched), 1e-5) << v->symbol;
      EXPECT_TRUE(padding_untouched) << v->symbol;

      cudaGraph_t graph;
      ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
      const cudaError_t launched = kernels::launch_variant(*v, g, stream);
      ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << v->symbol;
      ASSERT_EQ(launched, cudaSuccess) << v->symbol;
      cudaGraphExec_t exec;
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess) << v->symbol;
      for (int replay = 0; replay < 2; ++replay) {
        p.poison();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess) << v->symbol;
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << v->symbol;
        const std::vector<float> replayed = p.result();  // NaN padding: compare the bits
        EXPECT_EQ(std::memcmp(replayed.data(), direct.data(), direct.size() * sizeof(float)), 0)
            << v->symbol << ": replay " << replay;
      }
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
    }
  }
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace occtune
