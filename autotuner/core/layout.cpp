// Parsing and printing of GEMM layouts and the column-major reduction (layout.hpp). Standard
// library only, so the public API can build it as it is.
#include "autotuner/core/layout.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace occtune {

std::optional<Layout> parse_layout(std::string_view text) {
  if (text.size() != 2) return std::nullopt;
  auto op = [](char c) -> std::optional<Op> {
    if (c == 'n' || c == 'N') return Op::kN;
    if (c == 't' || c == 'T') return Op::kT;
    return std::nullopt;
  };
  const auto a = op(text[0]), b = op(text[1]);
  if (!a || !b) return std::nullopt;
  return layout_of(*a, *b);
}

std::string layout_error(std::string_view text) {
  return "unknown layout '" + std::string(text) +
         "': use nn, nt, tn or tt (op(A) then op(B), n = as stored, t = transposed)";
}

RowMajorGemm to_row_major(Major major, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                          std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  RowMajorGemm g;
  g.k = k;
  g.ldc = ldc;
  if (major == Major::kRow) {
    g.layout = layout_of(op_a, op_b);
    g.m = m;
    g.n = n;
    g.lda = lda;
    g.ldb = ldb;
  } else {
    g.layout = layout_of(op_b, op_a);
    g.m = n;
    g.n = m;
    g.lda = ldb;
    g.ldb = lda;
    g.swap_operands = true;
  }
  return g;
}

std::int64_t min_lda(Layout l, std::int64_t m, std::int64_t k) {
  const std::int64_t row = transposes_a(l) ? m : k;
  return row > 1 ? row : 1;
}

std::int64_t min_ldb(Layout l, std::int64_t n, std::int64_t k) {
  const std::int64_t row = transposes_b(l) ? k : n;
  return row > 1 ? row : 1;
}

std::string row_major_violation(const RowMajorGemm& g) {
  constexpr std::int64_t kMax = INT32_MAX;
  // The caller's names: after a column-major swap, the row-major m is the caller's n.
  const char* m_name = g.swap_operands ? "n" : "m";
  const char* n_name = g.swap_operands ? "m" : "n";
  const std::pair<const char*, std::int64_t> dims[] = {{m_name, g.m}, {n_name, g.n}, {"k", g.k}};
  for (auto& [name, value] : dims)
    if (value < 0 || value > kMax)
      return std::string(name) + " = " + std::to_string(value) +
             " is out of range: dimensions must lie in [0, " + std::to_string(kMax) + "]";
  struct Ld {
    const char* name;  // the caller's
    std::int64_t value, least;
  };
  const Ld lds[] = {
      {g.swap_operands ? "ldb" : "lda", g.lda, min_lda(g.layout, g.m, g.k)},
      {g.swap_operands ? "lda" : "ldb", g.ldb, min_ldb(g.layout, g.n, g.k)},
      {"ldc", g.ldc, g.n > 1 ? g.n : 1},
  };
  for (auto& ld : lds)
    if (ld.value < ld.least || ld.value > kMax)
      return std::string(ld.name) + " = " + std::to_string(ld.value) +
             (ld.value < ld.least
                  ? " is smaller than the stored row of its matrix (" + std::to_string(ld.least) +
                        " elements): pass a leading dimension of at least " +
                        std::to_string(ld.least)
                  : " is out of range: leading dimensions must be at most " +
                        std::to_string(kMax));
  return "";
}

}  // namespace occtune
