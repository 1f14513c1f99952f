// The KernelFamily every built-in GEMM family shares (kernels/gemm_family.cuh): the problem, the
// buffers, the device reference and the launch on GemmArgs; each configuration's own parts
// (shared memory, tile, grid z, workspace, LaunchFn) come from its GemmConfig.
#include "kernels/gemm_family.cuh"

#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "kernels/builtin_families.hpp"  // opt_in_dynamic_smem, the families' opt-in hook
#include "occtune/launch.cuh"

namespace occtune::kernels {
namespace {

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

// Each thread one output, summed in double: what every family's configurations are compared
// with through the API. A transposed operand is read through its strides.
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

// The family's configurations by function: what its smem, grid, workspace and launch read.
struct ConfigTable {
  std::vector<GemmConfig> gemm;
  std::unordered_map<const void*, std::size_t> by_function;

  const GemmConfig* find(const void* function) const {
    auto it = by_function.find(function);
    return it == by_function.end() ? nullptr : &gemm[it->second];
  }
  // For the functions the engine hands back: the configuration is always one of the family's.
  const GemmConfig& of(const KernelConfig& config) const {
    const GemmConfig* g = find(config.function);
    if (!g) throw std::logic_error("GEMM configuration " + config.symbol + " is not its family's");
    return *g;
  }
};

}  // namespace

BuiltinFamily gemm_family(std::string name, std::string description, BlockRule rule,
                          std::vector<GemmConfig> configs) {
  auto table = std::make_shared<ConfigTable>();
  table->gemm = std::move(configs);
  BuiltinFamily out;
  KernelFamily& f = out.family;
  for (std::size_t i = 0; i < table->gemm.size(); ++i) {
    const GemmConfig& g = table->gemm[i];
    if (!table->by_function.emplace(g.config.function, i).second)
      throw std::logic_error(name + ": two configurations share the function of " +
                             g.config.symbol);
    f.configs.push_back(g.config);
  }
  out.gemm = table->gemm;
  f.name = std::move(name);
  f.version = "builtin";  // never a key: a built-in family is keyed by the kernel build id
  f.description = std::move(description);
  f.dims = {"m", "n", "k"};
  f.modes = {"layout", {"nn", "nt", "tn", "tt"}};
  f.block_rule = rule;
  f.smem = [table](Block, const KernelConfig& c) { return table->of(c).dynamic_smem; };
  f.grid = [table](const Dims& problem, const KernelConfig& c, Block) {
    const GemmConfig& g = table->of(c);
    const Mnk s = mnk(problem);
    return Grid{(s.n + g.tile_n - 1) / g.tile_n, (s.m + g.tile_m - 1) / g.tile_m, g.grid_z};
  };
  f.workspace = [table](const Dims& problem, const KernelConfig& c, Block) -> std::size_t {
    const GemmConfig& g = table->of(c);
    const Mnk s = mnk(problem);
    return g.workspace_bytes ? g.workspace_bytes(s.m, s.n, s.k) : 0;
  };
  f.buffers = [](const Dims& problem) {
    const Mnk s = mnk(problem);
    return std::vector<Buffer>{{"a", std::size_t(s.m) * std::size_t(s.k), Buffer::Role::kInput},
                               {"b", std::size_t(s.k) * std::size_t(s.n), Buffer::Role::kInput},
                               {"c", std::size_t(s.m) * std::size_t(s.n), Buffer::Role::kOutput}};
  };
  // A configuration's own launch (split-K's reduction, repacked's copies included) on the
  // problem's dense operands (LaunchArgs: A, B, C) and its workspace.
  f.launch = [table](const LaunchArgs& a) {
    const GemmConfig* g = table->find(a.function);
    if (!g || !g->launch) return int(cudaErrorInvalidDeviceFunction);
    GemmArgs p = dense_args(mode_layout(a.config->mode), mnk(*a.problem), a.buffers[0],
                            a.buffers[1], a.buffers[2]);
    p.workspace = static_cast<float*>(a.workspace);
    p.workspace_bytes = a.workspace_bytes;
    return int(g->launch(p, dim3(unsigned(a.grid.x), unsigned(a.grid.y), unsigned(a.grid.z)),
                         dim3(unsigned(a.block.x), unsigned(a.block.y)), a.dynamic_smem,
                         static_cast<cudaStream_t>(a.stream)));
  };
  f.device_reference = &device_reference;
  f.cuda = cuda_hooks();
  f.cuda.set_max_dynamic_smem = &opt_in_dynamic_smem;  // opts a configuration's twin in too
  f.compare = {Comparison::Norm::kRelativeFrobenius, 1e-4};  // float sums against double ones
  f.flops = [](const Dims& problem) {
    const Mnk s = mnk(problem);
    return 2.0 * s.m * s.n * s.k;
  };
  return out;
}

}  // namespace occtune::kernels
