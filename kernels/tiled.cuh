// The textbook shared-memory tiled GEMM (one output per thread, square TW x TW tiles of A and B
// staged through shared memory), in three forms that differ only in where the tiles live:
//   TiledDynamic<TW>  dynamic shared memory sized at launch, TW fixed at compile time (the
//                     mission's kernel; specialising TW lets the compiler unroll the inner loop
//                     and fold the index arithmetic, which a run-time TW cannot);
//   TiledDynamic<0>   dynamic shared memory and a run-time TW = blockDim.x: the kernel the
//                     textbook occupancy method asks the Occupancy API about;
//   TiledStatic<TW>   static __shared__ arrays, the textbook baseline.
#pragma once

#include "kernels/gemm_entry.cuh"
#include "kernels/tile_core.cuh"  // OCCTUNE_UNROLL: the host emulator compiles this header too

namespace occtune::kernels {

// Shared by all three: loads one tile pair per step, zero-filling outside the matrices so any
// M, N, K works, and accumulates in registers. In every layout consecutive threads (tx) read
// consecutive addresses of the stored matrix; a transposed operand is read with the roles of tx
// and ty swapped and stored transposed, so the shared tiles and the FMA loop are nn's.
template <int TW, Layout L = Layout::kNN>
__device__ __forceinline__ void tiled_gemm_body(const GemmArgs& p, float* as, float* bs, int tw) {
  const int tile = TW > 0 ? TW : tw;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < p.k; k0 += tile) {
    if constexpr (!transposes_a(L)) {
      const int a_col = k0 + tx;
      as[ty * tile + tx] = (row < p.m && a_col < p.k) ? p.a[size_t(row) * p.lda + a_col] : 0.0f;
    } else {
      const int a_row = int(blockIdx.y) * tile + tx, a_k = k0 + ty;
      as[tx * tile + ty] = (a_row < p.m && a_k < p.k) ? p.a[size_t(a_k) * p.lda + a_row] : 0.0f;
    }
    if constexpr (!transposes_b(L)) {
      const int b_row = k0 + ty;
      bs[ty * tile + tx] = (b_row < p.k && col < p.n) ? p.b[size_t(b_row) * p.ldb + col] : 0.0f;
    } else {
      const int b_col = int(blockIdx.x) * tile + ty, b_k = k0 + tx;
      bs[tx * tile + ty] = (b_k < p.k && b_col < p.n) ? p.b[size_t(b_col) * p.ldb + b_k] : 0.0f;
    }
    __syncthreads();
    if constexpr (TW > 0) {
      OCCTUNE_UNROLL
      for (int i = 0; i < TW; ++i) acc = fmaf(as[ty * TW + i], bs[i * TW + tx], acc);
    } else {
      for (int i = 0; i < tile; ++i) acc = fmaf(as[ty * tile + i], bs[i * tile + tx], acc);
    }
    __syncthreads();
  }
  if (row < p.m && col < p.n) {
    float* c = p.c + size_t(row) * p.ldc + col;
    *c = scale_output(acc, c, p.alpha, p.beta);
  }
}

template <Layout L, int TW>
struct TiledDynamicIn {
  template <Layout L2>
  using In = TiledDynamicIn<L2, TW>;
  static constexpr Layout kLayout = L;
  static constexpr int kMaxThreads = TW > 0 ? TW * TW : 1024;
  static constexpr size_t smem_bytes(int threads) { return 2 * size_t(threads) * sizeof(float); }
  __device__ static void run(const GemmArgs& p, unsigned char* smem) {
    const int tw = TW > 0 ? TW : int(blockDim.x);
    float* as = reinterpret_cast<float*>(smem);
    float* bs = as + tw * tw;
    tiled_gemm_body<TW, L>(p, as, bs, tw);
  }
};

template <Layout L, int TW>
struct TiledStaticIn {
  static_assert(TW > 0, "the static kernel needs a compile-time tile");
  template <Layout L2>
  using In = TiledStaticIn<L2, TW>;
  static constexpr Layout kLayout = L;
  static constexpr int kMaxThreads = TW * TW;
  __device__ static void run(const GemmArgs& p, unsigned char*) {
    __shared__ float as[TW * TW];
    __shared__ float bs[TW * TW];
    tiled_gemm_body<TW, L>(p, as, bs, TW);
  }
};

// One output per thread straight from global memory: the floor every tiled kernel must beat.
// Other layouts index through strides; with both operands transposed, consecutive threads take
// consecutive rows so that A's reads coalesce.
template <Layout L, int BLOCK>
struct NaiveIn {
  template <Layout L2>
  using In = NaiveIn<L2, BLOCK>;
  static constexpr Layout kLayout = L;
  static constexpr int kMaxThreads = BLOCK * BLOCK;
  __device__ static void run(const GemmArgs& p, unsigned char*) {
    if constexpr (L == Layout::kNN) {
      const int row = blockIdx.y * BLOCK + threadIdx.y;
      const int col = blockIdx.x * BLOCK + threadIdx.x;
      if (row >= p.m || col >= p.n) return;
      float acc = 0.0f;
      for (int i = 0; i < p.k; ++i)
        acc = fmaf(p.a[size_t(row) * p.lda + i], p.b[size_t(i) * p.ldb + col], acc);
      float* c = p.c + size_t(row) * p.ldc + col;
      *c = scale_output(acc, c, p.alpha, p.beta);
    } else {
      constexpr bool kRowsAlongX = L == Layout::kTT;
      const int row = blockIdx.y * BLOCK + (kRowsAlongX ? threadIdx.x : threadIdx.y);
      const int col = blockIdx.x * BLOCK + (kRowsAlongX ? threadIdx.y : threadIdx.x);
      if (row >= p.m || col >= p.n) return;
      // Strides of op(A) along m and k, and of op(B) along k and n, in the stored matrices.
      const size_t a_m = transposes_a(L) ? 1 : size_t(p.lda);
      const size_t a_k = transposes_a(L) ? size_t(p.lda) : 1;
      const size_t b_k = transposes_b(L) ? 1 : size_t(p.ldb);
      const size_t b_n = transposes_b(L) ? size_t(p.ldb) : 1;
      float acc = 0.0f;
      for (int i = 0; i < p.k; ++i)
        acc = fmaf(p.a[size_t(row) * a_m + size_t(i) * a_k],
                   p.b[size_t(i) * b_k + size_t(col) * b_n], acc);
      float* c = p.c + size_t(row) * p.ldc + col;
      *c = scale_output(acc, c, p.alpha, p.beta);
    }
  }
};

// The nn variants under their own names (gemm_entry.cuh: NT<>, TN<>, TT<> name the others).
template <int TW>
struct TiledDynamic : TiledDynamicIn<Layout::kNN, TW> {};
template <int TW>
struct TiledStatic : TiledStaticIn<Layout::kNN, TW> {};
template <int BLOCK>
struct Naive : NaiveIn<Layout::kNN, BLOCK> {};

}  // namespace occtune::kernels
