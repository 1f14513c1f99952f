// The explicit registry of GEMM kernel variants (host view: no CUDA types). Every variant is a
// compile-time instantiation registered by name in registry.cu; front ends, the planner and the
// store see only this metadata. The launch side lives in launch.cuh.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/layout.hpp"

namespace occtune::kernels {

struct Param {
  std::string name;
  int value = 0;
};

struct VariantInfo {
  std::string family;          // "tiled_dynamic", "tiled_static", "naive", ...
  std::string symbol;          // manifest key, the trait type as written: "TiledDynamic<16>"
  std::vector<Param> params;   // the tunable parameters, e.g. {{"tile", 16}}
  int block_x = 0;             // thread-block shape
  int block_y = 0;
  int tile_m = 0;              // rows of C computed by one block
  int tile_n = 0;              // columns of C computed by one block
  std::size_t dynamic_smem = 0;  // bytes of dynamic shared memory at launch
  int grid_z = 1;                // blocks along z (split-K: one per K slice)
  // Scratch memory a launch needs for shape m x n x k (GemmArgs::workspace); nullptr: none.
  std::size_t (*workspace_bytes)(int m, int n, int k) = nullptr;
  // The operand layout the variant computes (autotuner/core/layout.hpp); a variant has one.
  Layout layout = Layout::kNN;
  // Where the variant can run at all (issue #18; the rule: kernels/applicability.hpp). 0: on
  // every compiled architecture; else the one compute capability it has code for (90: code
  // built for sm_90a runs on compute capability 9.0 only, not on later ones).
  int required_compute_capability = 0;
  // A's and B's leading dimensions (elements) must be multiples of this and their addresses
  // aligned to this many floats; 1: any. C is never constrained: the variants that set this
  // store to any ldc and C address (kernels/tma.cuh).
  int operand_alignment = 1;
  std::string requirement;  // what needs the rules above, for their messages: "TMA"
  // The family whose kernel a launch runs when it is not this variant's own: a repacked
  // variant's inner variant's family (kernels/repacked.cu). Empty: the variant's own family.
  std::string kernel_family;

  int threads() const { return block_x * block_y; }
  std::size_t workspace(int m, int n, int k) const {
    return workspace_bytes ? workspace_bytes(m, n, k) : 0;
  }
  int param(std::string_view name, int fallback = 0) const;
  std::string label() const;   // "tile=16"
};

using SmemForThreads = std::function<std::size_t(int threads)>;

struct FamilyInfo {
  std::string name;
  std::string description;
  bool baseline = false;       // a reference point in the table, not the kernel being tuned
  // Textbook occupancy generation: the run-time-tile entry the occupancy API is asked about and
  // the dynamic shared memory it needs per block size. Empty/nullptr: the family's candidates
  // are its registered variants, each annotated with its occupancy.
  std::string generation_symbol;
  SmemForThreads smem_for_threads;
  int default_min_tile = 1;
};

const std::vector<FamilyInfo>& families();
const std::vector<VariantInfo>& variants();
const FamilyInfo* find_family(std::string_view name);
// The variants of `family` that compute `layout`, in registration order.
std::vector<const VariantInfo*> variants_of(std::string_view family,
                                            Layout layout = Layout::kNN);
// Every variant of `family`, whatever its layout.
std::vector<const VariantInfo*> all_variants_of(std::string_view family);
// The variant of a square-tile family with this tile width and layout, or nullptr.
const VariantInfo* find_tile_variant(std::string_view family, int tile,
                                     Layout layout = Layout::kNN);
std::string family_names();  // "tiled_dynamic, tiled_static, naive"
// The symbol of a variant in `layout` given its nn spelling: "NT<RegBlocked<...>>" for
// NT<RegBlocked<...>> (kernels/gemm_entry.cuh), the nn spelling itself for nn.
std::string layout_symbol(Layout layout, std::string nn_symbol);

}  // namespace occtune::kernels
