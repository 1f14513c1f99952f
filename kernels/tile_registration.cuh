// The configurations of tile-based variants (kernels/gemm_family.cuh): their parameters,
// threads, tile, shared memory, grid z and workspace are derived from the trait's TileParams
// through the family's space model (kernel_space.hpp), so the registry and the resource model
// cannot disagree.
#pragma once

#include <string>
#include <vector>

#include "kernels/gemm_family.cuh"
#include "kernels/kernel_space.hpp"

namespace occtune::kernels {

template <class Variant>
std::size_t tile_workspace_for(int m, int n, int /*k*/) {
  return tile_workspace_bytes(Variant::kParams, m, n);
}

// The tile's parameters under the names of `family`'s space ("bm", "bn", ...).
inline std::vector<occtune::Param> tile_params(const std::string& family, const TileParams& p) {
  std::vector<occtune::Param> out;
  if (const FamilySpace* space = find_tile_family_space(family))
    for (auto& [name, value] : space->named_params(p)) out.push_back({name, value});
  return out;
}

// `spelled` is the trait type as written in the family's variant list.
template <class Variant>
GemmConfig tile_config(std::string spelled, const std::string& family,
                       LaunchFn launch = &launch_entry<Variant>) {
  GemmConfig g = gemm_config<Variant>(std::move(spelled), tile_params(family, Variant::kParams),
                                      {Variant::kMaxThreads, 1}, launch);
  g.tile_m = Variant::kParams.bm;
  g.tile_n = Variant::kParams.bn;
  g.dynamic_smem = Variant::kSmemBytes;
  g.grid_z = Variant::kParams.splits;
  if (Variant::kParams.splits > 1) g.workspace_bytes = &tile_workspace_for<Variant>;
  return g;
}

// The nt, tn and tt instantiations of an nn variant `Nn` (spelled as written).
template <class Nn>
void add_transposed_tile_configs(std::vector<GemmConfig>& out, const std::string& spelled,
                                 const std::string& family) {
  out.push_back(tile_config<NT<Nn>>(spelled, family));
  out.push_back(tile_config<TN<Nn>>(spelled, family));
  out.push_back(tile_config<TT<Nn>>(spelled, family));
}

}  // namespace occtune::kernels
