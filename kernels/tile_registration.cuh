// Registration of tile-based variants: their metadata (parameters, threads, tile, shared memory,
// grid z, workspace) is derived from the trait's TileParams through the family's space model
// (kernel_space.hpp), so the registry and the resource model cannot disagree.
#pragma once

#include <algorithm>
#include <string>

#include "kernels/kernel_space.hpp"
#include "kernels/registry_internal.cuh"

namespace occtune::kernels {

template <class Variant>
std::size_t tile_workspace_for(int m, int n, int /*k*/) {
  return tile_workspace_bytes(Variant::kParams, m, n);
}

// `spelled` is the trait type as written in the family's variant list; spaces are dropped so
// the symbol is the manifest's (demangled, namespace-free, space-free) name.
template <class Variant>
void add_tile_variant(Registry& r, std::string spelled, const std::string& family,
                      LaunchFn launch = &launch_entry<Variant>) {
  spelled.erase(std::remove(spelled.begin(), spelled.end(), ' '), spelled.end());
  spelled = layout_symbol(Variant::kLayout, std::move(spelled));
  const FamilySpace* space = find_tile_family_space(family);
  VariantInfo info;
  info.family = family;
  info.symbol = std::move(spelled);
  if (space)
    for (auto& [name, value] : space->named_params(Variant::kParams))
      info.params.push_back({name, value});
  info.block_x = Variant::kMaxThreads;
  info.block_y = 1;
  info.tile_m = Variant::kParams.bm;
  info.tile_n = Variant::kParams.bn;
  info.dynamic_smem = Variant::kSmemBytes;
  info.grid_z = Variant::kParams.splits;
  if (Variant::kParams.splits > 1) info.workspace_bytes = &tile_workspace_for<Variant>;
  r.add<Variant>(std::move(info), launch);
}

// The nt, tn and tt instantiations of an nn variant `Nn` (spelled as written).
template <class Nn>
void add_transposed_tile_variants(Registry& r, const std::string& spelled,
                                  const std::string& family) {
  add_tile_variant<NT<Nn>>(r, spelled, family);
  add_tile_variant<TN<Nn>>(r, spelled, family);
  add_tile_variant<TT<Nn>>(r, spelled, family);
}

}  // namespace occtune::kernels
