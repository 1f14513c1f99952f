// Every registered variant of the tile-based families (issue #3) run on the host emulator
// (tests/support/kernel_emulator.hpp), no GPU needed: against a double-precision reference on
// shapes with partial tiles in M, N and K, K below the slab depth and whole tiles; with exact,
// padded (misaligned) and shifted (misaligned base) layouts whose padding holds NaN; bitwise
// identical whatever order the threads run in and whenever the async copies land; never
// writing outside C, never faulting past an allocation or the shared memory it declared.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

// The emulator defines the CUDA built-ins the kernel headers use, so it comes first.
#include "tests/support/kernel_emulator.hpp"

#include "kernels/coarsened.cuh"
#include "kernels/pipelined.cuh"
#include "kernels/regblocked.cuh"
#include "kernels/registry.hpp"
#include "kernels/splitk.cuh"

namespace occtune {
namespace {

using namespace kernels;

struct Layout {
  const char* name;
  int pad_a, pad_b, pad_c;  // leading dimension minus the row length
  std::size_t shift;        // floats the base pointers are moved by (misaligns them)
};

constexpr Layout kExact{"exact", 0, 0, 0, 0};
constexpr Layout kPadded{"padded", 1, 3, 2, 0};
constexpr Layout kShifted{"shifted", 0, 0, 0, 1};

struct Shape3 {
  int m, n, k;
};

// A and B random in [-1, 1) with NaN in their padding, C all NaN, and the double reference.
struct Problem {
  Shape3 s;
  int lda, ldb, ldc;
  emu::GuardedBuffer a, b, c;
  std::vector<double> ref;

  Problem(Shape3 shape, const Layout& l)
      : s(shape),
        lda(shape.k + l.pad_a),
        ldb(shape.n + l.pad_b),
        ldc(shape.n + l.pad_c),
        a(std::size_t(shape.m) * std::size_t(lda), l.shift),
        b(std::size_t(shape.k) * std::size_t(ldb), l.shift),
        c(std::size_t(shape.m) * std::size_t(ldc), l.shift) {
    std::mt19937 rng(unsigned(shape.m * 7919 + shape.n * 31 + shape.k));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int i = 0; i < s.m; ++i)
      for (int p = 0; p < s.k; ++p) a[std::size_t(i) * lda + p] = dist(rng);
    for (int p = 0; p < s.k; ++p)
      for (int j = 0; j < s.n; ++j) b[std::size_t(p) * ldb + j] = dist(rng);
    ref.assign(std::size_t(s.m) * std::size_t(s.n), 0.0);
    for (int i = 0; i < s.m; ++i)
      for (int p = 0; p < s.k; ++p) {
        const double av = a[std::size_t(i) * lda + p];
        for (int j = 0; j < s.n; ++j)
          ref[std::size_t(i) * s.n + j] += av * double(b[std::size_t(p) * ldb + j]);
      }
  }

