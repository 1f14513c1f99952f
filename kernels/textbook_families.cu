// The textbook GEMM families, tiled_dynamic (walked by the occupancy API), tiled_static and
// naive (baselines), as families of the registration API (kernels/gemm_family.cuh): one
// configuration per instantiation of kernels/tiled.cuh and layout, specialised to its block.
#include "kernels/textbook_families.hpp"

#include <string>
#include <vector>

#include "kernels/gemm_family.cuh"
#include "kernels/tiled.cuh"

namespace occtune::kernels {
namespace {

template <class Variant>
using AsIs = Variant;

// A textbook block of w x w threads computes a w x w tile of C (one output per thread).
template <class Variant>
GemmConfig square(const char* nn_symbol, int w, std::vector<occtune::Param> params = {}) {
  GemmConfig g = gemm_config<Variant>(nn_symbol, std::move(params), {w, w});
  g.tile_m = g.tile_n = w;
  return g;
}

// tiled_dynamic's shared memory: an A and a B tile of the block's size.
std::size_t tiled_dynamic_smem(Block b) { return TiledDynamic<0>::smem_bytes(b.threads()); }

// One layout's instantiations (W: AsIs for nn, NT, TN or TT), in the registry's order of old.
template <template <class> class W>
void add_layout(std::vector<GemmConfig>& dynamics, std::vector<GemmConfig>& statics,
                std::vector<GemmConfig>& naives) {
  // The tile of tiled_dynamic and tiled_static is their square block, a parameter the
  // expansion adds ("tile"); naive's block is its parameter "block".
  for (GemmConfig g : {square<W<TiledDynamic<1>>>("TiledDynamic<1>", 1),
                       square<W<TiledDynamic<2>>>("TiledDynamic<2>", 2),
                       square<W<TiledDynamic<4>>>("TiledDynamic<4>", 4),
                       square<W<TiledDynamic<8>>>("TiledDynamic<8>", 8),
                       square<W<TiledDynamic<16>>>("TiledDynamic<16>", 16),
                       square<W<TiledDynamic<32>>>("TiledDynamic<32>", 32)}) {
    g.dynamic_smem = tiled_dynamic_smem(g.config.block);
    dynamics.push_back(std::move(g));
  }
  statics.push_back(square<W<TiledStatic<8>>>("TiledStatic<8>", 8));
  statics.push_back(square<W<TiledStatic<16>>>("TiledStatic<16>", 16));
  statics.push_back(square<W<TiledStatic<32>>>("TiledStatic<32>", 32));
  naives.push_back(square<W<Naive<8>>>("Naive<8>", 8, {{"block", 8}}));
  naives.push_back(square<W<Naive<16>>>("Naive<16>", 16, {{"block", 16}}));
  naives.push_back(square<W<Naive<32>>>("Naive<32>", 32, {{"block", 32}}));
}

struct Textbook {
  std::vector<GemmConfig> dynamics, statics, naives;
};
Textbook textbook() {
  Textbook t;
  add_layout<AsIs>(t.dynamics, t.statics, t.naives);
  add_layout<NT>(t.dynamics, t.statics, t.naives);
  add_layout<TN>(t.dynamics, t.statics, t.naives);
  add_layout<TT>(t.dynamics, t.statics, t.naives);
  return t;
}

}  // namespace

BuiltinFamily tiled_dynamic_builtin() {
  BuiltinFamily b = gemm_family("tiled_dynamic",
                                "textbook tiled GEMM, dynamic shared memory, compile-time tile "
                                "width chosen from occupancy-API candidates",
                                BlockRule::kSquare, textbook().dynamics);
  // The occupancy API is asked about the run-time-tile kernel (its nn instantiation answers for
  // every layout: same shared memory, same thread count); the tile it suggests is launched
  // specialised. Its shared memory is the block's, for the walk's blocks as for the tiles.
  b.family.smem = [](Block block, const KernelConfig&) { return tiled_dynamic_smem(block); };
  GemmConfig walk = gemm_config<TiledDynamic<0>>("TiledDynamic<0>", {{"tile", 0}}, {0, 0});
  walk.config.mode = {};
  b.family.walk = walk.config;
  b.walk_launch = walk.launch;
  b.family.min_threads = 16;  // the smallest useful tile is 4 x 4
  return b;
}

BuiltinFamily tiled_static_builtin() {
  BuiltinFamily b = gemm_family("tiled_static",
                                "textbook tiled GEMM, static shared memory (baseline)",
                                BlockRule::kSquare, textbook().statics);
  b.family.baseline = true;
  return b;
}

BuiltinFamily naive_builtin() {
  BuiltinFamily b = gemm_family("naive", "one output per thread from global memory (baseline)",
                                BlockRule::kFixed, textbook().naives);
  b.family.baseline = true;
  return b;
}

KernelFamily tiled_dynamic_family() { return tiled_dynamic_builtin().family; }
KernelFamily tiled_static_family() { return tiled_static_builtin().family; }
KernelFamily naive_family() { return naive_builtin().family; }

}  // namespace occtune::kernels
