// The textbook baselines as families of the registration API (kernels/textbook_families.hpp):
// the GEMM's dimensions, buffers, grid, launch and device reference, and one configuration per
// instantiation of kernels/tiled.cuh, specialised to its square block, in all four layouts.
#include "kernels/textbook_families.hpp"

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/registry_internal.cuh"
#include "kernels/tiled.cuh"
#include "occtune/launch.cuh"

namespace occtune::kernels {
namespace {

template <class Variant>
using AsIs = Variant;

// The GEMM's problem {m, n, k} in the families' declared order.
struct Mnk {
  int m, n, k;
};
Mnk mnk(const Dims& problem) {
  return {int(problem.values[0].second), int(problem.values[1].second),
          int(problem.values[2].second)};
}

Layout mode_layout(const std::string& mode) {
  for (const Layout l : kAllLayouts)
    if (mode == layout_name(l)) return l;
  return Layout::kNN;  // unreachable: registration checks every mode
}

// The problem on dense operands: the smallest leading dimensions of layout `l`.
GemmArgs dense_args(Layout l, Mnk s, const float* a, const float* b, float* c) {
  return GemmArgs{a, b, c, s.m, s.n, s.k, int(min_lda(l, s.m, s.k)), int(min_ldb(l, s.n, s.k)),
                  s.n};
}

// Each thread one output, summed in double: what the textbook kernels are compared with. A
// transposed operand is read through its strides.
template <Layout L>
__global__ void reference_gemm(GemmArgs p) {
  const int row = int(blockIdx.y * blockDim.y + threadIdx.y);
  const int col = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= p.m || col >= p.n) return;
  double acc = 0;
  for (int i = 0; i < p.k; ++i) {
    const float a = transposes_a(L) ? p.a[size_t(i) * p.lda + row] : p.a[size_t(row) * p.lda + i];
    const float b = transposes_b(L) ? p.b[size_t(col) * p.ldb + i] : p.b[size_t(i) * p.ldb + col];
    acc += double(a) * double(b);
  }
  p.c[size_t(row) * p.ldc + col] = float(acc);
}

int device_reference(const ReferenceArgs& r) {
  const Layout l = mode_layout(r.problem->mode);
  const Mnk s = mnk(*r.problem);
  const GemmArgs p = dense_args(l, s, r.buffers[0], r.buffers[1], r.buffers[2]);
  const dim3 block(16, 16), grid(unsigned((s.n + 15) / 16), unsigned((s.m + 15) / 16));
  auto stream = static_cast<cudaStream_t>(r.stream);
  switch (l) {
    case Layout::kNN: reference_gemm<Layout::kNN><<<grid, block, 0, stream>>>(p); break;
    case Layout::kNT: reference_gemm<Layout::kNT><<<grid, block, 0, stream>>>(p); break;
    case Layout::kTN: reference_gemm<Layout::kTN><<<grid, block, 0, stream>>>(p); break;
    case Layout::kTT: reference_gemm<Layout::kTT><<<grid, block, 0, stream>>>(p); break;
  }
  return int(cudaGetLastError());
}

// A configuration with the launch the GEMM engine uses (GemmArgs, kernels/launch.cuh): the
// configuration's function is gemm_entry<Variant>, its launch launch_entry<Variant>.
struct Instantiation {
  KernelConfig config;
  LaunchFn launch;
};

template <class Variant>
Instantiation instantiation(std::string nn_symbol, int side, std::vector<occtune::Param> params) {
  constexpr Layout l = LayoutOf<Variant>::value;
  KernelConfig c;
  c.params = std::move(params);
  c.function = reinterpret_cast<const void*>(&gemm_entry<Variant>);
  c.block = {side, side};
  c.symbol = layout_symbol(l, std::move(nn_symbol));
  c.mode = layout_name(l);
  return {std::move(c), &launch_entry<Variant>};
}

// One layout's instantiations (W: AsIs for nn, NT, TN or TT), in the registry's order of old.
template <template <class> class W>
void add_textbook(std::vector<Instantiation>& statics, std::vector<Instantiation>& naives) {
  // The tile of tiled_static is its square block, a parameter the expansion adds ("tile").
  statics.push_back(instantiation<W<TiledStatic<8>>>("TiledStatic<8>", 8, {}));
  statics.push_back(instantiation<W<TiledStatic<16>>>("TiledStatic<16>", 16, {}));
  statics.push_back(instantiation<W<TiledStatic<32>>>("TiledStatic<32>", 32, {}));
  naives.push_back(instantiation<W<Naive<8>>>("Naive<8>", 8, {{"block", 8}}));
  naives.push_back(instantiation<W<Naive<16>>>("Naive<16>", 16, {{"block", 16}}));
  naives.push_back(instantiation<W<Naive<32>>>("Naive<32>", 32, {{"block", 32}}));
}

struct Instantiations {
  std::vector<Instantiation> statics, naives;
};
const Instantiations& instantiations() {
  static const Instantiations all = [] {
    Instantiations out;
    add_textbook<AsIs>(out.statics, out.naives);
    add_textbook<NT>(out.statics, out.naives);
    add_textbook<TN>(out.statics, out.naives);
    add_textbook<TT>(out.statics, out.naives);
    return out;
  }();
  return all;
}

const Instantiation* find_instantiation(const void* function) {
  for (const auto* list : {&instantiations().statics, &instantiations().naives})
    for (const Instantiation& i : *list)
      if (i.config.function == function) return &i;
  return nullptr;
}

// Launches a configuration on the problem's dense operands (LaunchArgs: A, B, C).
int launch_textbook(const LaunchArgs& a) {
  const Instantiation* i = find_instantiation(a.function);
  if (!i) return int(cudaErrorInvalidDeviceFunction);
  const GemmArgs p = dense_args(mode_layout(a.config->mode), mnk(*a.problem), a.buffers[0],
                                a.buffers[1], a.buffers[2]);
  return int(i->launch(p, dim3(unsigned(a.grid.x), unsigned(a.grid.y), unsigned(a.grid.z)),
                       dim3(unsigned(a.block.x), unsigned(a.block.y)), a.dynamic_smem,
                       static_cast<cudaStream_t>(a.stream)));
}

// What both families share: the GEMM C = op(A) op(B) in four layouts, one output per thread,
// so a block of w x w threads computes a w x w tile of C and the grid covers C with them.
KernelFamily textbook_family(std::string name, std::string description,
                             const std::vector<Instantiation>& configs) {
  KernelFamily f;
  f.name = std::move(name);
  f.version = "builtin";
  f.description = std::move(description);
  f.dims = {"m", "n", "k"};
  f.modes = {"layout", {"nn", "nt", "tn", "tt"}};
  f.baseline = true;
  for (const Instantiation& i : configs) f.configs.push_back(i.config);
  f.smem = [](Block, const KernelConfig&) -> std::size_t { return 0; };
  f.grid = [](const Dims& problem, const KernelConfig&, Block b) {
    const Mnk s = mnk(problem);
    return Grid{(s.n + b.x - 1) / b.x, (s.m + b.y - 1) / b.y, 1};
  };
  f.buffers = [](const Dims& problem) {
    const Mnk s = mnk(problem);
    return std::vector<Buffer>{{"a", std::size_t(s.m) * std::size_t(s.k), Buffer::Role::kInput},
                               {"b", std::size_t(s.k) * std::size_t(s.n), Buffer::Role::kInput},
                               {"c", std::size_t(s.m) * std::size_t(s.n), Buffer::Role::kOutput}};
  };
  f.launch = &launch_textbook;
  f.device_reference = &device_reference;
  f.cuda = cuda_hooks();
  f.compare = {Comparison::Norm::kRelativeFrobenius, 1e-4};  // float sums against double ones
  f.flops = [](const Dims& problem) {
    const Mnk s = mnk(problem);
    return 2.0 * s.m * s.n * s.k;
  };
  return f;
}

}  // namespace

KernelFamily tiled_static_family() {
  KernelFamily f = textbook_family("tiled_static",
                                   "textbook tiled GEMM, static shared memory (baseline)",
                                   instantiations().statics);
  f.block_rule = BlockRule::kSquare;  // tile=w from the block, as the walked family has it
  return f;
}

KernelFamily naive_family() {
  KernelFamily f = textbook_family("naive",
                                   "one output per thread from global memory (baseline)",
                                   instantiations().naives);
  f.block_rule = BlockRule::kFixed;  // its parameter is "block", the configuration's own
  return f;
}

LaunchFn textbook_gemm_launch(const void* function) {
  const Instantiation* i = find_instantiation(function);
  return i ? i->launch : nullptr;
}

}  // namespace occtune::kernels
