// The search space of the tile-based GEMM families (issue #3) as data: the parameters, their
// constraints and the resource model (threads per block, dynamic shared memory, workspace).
// Plain constexpr C++17, shared by the kernels (compile-time checks), the registry (launch
// metadata) and host code (planner, tests); no CUDA types.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace occtune::kernels {

enum class TileFamily { kCoarsened, kRegBlocked, kPipelined, kSplitK };

// One point of the space. Unused parameters of a family keep their defaults (Coarsened: tn = 1,
// wm = bm, wn = bn, stages = 1; every family but split-K: splits = 1).
struct TileParams {
  int bm = 0, bn = 0;  // rows x columns of C computed by one block
  int bk = 0;          // depth of a K slab staged in shared memory
  int tm = 0, tn = 0;  // rows x columns of C computed by one thread
  int wm = 0, wn = 0;  // C tile of one warp; wm == bm && wn == bn means no warp tiling
  int stages = 1;      // shared-memory slabs in flight
  int splits = 1;      // K slices, each computed by its own block (split-K)
  int areg = 0;        // pipelined A path: 0 = 4-byte cp.async per element, 1 = float4 loads
                       // through registers and transposing stores (B is cp.async either way)
  int order = 0;       // FMA loop over the thread tile: 0 = rows outside, 1 = columns outside
                       // (same arithmetic; nvcc allocates registers differently, which moves
                       // the issue rate by up to 15%: docs/PERFORMANCE.md)
  int fbuf = 1;        // register buffers of the A and B fragments (register-blocked and,
                       // since wave 8, the cp.async families). 1 = the fragments of k are read
                       // just before its FMAs; 2 = those of k + 1 are read while k is computed,
                       // and the slab's barrier comes before its last k, so the next slab's
                       // first fragments load during it
  int ldk = 0;         // register-blocked with fbuf 2: the k of a slab before whose FMAs the
                       // next slab's global loads are issued (0..bk-1; where they sit moves nvcc's
                       // schedule: 4-9% at 4096^3 on the H100, docs/PERFORMANCE.md)
};

// Padding of the transposed A slab (floats per K row = bm + 4): makes both the transposing
// stores and the float4 fragment reads conflict-free (docs/PERFORMANCE.md).
inline constexpr int kPadA = 4;
// Block rows grouped together in the launch order so a wave shares slabs of A and B in L2.
inline constexpr int kSwizzleRows = 8;

constexpr bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

constexpr int tile_threads(TileFamily f, const TileParams& p) {
  if (p.tm <= 0 || p.tn <= 0) return 0;
  return f == TileFamily::kCoarsened ? (p.bm / p.tm) * p.bn : (p.bm / p.tm) * (p.bn / p.tn);
}

constexpr std::size_t tile_smem_bytes(TileFamily f, const TileParams& p) {
  if (f == TileFamily::kCoarsened) return std::size_t(p.bm * p.bk + p.bk * p.bn) * sizeof(float);
  return std::size_t(p.stages) * std::size_t(p.bk * (p.bm + kPadA) + p.bk * p.bn) * sizeof(float);
}

// Split-K partial results: one dense M x N slice per split.
constexpr std::size_t tile_workspace_bytes(const TileParams& p, long long m, long long n) {
  return p.splits > 1 ? std::size_t(p.splits) * std::size_t(m) * std::size_t(n) * sizeof(float) : 0;
}

// Register budget the kernel is compiled for (__launch_bounds__ min blocks): 128 per thread
// keeps two 256-thread blocks of 8x8 per thread resident; larger per-thread tiles need up to
// 255 and accept one block. The cp.async pipeline with double-buffered fragments holds a second
// set of fragments across the slab's barrier: 168 (three 128-thread blocks) kept its 8x8 tile
// free of spills and ran 3-7% faster than 128 on the H100 (docs/PERFORMANCE.md, "fbuf in the
// cp.async pipeline"). Every supported architecture has 64K registers per SM.
constexpr int tile_min_blocks_per_sm(TileFamily f, const TileParams& p) {
  const int threads = tile_threads(f, p);
  if (threads <= 0) return 1;
  const bool async_fbuf = (f == TileFamily::kPipelined || f == TileFamily::kSplitK) && p.fbuf == 2;
  const int budget = (f != TileFamily::kCoarsened && p.tm * p.tn > 64) ? 255
                     : async_fbuf                                       ? 168
                                                                        : 128;
  const int blocks = 65536 / (threads * budget);
  return blocks < 1 ? 1 : blocks;
}

