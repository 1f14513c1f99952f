// The explicit registry: every kernel variant occtune can launch, from the built-in families
// registered through the registration API (kernels/gemm_family.cuh, one file per family),
// validated and expanded by the code that validates and expands user families, plus the user
// families' metadata (kernels/registry_extension.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#include "kernels/builtin_families.hpp"
#include "kernels/gemm_family.cuh"
#include "kernels/launch.cuh"
#include "kernels/registry_extension.hpp"

namespace occtune::kernels {

namespace {

// A built-in family with its expansion: the variants of its configurations, in order.
struct Expanded {
  BuiltinFamily builtin;
  ExpandedFamily expanded;
};

Expanded expand(Registry& r, BuiltinFamily b) {
  ExpandedFamily e = expand_builtin_family(b.family);
  r.families.push_back(e.info);
  return {std::move(b), std::move(e)};
}

// The expanded variants (of one layout when `only` is set), each with the GEMM engine's view of
// its configuration: the C tile and grid z it reads the grid from (grid_for), the workspace and
// the launch.
void add_variants(Registry& r, const Expanded& f, std::optional<Layout> only = {}) {
  for (std::size_t i = 0; i < f.expanded.variants.size(); ++i) {
    Entry e;
    e.info = f.expanded.variants[i];
    if (only && e.info.layout != *only) continue;
    const GemmConfig& g = f.builtin.gemm[std::size_t(f.expanded.config_of[i])];
    e.info.tile_m = g.tile_m;
    e.info.tile_n = g.tile_n;
    e.info.grid_z = g.grid_z;
    e.info.workspace_bytes = g.workspace_bytes;
    e.info.required_compute_capability = g.required_compute_capability;
    e.info.operand_alignment = g.operand_alignment;
    e.info.requirement = g.requirement;
    e.info.kernel_family = g.kernel_family;
    e.function = g.config.function;
    e.launch = g.launch;
    e.twin_functions = g.twin_functions;
    r.entries.push_back(std::move(e));
  }
}

void add_family(Registry& r, std::vector<KernelFamily>& api, BuiltinFamily b) {
  const Expanded f = expand(r, std::move(b));
  add_variants(r, f);
  api.push_back(f.builtin.family);
}

// The kernel a walking family asks the occupancy API about: not a candidate itself
// (docs/architecture.md), but an entry, so that its function and registers are found by symbol.
void add_walk_entry(Registry& r, const BuiltinFamily& b) {
  const KernelConfig& walk = b.family.walk;
  Entry e;
  e.info.family = b.family.name + "_generation";
  e.info.symbol = walk.symbol;
  for (const auto& p : walk.params) e.info.params.push_back({p.name, int(p.value)});
  e.function = walk.function;
  e.launch = b.walk_launch;
  r.entries.push_back(std::move(e));
}

void register_all(Registry& r, std::vector<KernelFamily>& api) {
  // The textbook families first, the walk's kernel before their variants, which are listed
  // layout by layout as the table of old had them.
  std::vector<Expanded> textbook;
  for (BuiltinFamily b : {tiled_dynamic_builtin(), tiled_static_builtin(), naive_builtin()})
    textbook.push_back(expand(r, std::move(b)));
  add_walk_entry(r, textbook.front().builtin);
  for (const Layout layout : kAllLayouts)
    for (const Expanded& f : textbook) add_variants(r, f, layout);
  for (const Expanded& f : textbook) api.push_back(f.builtin.family);

  // The tile-based families (issues #3 and #18), each from its own file (kernels/<family>.cu).
  add_family(r, api, coarsened_builtin());
  add_family(r, api, regblocked_builtin());
  add_family(r, api, pipelined_builtin());
  add_family(r, api, splitk_builtin());
  add_family(r, api, skinny_builtin());
  add_family(r, api, streamk_builtin());
  // Hopper's TMA pipeline (issue #18): sm_90 only, nn only, K and N multiples of 4.
  add_family(r, api, tma_builtin());
  // Misaligned operands copied aligned (issue #18), wrapping variants registered above.
  add_family(r, api, repacked_builtin(r.entries));
  // Test only: registered when OCCTUNE_TEST_KERNELS=1.
  if (test_kernels_enabled()) {
    add_family(r, api, planted_faults_builtin());
    for (BuiltinFamily& b : slowed_builtins()) add_family(r, api, std::move(b));
  }
}

struct Built {
  Registry registry;
  std::vector<KernelFamily> api;  // the built-in families as registered
};

const Built& built() {
  static const Built b = [] {
    Built out;
    register_all(out.registry, out.api);
    // User kernel families (occtune/kernel.hpp): metadata only; their functions and launches
    // belong to the user's family, never to launch_variant.
    std::vector<VariantInfo> extra;
    apply_registry_extension(out.registry.families, extra);
    for (auto& v : extra) out.registry.entries.push_back({std::move(v), nullptr, nullptr, {}});
    for (auto& e : out.registry.entries) out.registry.infos.push_back(e.info);
    return out;
  }();
  return b;
}

const Registry& registry() { return built().registry; }

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

const KernelFamily* builtin_family(std::string_view name) {
  for (const KernelFamily& f : built().api)
    if (f.name == name) return &f;
  return nullptr;
}

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

int opt_in_dynamic_smem(const void* function, int bytes) {
  // The twins by kernel, built once (entries of one configuration share their function).
  static const std::unordered_map<const void*, std::vector<const void*>> twins = [] {
    std::unordered_map<const void*, std::vector<const void*>> out;
    for (const Entry& e : registry().entries)
      if (!e.twin_functions.empty()) out.emplace(e.function, e.twin_functions);
    return out;
  }();
  cudaError_t err = cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         bytes);
  if (const auto twin = twins.find(function); twin != twins.end())
    for (const void* f : twin->second)
      if (err == cudaSuccess)
        err = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  return int(err);
}

cudaError_t prepare_variant(const VariantInfo& v) {
  const Entry* e = entry_of(v);
  if (!e || !e->launch) return cudaErrorInvalidDeviceFunction;
  if (v.dynamic_smem <= 48 * 1024) return cudaSuccess;
  return cudaError_t(opt_in_dynamic_smem(e->function, int(v.dynamic_smem)));
}

cudaError_t launch_prepared(const VariantInfo& v, const GemmArgs& args, cudaStream_t stream) {
  const Entry* e = entry_of(v);
  if (!e || !e->launch) return cudaErrorInvalidDeviceFunction;
  return e->launch(args, grid_for(v, args.m, args.n), dim3(unsigned(v.block_x), unsigned(v.block_y)),
                   v.dynamic_smem, stream);
}

cudaError_t launch_variant(const VariantInfo& v, const GemmArgs& args, cudaStream_t stream) {
  if (const cudaError_t err = prepare_variant(v); err != cudaSuccess) return err;
  return launch_prepared(v, args, stream);
}

}  // namespace occtune::kernels
