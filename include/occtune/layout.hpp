// The operand layouts of a GEMM (issue #12): which of op(A) and op(B) is a transpose, in the
// row-major form every kernel and the cache key use, and the reduction of a column-major BLAS
// call to that form. C++17, standard headers only: nvcc compiles it and the public API uses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

// The constexpr helpers below are used in kernels too; nvcc needs them marked for the device.
#if defined(__CUDACC__)
#define OCCTUNE_LAYOUT_HD __host__ __device__
#else
#define OCCTUNE_LAYOUT_HD
#endif

namespace occtune {

// Row-major C[M x N] = op(A)[M x K] * op(B)[K x N]. op(A) = T: A is stored K x M (lda >= M);
// op(B) = T: B is stored N x K (ldb >= K). Named by (op(A), op(B)): "nn", "nt", "tn", "tt".
enum class Layout : int { kNN = 0, kNT = 1, kTN = 2, kTT = 3 };

inline constexpr Layout kAllLayouts[] = {Layout::kNN, Layout::kNT, Layout::kTN, Layout::kTT};

OCCTUNE_LAYOUT_HD constexpr bool transposes_a(Layout l) { return l == Layout::kTN || l == Layout::kTT; }
OCCTUNE_LAYOUT_HD constexpr bool transposes_b(Layout l) { return l == Layout::kNT || l == Layout::kTT; }

enum class Op { kN, kT };           // op(X) = X or X^T
enum class Major { kRow, kColumn };  // storage order of every matrix of the call

OCCTUNE_LAYOUT_HD constexpr Layout layout_of(Op a, Op b) {
  return a == Op::kN ? (b == Op::kN ? Layout::kNN : Layout::kNT)
                     : (b == Op::kN ? Layout::kTN : Layout::kTT);
}

// "nn", "nt", "tn" or "tt".
OCCTUNE_LAYOUT_HD constexpr const char* layout_name(Layout l) {
  switch (l) {
    case Layout::kNT: return "nt";
    case Layout::kTN: return "tn";
    case Layout::kTT: return "tt";
    default: return "nn";
  }
}

// The layout spelt `text` ("nn", "nt", "tn", "tt"; upper case accepted), else nullopt.
std::optional<Layout> parse_layout(std::string_view text);
// The one-line error for text that parse_layout refuses, naming it and the accepted spellings.
std::string layout_error(std::string_view text);

// A GEMM in the row-major form: what a kernel of layout `layout` computes with GemmArgs
// {a, b, c, m, n, k, lda, ldb, ldc}. swap_operands: the caller's B is this problem's A and the
// caller's A its B (a column-major call).
struct RowMajorGemm {
  Layout layout = Layout::kNN;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  bool swap_operands = false;
};

// A BLAS-style call, C = alpha op(A) op(B) + beta C with C m x n and op(A) m x k, in the
// row-major form. A column-major C is the row-major C^T = op(B)^T op(A)^T: the operands swap,
// m and n swap, and each operand keeps its op (a column-major X stored with ld is the row-major
// X^T with the same ld). Pure: validate the result with row_major_violation.
RowMajorGemm to_row_major(Major major, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                          std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc);

// The smallest leading dimensions of the stored matrices of a row-major problem (at least 1).
std::int64_t min_lda(Layout l, std::int64_t m, std::int64_t k);
std::int64_t min_ldb(Layout l, std::int64_t n, std::int64_t k);

// Why `g` cannot be launched (a negative or over-large dimension, a leading dimension below
// its row), naming the value in the caller's terms (after a column-major swap, the row-major
// lda is the caller's ldb); "" when it can. Dimensions up to INT32_MAX are accepted (the
// kernels index with 32-bit ints per dimension).
std::string row_major_violation(const RowMajorGemm& g);

}  // namespace occtune