  GemmArgs args() { return {a.data(), b.data(), c.data(), s.m, s.n, s.k, lda, ldb, ldc}; }
};

struct Outcome {
  std::string error;
  std::vector<float> c;  // the whole C buffer, padding included
};

template <class V>
Outcome run_variant(Problem& pr, emu::Order order, emu::CopyTiming timing) {
  constexpr TileParams kP = V::kParams;
  std::fill_n(pr.c.data(), pr.c.size(), NAN);
  GemmArgs args = pr.args();
  std::unique_ptr<emu::GuardedBuffer> workspace;
  if constexpr (kP.splits > 1) {
    const std::size_t bytes = tile_workspace_bytes(kP, pr.s.m, pr.s.n);
    workspace = std::make_unique<emu::GuardedBuffer>(bytes / sizeof(float));
    args.workspace = workspace->data();
    args.workspace_bytes = bytes;
  }
  const dim3 grid(unsigned((pr.s.n + kP.bn - 1) / kP.bn), unsigned((pr.s.m + kP.bm - 1) / kP.bm),
                  unsigned(kP.splits));
  Outcome out;
  out.error = emu::run_grid(
      grid, V::kMaxThreads, V::kSmemBytes, [&](unsigned char* smem) { V::run(args, smem); }, order,
      timing);
  if constexpr (kP.splits > 1) {
    if (out.error.empty()) {
      const bool vec = V::reduce_vectorized(args);
      const long long items = V::reduce_items(args, vec);
      for (long long i = 0; i < items; ++i) V::reduce_item(args, i, vec);
    }
  }
  out.c.assign(pr.c.data(), pr.c.data() + pr.c.size());
  return out;
}

// Relative Frobenius error of the valid region (NaN anywhere makes it NaN), and whether every
// padding element of C is still the NaN it was poisoned with.
double relative_error(const Problem& pr, const std::vector<float>& c, bool& padding_untouched) {
  double diff = 0, norm = 0;
  padding_untouched = true;
  for (int i = 0; i < pr.s.m; ++i) {
    for (int j = 0; j < pr.ldc; ++j) {
      const float got = c[std::size_t(i) * pr.ldc + j];
      if (j >= pr.s.n) {
        padding_untouched = padding_untouched && std::isnan(got);
        continue;
      }
      const double want = pr.ref[std::size_t(i) * pr.s.n + j];
      diff += (double(got) - want) * (double(got) - want);
      norm += want * want;
    }
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

bool bitwise_equal(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

template <class V>
void check_variant(const std::string& symbol) {
  constexpr TileParams kP = V::kParams;
  std::vector<Shape3> shapes = {
      {2 * kP.bm + 3, kP.bn + 5, 3 * kP.bk + 5},  // partial tiles everywhere, a K residue
      {kP.bm, 2 * kP.bn, 4 * kP.bk},              // whole tiles: the fast paths
      {5, 7, 3},                                  // smaller than one tile, K below the slab
  };
  // Split-K with more splits than slabs: the empty slices must still be written (zeros).
  if (kP.splits > 1) shapes.push_back({kP.bm + 1, kP.bn - 1, 2 * kP.bk - 3});
  struct Run {
    const Layout* layout;
    emu::Order order;
    emu::CopyTiming timing;
  };
  const Run runs[] = {
      {&kExact, emu::Order::kForward, emu::CopyTiming::kEager},
      {&kExact, emu::Order::kReverse, emu::CopyTiming::kLazy},
      {&kExact, emu::Order::kShuffled, emu::CopyTiming::kLazy},
      {&kPadded, emu::Order::kForward, emu::CopyTiming::kEager},
      {&kPadded, emu::Order::kShuffled, emu::CopyTiming::kLazy},
      {&kShifted, emu::Order::kReverse, emu::CopyTiming::kLazy},
  };
  for (auto shape : shapes) {
    const Layout* current = nullptr;
    std::unique_ptr<Problem> pr;
    std::vector<float> first;
    for (auto& run : runs) {
      if (run.layout != current) {
        current = run.layout;
        pr = std::make_unique<Problem>(shape, *current);
        first.clear();
      }
      const std::string what = symbol + " " + std::to_string(shape.m) + "x" +
                               std::to_string(shape.n) + "x" + std::to_string(shape.k) + " " +
                               current->name + " order " + std::to_string(int(run.order)) +
                               (run.timing == emu::CopyTiming::kLazy ? " lazy" : " eager");
      Outcome out = run_variant<V>(*pr, run.order, run.timing);
      ASSERT_EQ(out.error, "") << what;
      bool padding_untouched = false;
      const double err = relative_error(*pr, out.c, padding_untouched);
      EXPECT_LT(err, 1e-5) << what;
      EXPECT_TRUE(padding_untouched) << what << ": wrote into the padding of C";
      if (first.empty())
        first = out.c;
      else
        EXPECT_TRUE(bitwise_equal(first, out.c))
            << what << ": result depends on thread order or copy timing (a race)";
    }
  }
}

struct Case {
  std::string symbol;
  void (*check)(const std::string&);
};

std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> out;
#define OCCTUNE_CASE(...) \
  out.push_back({without_spaces(#__VA_ARGS__), &check_variant<__VA_ARGS__>});
    OCCTUNE_COARSENED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_REGBLOCKED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_PIPELINED_VARIANTS(OCCTUNE_CASE)
    OCCTUNE_SPLITK_VARIANTS(OCCTUNE_CASE)
#undef OCCTUNE_CASE
    return out;
  }();
  return all;
}

class EmulatedVariant : public ::testing::TestWithParam<std::size_t> {};

TEST_P(EmulatedVariant, MatchesReferenceWithoutRacesOrOverruns) {
  const Case& c = cases()[GetParam()];
  c.check(c.symbol);
}

std::string case_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string name = cases()[info.param].symbol;
  for (auto& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name;
}

INSTANTIATE_TEST_SUITE_P(TileFamilies, EmulatedVariant,
                         ::testing::Range(std::size_t(0), cases().size()), case_name);

// The emulated list is the registered list: a variant added to a family's list is emulated,
// and nothing is registered that the emulator does not run.
TEST(EmulatedVariants, CoverEveryRegisteredTileVariant) {
  std::set<std::string> emulated, registered;
  for (auto& c : cases()) emulated.insert(c.symbol);
  for (auto* family : {"coarsened", "regblocked", "pipelined", "splitk"})
    for (auto* v : variants_of(family)) registered.insert(v->symbol);
  EXPECT_EQ(emulated, registered);
  EXPECT_GE(registered.size(), 20u);
}

// The emulator itself catches what it claims to: a kernel that reads shared memory before the
// barrier that publishes it gives different results in different thread orders.
struct RacyKernel {
  static void run(float* out, unsigned char* smem) {
    float* s = reinterpret_cast<float*>(smem);
    const int t = int(threadIdx.x);
    s[t] = float(t);
    out[t] = s[(t + 1) % 32];  // missing __syncthreads() before this read
    __syncthreads();
  }
};

TEST(Emulator, DetectsARaceThroughThreadOrder) {
  std::vector<float> forward(32), reverse(32);
  emu::run_grid(
      dim3(1, 1, 1), 32, 128, [&](unsigned char* smem) { RacyKernel::run(forward.data(), smem); },
      emu::Order::kForward, emu::CopyTiming::kEager);
  emu::run_grid(
      dim3(1, 1, 1), 32, 128, [&](unsigned char* smem) { RacyKernel::run(reverse.data(), smem); },
      emu::Order::kReverse, emu::CopyTiming::kEager);
  EXPECT_FALSE(bitwise_equal(forward, reverse));
}

TEST(Emulator, DetectsBarrierDivergenceAndMisalignment) {
  auto divergent = [](unsigned char*) {
    if (threadIdx.x == 0) __syncthreads();
  };
  EXPECT_NE(emu::run_grid(dim3(1, 1, 1), 32, 16, divergent, emu::Order::kForward,
                          emu::CopyTiming::kEager),
            "");
  auto misaligned = [](unsigned char* smem) {
    float* s = reinterpret_cast<float*>(smem);
    tile::store4(s + 1, make_float4(0, 0, 0, 0));
  };
  EXPECT_NE(emu::run_grid(dim3(1, 1, 1), 32, 64, misaligned, emu::Order::kForward,
                          emu::CopyTiming::kEager),
            "");
}

// A copy read before its wait is caught when copies land lazily.
TEST(Emulator, LazyCopiesLandOnlyAtTheWait) {
  std::vector<float> src(4, 1.0f), seen(32, 0.0f);
  auto kernel = [&](unsigned char* smem) {
    float* s = reinterpret_cast<float*>(smem);
    const int t = int(threadIdx.x);
    if (t == 0) {
      tile::copy_async<16>(s, src.data(), 16);
      tile::copy_commit();
    }
    __syncthreads();
    seen[std::size_t(t)] = s[0];  // read without waiting: not landed yet
    __syncthreads();
    if (t == 0) tile::copy_wait<0>();
  };
  emu::run_grid(dim3(1, 1, 1), 32, 64, kernel, emu::Order::kForward, emu::CopyTiming::kLazy);
  EXPECT_TRUE(std::isnan(seen[5]));
}

}  // namespace
}  // namespace occtune