// Why `p` is not a member of family `f`, or nullptr when it is. These are the rules the kernel
// code relies on (exact thread mappings, aligned fragments, conflict-free layouts); device
// limits are not rules of the space, they prune per device (candidate_generation).
constexpr const char* tile_violation(TileFamily f, const TileParams& p) {
  if (p.bm <= 0 || p.bn <= 0 || p.bk <= 0 || p.tm <= 0 || p.tn <= 0)
    return "every tile size must be positive";
  if (p.bm % p.tm != 0) return "bm must be a multiple of tm";
  if (p.bn % p.tn != 0) return "bn must be a multiple of tn";
  const int threads = tile_threads(f, p);
  if (threads % 32 != 0) return "threads per block must be a multiple of the warp size";
  if (threads > 1024) return "threads per block exceed 1024, the limit of every CUDA device";
  if (p.order != 0 && p.order != 1) return "order is 0 (rows outside) or 1 (columns outside)";
  if (f == TileFamily::kCoarsened) {
    if (p.order != 0) return "a coarsened thread has one column: its FMA loop has one order";
    if (p.tn != 1) return "a coarsened thread computes one column (tn = 1)";
    if (p.tm < 2 || !is_pow2(p.tm)) return "coarsening (tm) must be a power of two >= 2";
    if (p.bn < 32) return "bn must cover a warp (>= 32) so A reads broadcast";
    if (p.bk % 4 != 0) return "bk must be a multiple of 4 (float4 reads of A)";
    if ((p.bm * p.bk) % threads != 0 || (p.bk * p.bn) % threads != 0)
      return "each slab must split evenly over the threads";
    if (p.wm != p.bm || p.wn != p.bn || p.stages != 1 || p.splits != 1 || p.areg != 0 ||
        p.fbuf != 1 || p.ldk != 0)
      return "coarsened kernels have no warp tiling, one stage, no split, no areg, fbuf or ldk";
    return nullptr;
  }
  if (p.tm != 1 && p.tm != 2 && p.tm % 4 != 0) return "tm must be 1, 2 or a multiple of 4";
  if (p.tn != 1 && p.tn != 2 && p.tn % 4 != 0) return "tn must be 1, 2 or a multiple of 4";
  // Powers of two make each thread's loader offsets compile-time constants (tile_core.cuh).
  if (!is_pow2(p.bm) || !is_pow2(p.bn) || !is_pow2(p.bk) || !is_pow2(threads))
    return "bm, bn, bk and the thread count must be powers of two";
  if (p.bm < 16 || p.bn < 16) return "bm and bn must be at least 16";
  if (p.bk < 8) return "bk must be at least 8 (loader mapping of A)";
  if (p.wm <= 0 || p.wn <= 0 || p.bm % p.wm != 0 || p.bn % p.wn != 0)
    return "the warp tile must divide the block tile";
  if (p.wm % p.tm != 0 || p.wn % p.tn != 0) return "the thread tile must divide the warp tile";
  const bool plain = p.wm == p.bm && p.wn == p.bn;
  if (!plain && (p.wm / p.tm) * (p.wn / p.tn) != 32)
    return "a warp tile must hold exactly 32 thread tiles";
  const int chunks_a = p.bm * p.bk / 4, chunks_b = p.bk * p.bn / 4;
  if (chunks_a % 32 != 0 || chunks_b % 32 != 0)
    return "each slab must have a multiple of 32 float4 chunks";
  if ((chunks_a > threads && chunks_a % threads != 0) ||
      (chunks_b > threads && chunks_b % threads != 0))
    return "float4 chunks of a slab must split evenly over the threads";
  if (f == TileFamily::kRegBlocked && p.stages != 2)
    return "the register-staged kernel double-buffers shared memory (stages = 2)";
  if ((f == TileFamily::kPipelined || f == TileFamily::kSplitK) && (p.stages < 2 || p.stages > 6))
    return "the cp.async pipeline needs 2 to 6 stages";
  if (f == TileFamily::kSplitK ? (p.splits < 2 || p.splits > 128) : p.splits != 1)
    return "split-K needs 2..128 splits; other families have 1";
  if (p.areg != 0 && p.areg != 1) return "areg is 0 or 1";
  if (f == TileFamily::kRegBlocked && p.areg != 0)
    return "areg is a choice of the cp.async families only";
  if (p.fbuf != 1 && p.fbuf != 2) return "fbuf (fragment buffers) is 1 or 2";
  if (p.ldk < 0 || p.ldk >= p.bk)
    return "ldk (the k where the next slab's loads go) must be in [0, bk)";
  if (p.fbuf == 1 && p.ldk != 0)
    return "ldk places the loads in the fbuf 2 loop; with fbuf 1 they go before the slab (ldk 0)";
  if (f != TileFamily::kRegBlocked && p.ldk != 0)
    return "ldk is a choice of the register-staged kernel only (0 elsewhere)";
  return nullptr;
}

constexpr bool tile_valid(TileFamily f, const TileParams& p) {
  return tile_violation(f, p) == nullptr;
}

// A parameter and the values the family's space spans along it.
struct ParamAxis {
  std::string name;
  std::vector<int> values;
  // An axis added after the family's variants were first stored leaves its old value out of
  // the labels ("bm=...,order=0" stays the label of the same variant in every store); -1: the
  // axis is always in the label.
  int unlabelled = -1;
};

// The space of one family as data: its axes, constraints and resource model.
struct FamilySpace {
  std::string family;  // registry family name: "coarsened", "regblocked", ...
  TileFamily kind;
  std::vector<ParamAxis> axes;  // names are TileParams members: bm, bn, bk, tm, tn, ...

  std::string violation(const TileParams& p) const;  // "" when p is in the space
  int threads(const TileParams& p) const { return tile_threads(kind, p); }
  std::size_t smem_bytes(const TileParams& p) const { return tile_smem_bytes(kind, p); }
  // Every point of the cartesian product of the axes, constrained or not.
  std::vector<TileParams> enumerate() const;
  // The parameters a variant of this family is labelled with ("bm=128,bn=128,...").
  std::vector<std::pair<std::string, int>> named_params(const TileParams& p) const;
  // The inverse: the point labelled `named`, with the family's defaults for what it does not
  // name. Throws std::invalid_argument for a name that is no TileParams member.
  TileParams from_named(const std::vector<std::pair<std::string, int>>& named) const;
};

const std::vector<FamilySpace>& tile_family_spaces();
const FamilySpace* find_tile_family_space(std::string_view family);
// The value of the TileParams member called `name` (-1 if there is none).
int tile_param(const TileParams& p, std::string_view name);

}  // namespace occtune::kernels
