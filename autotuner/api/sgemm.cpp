// occtune::sgemm (include/occtune/sgemm.hpp): the BLAS-style call reduced to the row-major form
// (autotuner/core/layout.hpp), the configuration resolved once per (device, layout, shape)
// through occtune::Cache, then only the launch. The cached path takes a shared lock and probes a
// hash map: no allocation (split-K's scratch comes from the stream-ordered pool, which a graph
// capture records as a node), no synchronisation, no store access.
#include "occtune/sgemm.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "autotuner/api/conversions.hpp"
#include "autotuner/api/on_miss_tuner.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db/store_path.hpp"
#include "kernels/applicability.hpp"
#include "kernels/launch.cuh"
#include "kernels/registry.hpp"
#include "occtune/cache.hpp"

namespace occtune {

namespace {

// What a resolved shape launches: `variant`, or `fallback` where the call's operands are ones
// the variant cannot address (kernels/applicability.hpp: the TMA family's 16-byte rule; the
// cache is keyed by the shape, not by the caller's pointers and leading dimensions).
struct Resolved {
  const kernels::VariantInfo* variant = nullptr;
  std::size_t workspace_bytes = 0;
  std::string how;  // for sgemm_prepare and error messages
  const kernels::VariantInfo* fallback = nullptr;  // set when variant has operand rules
  std::size_t fallback_workspace_bytes = 0;
};

struct ShapeKey {
  Layout layout;
  std::int64_t m, n, k;
  bool operator==(const ShapeKey& o) const {
    return layout == o.layout && m == o.m && n == o.n && k == o.k;
  }
};
struct ShapeKeyHash {
  std::size_t operator()(const ShapeKey& s) const noexcept {
    std::size_t h = std::size_t(s.layout);
    for (std::int64_t v : {s.m, s.n, s.k}) h = h * 1000003u ^ std::hash<std::int64_t>{}(v);
    return h;
  }
};

// Everything known about one device ordinal of this process.
struct DeviceState {
  std::once_flag probed;
  DeviceInfo info;
  std::shared_mutex mutex;
  std::unordered_map<ShapeKey, Resolved, ShapeKeyHash> shapes;
};

std::atomic<int> g_policy{-1};  // -1: not read from OCCTUNE_TUNE yet

TunePolicy policy_from_environment() {
  const char* v = std::getenv("OCCTUNE_TUNE");
  if (v == nullptr || *v == '\0' || std::string_view(v) == "off") return TunePolicy::kOff;
  if (std::string_view(v) == "on_miss") return TunePolicy::kOnMiss;
  fail(ExitCode::kUsage,
       fmt::format("OCCTUNE_TUNE='{}' is not a tuning policy; use off or on_miss", v));
}

DeviceState& device_state(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceState>> states;
  std::lock_guard lock(mutex);
  auto& s = states[ordinal];
  if (!s) s = std::make_unique<DeviceState>();
  return *s;
}

[[noreturn]] void cuda_failure(const char* what, cudaError_t err) {
  fail(ExitCode::kRuntime, fmt::format("occtune::sgemm: {} failed: {} ({})", what,
                                       cudaGetErrorString(err), cudaGetErrorName(err)));
}

int current_device() {
  int ordinal = 0;
  if (const cudaError_t err = cudaGetDevice(&ordinal); err != cudaSuccess)
    cuda_failure("cudaGetDevice", err);
  return ordinal;
}

const kernels::VariantInfo* variant_named(const std::string& symbol) {
  for (const auto& v : kernels::variants())
    if (v.symbol == symbol) return &v;
  return nullptr;
}

// The store's answer for the shape on this device, when there is a store with this device.
std::optional<Answer> cached_answer(const DeviceInfo& device, const RowMajorGemm& g) {
  const Cache* cache = api::process_cache();
  if (cache == nullptr) return std::nullopt;
  Problem p;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.layout = layout_name(g.layout);
  return cache->find(p, device.uuid);
}

// The textbook occupancy answer on the live device's properties: runs on any operands.
const kernels::VariantInfo* heuristic_variant(const DeviceState& state, const RowMajorGemm& g) {
  return db::occupancy_heuristic(state.info, db::kTextbookFamily, Shape{g.m, g.n, g.k}, g.layout)
      .candidate.variant;
}

void prepare(const kernels::VariantInfo& v) {
  // Opt in to large dynamic shared memory here, once, rather than on the cached path.
  if (const cudaError_t err = kernels::prepare_variant(v); err != cudaSuccess)
    cuda_failure(fmt::format("preparing {}", v.symbol).c_str(), err);
}

Resolved resolve(DeviceState& state, const RowMajorGemm& g) {
  std::optional<Answer> answer = cached_answer(state.info, g);
  const bool measured_here =
      answer && answer->measured() && answer->answered_by == LookupStep::kExact;
  if (!measured_here && tune_policy() == TunePolicy::kOnMiss) {
    api::tune_on_miss(state.info, g);
    answer = cached_answer(state.info, g);
  }
  Resolved r;
  std::string unusable;  // why the store's answer cannot run on this device
  if (answer) {
    r.variant = variant_named(answer->config.variant);
    r.how = fmt::format("{} {} ({}), answered by {}", answer->config.family, answer->config.variant,
                        layout_name(g.layout), to_string(answer->answered_by));
    if (r.variant)
      unusable = kernels::arch_violation(*r.variant, state.info.compute_capability());
    if (!unusable.empty()) r.variant = nullptr;
  }
  if (!r.variant) {
    // Nothing in a store (or nothing this device runs): the textbook occupancy answer.
    r.variant = heuristic_variant(state, g);
    r.how = fmt::format("{} {} ({}), the occupancy heuristic ({})", r.variant->family,
                        r.variant->symbol, layout_name(g.layout),
                        unusable.empty() ? "no store entry"
                                         : fmt::format("the store's {}: {}",
                                                       answer->config.variant, unusable));
  }
  if (r.variant->layout != g.layout)
    fail(ExitCode::kRuntime,
         fmt::format("occtune::sgemm: the configuration {} computes layout "
                     "{}, not {}; the store is inconsistent",
                     r.variant->symbol, layout_name(r.variant->layout), layout_name(g.layout)));
  r.workspace_bytes = r.variant->workspace(int(g.m), int(g.n), int(g.k));
  prepare(*r.variant);
  if (r.variant->operand_alignment > 1) {
    r.fallback = heuristic_variant(state, g);
    r.fallback_workspace_bytes = r.fallback->workspace(int(g.m), int(g.n), int(g.k));
    prepare(*r.fallback);
  }
  return r;
}

RowMajorGemm checked_problem(Major major, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                             std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  if (major != Major::kRow && major != Major::kColumn)
    fail(ExitCode::kUsage, fmt::format("occtune::sgemm: unknown major {}; use Major::kRow or "
                                       "Major::kColumn",
                                       int(major)));
  for (auto [name, op] : {std::pair{"op_a", op_a}, std::pair{"op_b", op_b}})
    if (op != Op::kN && op != Op::kT)
      fail(ExitCode::kUsage,
           fmt::format("occtune::sgemm: unknown {} {}; use Op::kN or Op::kT", name, int(op)));
  const RowMajorGemm g = to_row_major(major, op_a, op_b, m, n, k, lda, ldb, ldc);
  if (const std::string why = row_major_violation(g); !why.empty())
    fail(ExitCode::kUsage, "occtune::sgemm: " + why);
  return g;
}

const Resolved& resolved(DeviceState& state, const RowMajorGemm& g) {
  const ShapeKey key{g.layout, g.m, g.n, g.k};
  {
    std::shared_lock lock(state.mutex);
    if (auto it = state.shapes.find(key); it != state.shapes.end()) return it->second;
  }
  Resolved r = resolve(state, g);  // outside the lock: it may read the store or tune
  std::unique_lock lock(state.mutex);
  return state.shapes.try_emplace(key, std::move(r)).first->second;
}

DeviceState& current_state() {
  const int ordinal = current_device();
  DeviceState& state = device_state(ordinal);
  std::call_once(state.probed, [&] {
    for (auto& d : cuda::probe_devices())
      if (d.index == ordinal) state.info = d;
  });
  return state;
}

}  // namespace

void set_tune_policy(TunePolicy policy) { g_policy.store(int(policy)); }

TunePolicy tune_policy() {
  int p = g_policy.load();
  if (p < 0) {
    p = int(policy_from_environment());
    g_policy.store(p);
  }
  return TunePolicy(p);
}

std::string sgemm_prepare(Major major, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                          std::int64_t k) {
  // The smallest leading dimensions of the caller's matrices: op(X) is rows x cols, stored
  // transposed for Op::kT; a row-major matrix needs a row's length, a column-major one a column's.
  const auto least_ld = [major](Op op, std::int64_t rows, std::int64_t cols) {
    const std::int64_t stored_rows = op == Op::kN ? rows : cols;
    const std::int64_t stored_cols = op == Op::kN ? cols : rows;
    return std::max<std::int64_t>(major == Major::kRow ? stored_cols : stored_rows, 1);
  };
  const RowMajorGemm g = checked_problem(major, op_a, op_b, m, n, k, least_ld(op_a, m, k),
                                         least_ld(op_b, k, n), least_ld(Op::kN, m, n));
  if (g.m == 0 || g.n == 0) return "nothing to compute (an empty C)";
  return resolved(current_state(), g).how;
}

void sgemm(Major major, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc, cudaStream_t stream) {
  const RowMajorGemm g = checked_problem(major, op_a, op_b, m, n, k, lda, ldb, ldc);
  if (g.m == 0 || g.n == 0) return;  // an empty C: nothing to read or write (BLAS)
  if (c == nullptr) fail(ExitCode::kUsage, "occtune::sgemm: C is a null pointer");
  if (g.k > 0 && (a == nullptr || b == nullptr))
    fail(ExitCode::kUsage, fmt::format("occtune::sgemm: {} is a null pointer with k = {}",
                                       a == nullptr ? "A" : "B", k));
  const Resolved& r = resolved(current_state(), g);
  kernels::GemmArgs args{};
  args.a = g.swap_operands ? b : a;
  args.b = g.swap_operands ? a : b;
  args.c = c;
  args.m = int(g.m);
  args.n = int(g.n);
  args.k = int(g.k);
  args.lda = int(g.lda);
  args.ldb = int(g.ldb);
  args.ldc = int(g.ldc);
  args.alpha = alpha;
  args.beta = beta;
  // The winner where the rule lets it address these operands (kernels/applicability.hpp), else
  // the fallback resolved with it; without operand rules the check is one comparison.
  const bool fits =
      r.variant->operand_alignment <= 1 ||
      kernels::operand_violation(*r.variant, {g.lda, g.ldb, g.ldc,
                                              reinterpret_cast<std::uintptr_t>(args.a),
                                              reinterpret_cast<std::uintptr_t>(args.b),
                                              reinterpret_cast<std::uintptr_t>(args.c)})
          .empty();
  const kernels::VariantInfo& variant = fits ? *r.variant : *r.fallback;
  const std::size_t workspace_bytes = fits ? r.workspace_bytes : r.fallback_workspace_bytes;
  void* workspace = nullptr;
  if (workspace_bytes > 0) {
    if (const cudaError_t err = cudaMallocAsync(&workspace, workspace_bytes, stream);
        err != cudaSuccess)
      cuda_failure("cudaMallocAsync of the split-K workspace", err);
    args.workspace = static_cast<float*>(workspace);
    args.workspace_bytes = workspace_bytes;
  }
  const cudaError_t err = kernels::launch_prepared(variant, args, stream);
  if (workspace != nullptr) cudaFreeAsync(workspace, stream);
  if (err != cudaSuccess) cuda_failure(fmt::format("launching {}", variant.symbol).c_str(), err);
}

}  // namespace occtune
