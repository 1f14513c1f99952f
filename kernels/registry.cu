// The explicit registry: every kernel variant occtune can launch is registered from
// register_all(), by one call each: the textbook variants below, the tile-based families through
// their own file's register function (kernels/<family>.cu, which lists its instantiations).
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <string>

#include "kernels/launch.cuh"
#include "kernels/registry_extension.hpp"
#include "kernels/registry_internal.cuh"
#include "kernels/skinny.cuh"
#include "kernels/streamk.cuh"
#include "kernels/textbook_families.hpp"
#include "kernels/tiled.cuh"

namespace occtune::kernels {

namespace {

size_t tiled_dynamic_smem(int threads) { return TiledDynamic<0>::smem_bytes(threads); }

template <class Variant>
using AsIs = Variant;

// Registers a square-block variant W<Nn> under its spelling ("TiledDynamic<16>",
// "NT<TiledDynamic<16>>"), which is how the build-time manifest names its gemm_entry.
#define OCCTUNE_ADD_SQUARE(r, Nn, family, param, width, smem)                                 \
  r.add<W<Nn>>(layout_symbol(LayoutOf<W<Nn>>::value, #Nn), family, {{param, width}}, width, \
               width, width, width, smem)

// The variants of the families registered through the registration API, expanded by the code
// that expands user families (kernels/registry_extension.hpp), in `layout`: the registry keeps
// their rows where its own table had them, so the order of variants() is unchanged.
void add_api_variants(Registry& r, const KernelFamily& family, const ExpandedFamily& expanded,
                      Layout layout) {
  for (std::size_t i = 0; i < expanded.variants.size(); ++i) {
    Entry e;
    e.info = expanded.variants[i];
    if (e.info.layout != layout) continue;
    // The GEMM engine reads a grid as tiles (grid_for): a textbook block of w x w threads
    // computes a w x w tile of C, as the family's grid says.
    e.info.tile_m = e.info.block_y;
    e.info.tile_n = e.info.block_x;
    e.function = family.configs[std::size_t(expanded.config_of[i])].function;
    e.launch = textbook_gemm_launch(e.function);
    r.entries.push_back(std::move(e));
  }
}

struct ApiFamily {
  KernelFamily family;
  ExpandedFamily expanded;
};

// The textbook families in the layout W names (AsIs: nn). Every tile width exists in every
// layout, so the textbook occupancy walk finds its tiles whatever the layout.
template <template <class> class W>
void register_textbook(Registry& r, const std::vector<ApiFamily>& api) {
  OCCTUNE_ADD_SQUARE(r, TiledDynamic<1>, "tiled_dynamic", "tile", 1, tiled_dynamic_smem(1));
  OCCTUNE_ADD_SQUARE(r, TiledDynamic<2>, "tiled_dynamic", "tile", 2, tiled_dynamic_smem(4));
  OCCTUNE_ADD_SQUARE(r, TiledDynamic<4>, "tiled_dynamic", "tile", 4, tiled_dynamic_smem(16));
  OCCTUNE_ADD_SQUARE(r, TiledDynamic<8>, "tiled_dynamic", "tile", 8, tiled_dynamic_smem(64));
  OCCTUNE_ADD_SQUARE(r, TiledDynamic<16>, "tiled_dynamic", "tile", 16, tiled_dynamic_smem(256));
  OCCTUNE_ADD_SQUARE(r, TiledDynamic<32>, "tiled_dynamic", "tile", 32, tiled_dynamic_smem(1024));
  constexpr Layout layout = LayoutOf<W<TiledDynamic<1>>>::value;
  for (const ApiFamily& a : api) add_api_variants(r, a.family, a.expanded, layout);
}

void register_all(Registry& r) {
  r.families.push_back({"tiled_dynamic",
                        "textbook tiled GEMM, dynamic shared memory, compile-time tile width "
                        "chosen from occupancy-API candidates",
                        false, "TiledDynamic<0>", &tiled_dynamic_smem, 4});
  // Issue #13: the baselines register through the registration API (kernels/textbook_families).
  std::vector<ApiFamily> api;
  for (KernelFamily f : {tiled_static_family(), naive_family()}) {
    ExpandedFamily expanded = expand_builtin_family(f);
    r.families.push_back(expanded.info);
    api.push_back({std::move(f), std::move(expanded)});
  }

  // The run-time-tile kernel the textbook method asks the Occupancy API about. It is not a
  // candidate itself (docs/architecture.md): the tile it suggests is launched specialised. Its
  // nn instantiation answers for every layout (same shared memory, same thread count).
  r.add<TiledDynamic<0>>("TiledDynamic<0>", "tiled_dynamic_generation", {{"tile", 0}}, 0, 0, 0,
                         0, 0);
  register_textbook<AsIs>(r, api);
  register_textbook<NT>(r, api);
  register_textbook<TN>(r, api);
  register_textbook<TT>(r, api);

  // The issue #3 families, each registering its own instantiations (kernels/<family>.cu).
  register_coarsened(r);
  register_regblocked(r);
  register_pipelined(r);
  register_splitk(r);
  register_skinny(r);          // issue #18: small M or N (kernels/skinny.cuh)
  register_streamk(r);         // issue #18: stream-K (kernels/streamk.cuh)
  register_repacked(r);        // issue #18: misaligned operands copied aligned (kernels/repacked.cuh)
  register_planted_faults(r);  // test only: empty unless OCCTUNE_TEST_KERNELS=1
  register_slowed(r);          // test only: empty unless OCCTUNE_TEST_KERNELS=1
}

const Registry& registry() {
  static const Registry r = [] {
    Registry built;
    register_all(built);
    // User kernel families (occtune/kernel.hpp): metadata only; their functions and launches
    // belong to the user's family, never to launch_variant.
    std::vector<VariantInfo> extra;
    apply_registry_extension(built.families, extra);
    for (auto& v : extra) built.entries.push_back({std::move(v), nullptr, nullptr});
    for (auto& e : built.entries) built.infos.push_back(e.info);
    return built;
  }();
  return r;
}

const Entry* find_entry(std::string_view symbol) {
  for (auto& e : registry().entries)
    if (e.info.symbol == symbol) return &e;
  return nullptr;
}

}  // namespace

std::string layout_symbol(Layout layout, std::string nn_symbol) {
  if (layout == Layout::kNN) return nn_symbol;
  std::string prefix = layout_name(layout);
  for (auto& ch : prefix) ch = char(ch - 'a' + 'A');
  return prefix + "<" + nn_symbol + ">";
}

int VariantInfo::param(std::string_view name, int fallback) const {
  for (auto& p : params)
    if (p.name == name) return p.value;
  return fallback;
}

std::string VariantInfo::label() const {
  std::string out;
  for (auto& p : params) {
    if (!out.empty()) out += ",";
    out += p.name + "=" + std::to_string(p.value);
  }
  return out;
}

const std::vector<FamilyInfo>& families() { return registry().families; }
const std::vector<VariantInfo>& variants() { return registry().infos; }

const FamilyInfo* find_family(std::string_view name) {
  for (auto& f : registry().families)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<const VariantInfo*> variants_of(std::string_view family, Layout layout) {
  std::vector<const VariantInfo*> out;
  for (auto& v : registry().infos)
    if (v.family == family && v.layout == layout) out.push_back(&v);
  return out;
}

std::vector<const VariantInfo*> all_variants_of(std::string_view family) {
  std::vector<const VariantInfo*> out;
  for (auto& v : registry().infos)
    if (v.family == family) out.push_back(&v);
  return out;
}

const VariantInfo* find_tile_variant(std::string_view family, int tile, Layout layout) {
  for (auto& v : registry().infos)
    if (v.family == family && v.layout == layout && v.param("tile") == tile) return &v;
  return nullptr;
}

std::string family_names() {
  std::string out;
  for (auto& f : registry().families) out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

const void* kernel_function(std::string_view symbol) {
  auto* e = find_entry(symbol);
  return e ? e->function : nullptr;
}

dim3 grid_for(const VariantInfo& v, int m, int n) {
  return dim3(unsigned((n + v.tile_n - 1) / v.tile_n), unsigned((m + v.tile_m - 1) / v.tile_m),
              unsigned(v.grid_z));
}

namespace {

// The entry of an element of variants() by its position (infos and entries are parallel).
const Entry* entry_of(const VariantInfo& v) {
  const Registry& r = registry();
  if (&v >= r.infos.data() && &v < r.infos.data() + r.infos.size())
    return &r.entries[std::size_t(&v - r.infos.data())];
  return find_entry(v.symbol);
}

}  // namespace

cudaError_t prepare_variant(const VariantInfo& v) {
  const Entry* e = entry_of(v);
  if (!e || !e->launch) return cudaErrorInvalidDeviceFunction;
  if (v.dynamic_smem <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(e->function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              int(v.dynamic_smem));
}

cudaError_t launch_prepared(const VariantInfo& v, const GemmArgs& args, cudaStream_t stream) {
  const Entry* e = entry_of(v);
  if (!e || !e->launch) return cudaErrorInvalidDeviceFunction;
  return e->launch(args, grid_for(v, args.m, args.n), dim3(unsigned(v.block_x), unsigned(v.block_y)),
                   v.dynamic_smem, stream);
}

cudaError_t launch_variant(const VariantInfo& v, const GemmArgs& args, cudaStream_t stream) {
  auto* e = find_entry(v.symbol);
  if (!e || !e->launch) return cudaErrorInvalidDeviceFunction;
  if (v.dynamic_smem > 48 * 1024) {
    auto err = cudaFuncSetAttribute(e->function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(v.dynamic_smem));
    if (err != cudaSuccess) return err;
  }
  return e->launch(args, grid_for(v, args.m, args.n), dim3(unsigned(v.block_x), unsigned(v.block_y)),
                   v.dynamic_smem, stream);
}

}  // namespace occtune::kernels
